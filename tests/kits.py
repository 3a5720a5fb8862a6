"""The bot kits that run as processes, each as a :class:`Kit`: what it needs installed, how it
is built, and the command that starts its bot. tests/test_kits.py plays every kit through the
same scenarios (tests/process_bots.py); a kit's own tests sit in a file of its own.

Without its toolchain a kit's tests are skipped on a developer's machine, naming what to
install, but fail in CI (``CI`` set), where `.ci/run` installs every kit's toolchain."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
BUILD_S = 900.0
"""A hang guard for a build on a loaded machine."""


def make(folder: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """``make`` in ``folder`` (it rebuilds only what changed, e.g. after the .proto moved)."""
    return subprocess.run(
        ["make", "-C", str(folder), f"-j{min(os.cpu_count() or 1, 4)}", *targets],
        capture_output=True,
        text=True,
        timeout=BUILD_S,
    )


def _built_with_make(folder: Path) -> None:
    done = make(folder)
    if done.returncode != 0:
        where = folder.relative_to(ROOT)
        pytest.fail(f"make -C {where} failed ({done.returncode}):\n{done.stderr[-4000:]}")


def _node_packages_installed() -> None:
    """The Node bot's packages, installed with ``npm ci`` unless Node already finds them (a
    folder left half-installed does not count)."""
    folder = SAMPLES / "node"
    check = "require.resolve('@grpc/grpc-js'); require.resolve('@grpc/proto-loader')"
    found = subprocess.run(["node", "-e", check], cwd=folder, capture_output=True, timeout=60)
    if found.returncode == 0:
        return
    if shutil.which("npm") is None:
        pytest.fail(f"{folder / 'node_modules'} is missing and npm is not on PATH: {NODE.setup}")
    done = subprocess.run(
        ["npm", "ci", "--prefix", str(folder), "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        timeout=BUILD_S,
    )
    if done.returncode != 0:
        pytest.fail(f"npm ci failed ({done.returncode}): {done.stderr[-2000:]}\n{NODE.setup}")


def _nothing_to_build() -> None:
    pass


@dataclass(frozen=True)
class Lines:
    """The one line a kit's bot writes to stderr before it exits 1 when the arena refuses its
    ticket or its session token (``{address}``: the arena's)."""

    wrong_ticket: str
    wrong_token: str


STATUS_LINES = Lines(
    wrong_ticket="stream error: UNAUTHENTICATED (16): unknown or wrong ticket",
    wrong_token="session refused: UNAUTHENTICATED (16): unknown session token (check $ARENA_TOKEN)",
)
"""The C++ and Node bots': the gRPC status as it came."""
SDK_LINES = Lines(
    wrong_ticket="the arena at {address} refused the ticket (UNAUTHENTICATED: unknown or wrong"
    " ticket): check the ticket in $ARENA_TICKET: each seat of each table has its own",
    wrong_token="the arena at {address} refused the session (UNAUTHENTICATED: unknown session"
    " token): check the token in $ARENA_TOKEN (or the file given with --token-file)",
)
"""The Python SDK's (chaodipi.bot.errors), which the stdio bridge writes and the Go kit's
arenabot writes the same."""


@dataclass(frozen=True)
class Kit:
    """One kit: ``command(...)`` is its bot's command line, ``--address`` still to come (the
    arena appends it), as a tournament config would name it."""

    name: str
    """The test id: ``cpp``, ``node``, ``go``, ``stdio``."""
    tools: tuple[str, ...]
    """The executables it needs on PATH."""
    setup: str
    """How to install what it needs, for the skip message."""
    build: Callable[[], None]
    """Builds or installs the bot (a test failure when that fails)."""
    lines: Lines
    """What it writes when the arena refuses it."""
    bot: tuple[str, ...]
    """The command before the bot's options."""
    child: tuple[str, ...] = ()
    """The command after its options: the stdio bridge's bot, after ``--``."""
    libraries: tuple[Path, ...] = ()
    """Folders that must exist (Debian's Go libraries)."""
    seeded: bool = True
    """It takes ``--seed N`` for its random moves."""
    reconnect_says: tuple[str, ...] | None = None
    """With a ticket, it opens a dropped ``Play`` stream again and answers the open decision,
    writing these lines on stderr when it does; ``None``: it does not (the seat is lost)."""

    def command(
        self, *, name: str | None = None, capacity: int | None = None, seed: int | None = None
    ) -> list[str]:
        options: list[str] = []
        if name is not None:
            options += ["--name", name]
        if capacity is not None:
            options += ["--capacity", str(capacity)]
        if seed is not None and self.seeded:
            options += ["--seed", str(seed)]
        return [*self.bot, *options, *self.child]

    def ready(self) -> Kit:
        """The kit, built once per test session: skipped (in CI, failed) when its toolchain
        is missing."""
        return _ready(self)


@functools.cache
def _ready(kit: Kit) -> Kit:
    missing = [tool for tool in kit.tools if shutil.which(tool) is None]
    missing += [str(library) for library in kit.libraries if not library.is_dir()]
    if missing:
        message = f"the {kit.name} kit's toolchain is missing ({', '.join(missing)}): {kit.setup}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    kit.build()
    return kit


CPP = Kit(
    lines=STATUS_LINES,
    name="cpp",
    tools=("make", "g++", "pkg-config", "protoc", "grpc_cpp_plugin"),
    setup="apt-get install g++ make pkg-config protobuf-compiler protobuf-compiler-grpc"
    " libprotobuf-dev libgrpc++-dev, then `make -C sample_bots/cpp`",
    build=functools.partial(_built_with_make, SAMPLES / "cpp"),
    bot=(str(SAMPLES / "cpp" / "build" / "bot"),),
)
NODE = Kit(
    lines=STATUS_LINES,
    name="node",
    tools=("node",),
    setup="install Node.js >= 18, then `npm ci --prefix sample_bots/node`",
    build=_node_packages_installed,
    bot=("node", str(SAMPLES / "node" / "bot.js")),
)
GOCODE = Path("/usr/share/gocode/src")
GO_SOURCE = SAMPLES / "go"
GO = Kit(
    lines=SDK_LINES,
    name="go",
    tools=("make", "go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"),
    libraries=tuple(
        GOCODE / library
        for library in (
            "google.golang.org/grpc",
            "google.golang.org/protobuf",
            "github.com/golang/protobuf",
        )
    ),
    setup="apt-get install golang-go golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev"
    " protoc-gen-go protoc-gen-go-grpc protobuf-compiler make, then `make -C sample_bots/go`",
    build=functools.partial(_built_with_make, GO_SOURCE),
    bot=(str(GO_SOURCE / "build" / "bot"),),
    reconnect_says=("stream dropped (UNAVAILABLE: scripted drop): connecting again",),
)
STDIO_EXAMPLE = ROOT / "examples" / "stdio_bot.js"
STDIO = Kit(
    lines=SDK_LINES,
    name="stdio",
    tools=("node",),
    setup="install Node.js >= 18 (apt-get install nodejs): the bridge's example bot needs it",
    build=_nothing_to_build,
    bot=(sys.executable, "-m", "chaodipi.bot.stdio"),
    child=("--", "node", str(STDIO_EXAMPLE)),
    seeded=False,
    reconnect_says=(),
)
KITS = (CPP, NODE, GO, STDIO)
