"""Serving the ladder's pages (:func:`serve_web`): Hypercorn on the running asyncio loop, the
one the ladder's gRPC server and tables run on, until the task is cancelled.

The listening socket is bound before Hypercorn starts, so the address it reports is the one
bound (``127.0.0.1:0`` gives a free port, read back). When the task is cancelled, the pages'
event streams end first (each browser connects again later), then Hypercorn stops, letting
the requests in progress finish for :data:`GRACE_SECONDS` at most.
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any, cast

import anyio
from anyio.abc import TaskStatus
from hypercorn.asyncio import serve
from hypercorn.config import Config, Sockets
from hypercorn.typing import Framework
from starlette.applications import Starlette

from chaodipi.arena.errors import AddressError
from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving import parse_address

__all__ = ["GRACE_SECONDS", "serve_web"]

GRACE_SECONDS = 2.0
"""How long the requests in progress may take to finish when the pages stop."""


class _BoundConfig(Config):
    """Hypercorn's config serving one socket bound beforehand (over TLS when given the
    certificate and key files)."""

    def __init__(self, bound: socket.socket, tls: tuple[Path, Path] | None) -> None:
        super().__init__()
        self._bound = bound
        if tls is not None:
            self.certfile, self.keyfile = str(tls[0]), str(tls[1])

    def create_sockets(self) -> Sockets:
        if self.ssl_enabled:
            return Sockets(secure_sockets=[self._bound], insecure_sockets=[], quic_sockets=[])
        return Sockets(secure_sockets=[], insecure_sockets=[self._bound], quic_sockets=[])


def _listen(address: str) -> socket.socket:
    """A socket listening on ``address`` (``HOST:PORT``); :class:`AddressError` in one line
    if it cannot."""
    host, port = parse_address(address)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise AddressError(
            f"cannot serve the pages on {address}: no such host {host!r} ({err.strerror})"
        ) from None
    family, _, _, _, where = found[0]
    try:
        bound = socket.create_server(where[:2], family=family, reuse_port=False)
    except OSError as err:
        raise AddressError(f"cannot serve the pages on {address}: {err.strerror}") from None
    bound.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    bound.setblocking(False)
    return bound


def _shown(bound: socket.socket) -> str:
    host, port = bound.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def serve_web(
    app: Starlette,
    address: str,
    *,
    tls: tuple[Path, Path] | None = None,
    task_status: TaskStatus[str] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` (:func:`create_app`'s) on ``address`` until cancelled, over HTTPS with
    ``tls`` (a PEM certificate file and its key's); ``task_status`` is told the address bound
    (``HOST:PORT``, the port read back when 0 was asked)."""
    bound = _listen(address)
    config = _BoundConfig(bound, tls)
    config.accesslog = None
    config.errorlog = logging.getLogger("chaodipi.arena.ladder.web")
    config.graceful_timeout = GRACE_SECONDS
    stop = anyio.Event()
    shown = _shown(bound)
    log = get_logger(web=shown)

    async def until_cancelled() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            end_streams: Any = getattr(app.state, "end_streams", None)
            if end_streams is not None:
                end_streams()
            stop.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(until_cancelled)
            scheme = "https" if tls is not None else "http"
            log.info("web_serving", url=f"{scheme}://{shown}/")
            task_status.started(shown)
            with anyio.CancelScope(shield=True):  # Hypercorn stops itself once told to
                # Starlette's ASGI types and Hypercorn's differ in their names only
                await serve(cast(Framework, app), config, shutdown_trigger=stop.wait)
            tasks.cancel_scope.cancel()
    finally:
        bound.close()
        log.info("web_stopped")
