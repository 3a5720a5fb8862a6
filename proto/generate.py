"""Generate the Python code for the protocol: ``python3 proto/generate.py``.

Writes ``arena_pb2.py``, ``arena_pb2.pyi`` and ``arena_pb2_grpc.py`` beside each ``.proto``
under ``proto/`` (``proto/chaodipi/arena/v2/``, importable as ``chaodipi.arena.v2`` once
``proto/`` is on the path: pyproject.toml maps the package) with the pinned grpcio-tools (see
pyproject.toml's test extra). The generated files are committed; ``tests/test_protocol.py``
fails when they are stale. With ``--out DIR`` the files go under DIR instead (the test uses
this to compare). ``convert.py`` beside them is hand-written: this never touches it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTOS = (Path("chaodipi") / "arena" / "v2" / "arena.proto",)
"""The contract's files, relative to ``proto/`` (their directory is their package)."""
GENERATED = ("arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py")
"""What each ``.proto`` gives, beside it."""


def generate(out: Path) -> None:
    from grpc_tools import protoc  # type: ignore[import-untyped]

    out.mkdir(parents=True, exist_ok=True)
    for proto in PROTOS:
        args = [
            "protoc",
            f"-I{HERE}",
            f"--python_out={out}",
            f"--pyi_out={out}",
            f"--grpc_python_out={out}",
            str(HERE / proto),
        ]
        if protoc.main(args) != 0:
            raise SystemExit(f"protoc failed on {proto}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where chaodipi/... is written")
    generate(parser.parse_args().out)


if __name__ == "__main__":
    sys.exit(main())
