"""A token file other users can read is read, with one line on stderr naming the file and the
fix (as ssh says of a private key): in the SDK (``--token-file``), the stdio bridge, and
``arena watch``. A file only its owner reads gets no word."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chaodipi.arena.cli.watch import read_spectator_token
from chaodipi.bot import SessionError, run_bot
from chaodipi.bot.stdio import main as bridge_main

from .test_sdk_errors import free_address

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")

TOKEN = "a-session-token-for-tests"


def token_file(tmp_path: Path, mode: int) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n", encoding="utf-8")
    path.chmod(mode)
    return path


def the_warning(err: str, path: Path) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:") and str(path) in line]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604], ids=["0644", "0640", "0604"])
def test_the_sdk_warns_of_a_token_file_others_can_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    path = token_file(tmp_path, mode)
    argv = ["--address", free_address(), "--token-file", str(path), "--wait-for-arena", "0"]
    with pytest.raises(SessionError):  # nothing listens: the token was read, then used
        run_bot(lambda view: view.legal.default(), argv=argv, exit_on_error=False)
    warning = the_warning(capsys.readouterr().err, path)
    assert warning == [
        f"warning: {path} can be read by other users (mode {mode:04o}): run chmod 600 {path}"
    ]


def test_the_stdio_bridge_warns_of_a_token_file_others_can_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = token_file(tmp_path, 0o644)
    argv = ["--address", free_address(), "--token-file", str(path), "--wait-for-arena", "0"]
    assert bridge_main([*argv, "--", sys.executable, "-c", "pass"]) == 1  # no arena there
    assert len(the_warning(capsys.readouterr().err, path)) == 1


def test_arena_watch_warns_of_a_token_file_others_can_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = token_file(tmp_path, 0o644)
    assert read_spectator_token(path) == TOKEN
    assert the_warning(capsys.readouterr().err, path) == [
        f"warning: {path} can be read by other users (mode 0644): run chmod 600 {path}"
    ]


def test_a_token_file_only_its_owner_reads_gets_no_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = token_file(tmp_path, 0o600)
    assert read_spectator_token(path) == TOKEN
    argv = ["--address", free_address(), "--token-file", str(path), "--wait-for-arena", "0"]
    with pytest.raises(SessionError):
        run_bot(lambda view: view.legal.default(), argv=argv, exit_on_error=False)
    assert "warning" not in capsys.readouterr().err
