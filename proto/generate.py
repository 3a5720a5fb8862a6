"""Generate the Python code for the protocol: ``python3 proto/generate.py``.

Writes ``arena/v1/arena_pb2.py``, ``arena_pb2_grpc.py`` and ``arena_pb2.pyi`` from
``proto/arena/v1/arena.proto`` with the pinned grpcio-tools (see pyproject.toml's test extra).
The generated files are committed; ``tests/test_protocol.py`` fails when they are stale.
With ``--out DIR`` the files go under DIR instead (the test uses this to compare).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = Path("arena") / "v1" / "arena.proto"


def generate(out: Path) -> None:
    from grpc_tools import protoc  # type: ignore[import-untyped]

    out.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        f"-I{ROOT / 'proto'}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        str(ROOT / "proto" / PROTO),
    ]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc failed on {PROTO}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT, help="where arena/v1/ is written")
    generate(parser.parse_args().out)


if __name__ == "__main__":
    sys.exit(main())
