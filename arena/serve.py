"""``arena serve``: open tables, hand out tickets, run until every match is over."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

import trio

from arena.logs import configure_logging
from arena.server import open_server, tune_garbage_collector
from arena.table import TableConfig, TableResult
from engine.presets import preset


def _fail(message: str) -> int:
    print(f"arena serve: {message}", file=sys.stderr)
    return 2


def serve_command(args: argparse.Namespace) -> int:
    try:
        rules = preset(args.preset)
    except ValueError as err:
        return _fail(str(err))
    if (args.tls_cert is None) != (args.tls_key is None):
        return _fail("give both --tls-cert and --tls-key, or neither")
    if args.tls_cert is None and not args.plaintext:
        return _fail(
            "no TLS certificate given: pass --tls-cert and --tls-key, or --plaintext to serve "
            "without encryption (fine on 127.0.0.1)"
        )
    if args.tables < 1:
        return _fail("--tables must be at least 1")
    try:
        cert = args.tls_cert.read_bytes() if args.tls_cert else None
        key = args.tls_key.read_bytes() if args.tls_key else None
    except OSError as err:
        return _fail(f"cannot read the TLS files: {err}")
    configure_logging(args.log_level)
    configs = [
        TableConfig(
            rules,
            seed=args.seed + i,
            max_hands=args.hands or None,
            decision_ms=args.decision_ms,
            bank_ms=args.bank_ms,
            max_strikes=args.max_strikes,
            connect_timeout_s=args.connect_timeout,
            replay_dir=args.replays,
        )
        for i in range(args.tables)
    ]
    tune_garbage_collector()
    try:
        results = trio.run(_serve, args, configs, cert, key)
    except RuntimeError as err:
        return _fail(str(err))
    for result in results:
        print(json.dumps(_summary(result), ensure_ascii=False))
    return 0 if all(r.reason == "played to the end" for r in results) else 1


async def _serve(
    args: argparse.Namespace, configs: list[TableConfig], cert: bytes | None, key: bytes | None
) -> list[TableResult]:
    async with open_server(
        args.address, plaintext=cert is None, tls_cert=cert, tls_key=key
    ) as server:
        tables = [server.start_table(config) for config in configs]
        lines = [
            json.dumps(
                {"table": t.name, "seat": s, "ticket": t.ticket(s), "address": server.address}
            )
            for t in tables
            for s in range(4)
        ]
        _publish(lines, args.tickets)
        results: list[TableResult] = []
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        print("arena serve: stopping", file=sys.stderr)
                        for table in tables:
                            table.stop("the server was stopped")
                        return

            nursery.start_soon(stop_on_signal)
            for table in tables:
                results.append(await server.wait(table))
            nursery.cancel_scope.cancel()
        return results


def _publish(lines: list[str], path: Path | None) -> None:
    if path is None:
        print("\n".join(lines), flush=True)
        return
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    print(f"arena serve: {len(lines)} tickets written to {path}", file=sys.stderr, flush=True)


def _summary(result: TableResult) -> dict[str, object]:
    return {
        "table": result.table,
        "winner": result.winner,
        "hands": result.hands,
        "progress": list(result.progress),
        "forfeited_by": result.forfeited_by,
        "reason": result.reason,
        "strikes": [s.strikes for s in result.seats],
        "illegal": [s.illegal for s in result.seats],
        "replay": None if result.replay is None else str(result.replay),
    }
