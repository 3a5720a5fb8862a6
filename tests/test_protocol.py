"""The contract: generated code matches proto/, the .proto keeps buf's STANDARD and COMMENTS
lint rules (checked from its descriptor here, and by buf itself when it is installed)."""

from __future__ import annotations

import os
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from chaodipi.arena.v2 import arena_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
_generator = runpy.run_path(str(PROTO_DIR / "generate.py"))
PROTOS: tuple[Path, ...] = _generator["PROTOS"]
GENERATED: tuple[str, ...] = _generator["GENERATED"]
BUF = PROTO_DIR / "node_modules" / ".bin" / "buf"


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    """CI fails when a .proto changed but `python3 proto/generate.py` was not run: regenerate
    into a scratch folder and compare with what is committed."""
    subprocess.run(
        [sys.executable, str(PROTO_DIR / "generate.py"), "--out", str(tmp_path)], check=True
    )
    for proto in PROTOS:
        for name in GENERATED:
            where = proto.parent / name
            fresh = (tmp_path / where).read_text(encoding="utf-8")
            committed = (PROTO_DIR / where).read_text(encoding="utf-8")
            assert fresh == committed, f"proto/{where} is stale: run python3 proto/generate.py"


def test_protocol_package_is_versioned_and_matches_its_directory() -> None:
    assert pb.DESCRIPTOR.package == "chaodipi.arena.v2"
    assert Path(pb.DESCRIPTOR.name).parent == Path(*pb.DESCRIPTOR.package.split("."))


def _described(tmp_path: Path) -> descriptor_pb2.FileDescriptorProto:
    """The .proto's descriptor with its comments (protoc's source info)."""
    from grpc_tools import protoc  # type: ignore[import-untyped]

    out = tmp_path / "arena.desc"
    args = ["protoc", f"-I{PROTO_DIR}", "--include_source_info", f"--descriptor_set_out={out}"]
    assert protoc.main([*args, str(PROTO_DIR / PROTOS[0])]) == 0
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return files.file[0]


def test_the_standard_and_comments_rules_hold(tmp_path: Path) -> None:
    """What buf lint's STANDARD and COMMENTS rules ask, read from the descriptor (so this
    runs without buf): names, the options that let Go, Java and C# authors generate stubs
    without flags, enum zero values, and a comment on everything."""
    file = _described(tmp_path)
    options = file.options
    assert options.go_package and options.java_package and options.java_multiple_files
    assert options.csharp_namespace and options.java_outer_classname
    commented = {
        tuple(loc.path) for loc in file.source_code_info.location if loc.leading_comments.strip()
    }
    missing = []

    def need(path: tuple[int, ...], what: str) -> None:
        if path not in commented:
            missing.append(what)

    for s, service in enumerate(file.service):
        assert service.name.endswith("Service")
        need((6, s), service.name)
        for m, method in enumerate(service.method):
            need((6, s, 2, m), method.name)
            assert method.input_type.rsplit(".", 1)[1] == f"{method.name}Request"
            assert method.output_type.rsplit(".", 1)[1] == f"{method.name}Response"

    def enum(path: tuple[int, ...], value: descriptor_pb2.EnumDescriptorProto) -> None:
        need(path, value.name)
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", value.name).upper() + "_"
        assert value.value[0].number == 0 and value.value[0].name == f"{prefix}UNSPECIFIED"
        for v, item in enumerate(value.value):
            assert item.name.startswith(prefix), item.name
            need((*path, 2, v), item.name)

    for e, value in enumerate(file.enum_type):
        enum((5, e), value)
    for i, message in enumerate(file.message_type):
        need((4, i), message.name)
        assert message.name[0].isupper() and "_" not in message.name
        for f, field in enumerate(message.field):
            need((4, i, 2, f), f"{message.name}.{field.name}")
            assert re.fullmatch(r"[a-z][a-z0-9_]*", field.name), field.name
        for o, oneof in enumerate(message.oneof_decl):
            if not oneof.name.startswith("_"):  # proto3 `optional` makes a synthetic one
                need((4, i, 8, o), f"{message.name}.{oneof.name}")
        assert not message.nested_type and not message.enum_type  # keep it flat
    assert not missing, f"comment these in the .proto: {missing}"


def test_buf_lint_passes() -> None:
    """buf itself (`npm ci --prefix proto` installs it; CI must have it)."""
    buf = str(BUF) if BUF.exists() else shutil.which("buf")
    if buf is None:
        message = "buf is not installed: run `npm ci --prefix proto`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run([buf, "lint"], cwd=PROTO_DIR, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
