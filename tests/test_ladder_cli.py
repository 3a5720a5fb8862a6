"""``arena ladder`` as its operator meets it: each bad config, missing database, absent ladder or
second writer is one line on stderr with its exit code; ``status`` and ``export`` read a ladder's
database whether or not it runs, and what ``export`` writes opens in a spreadsheet without
running anything a bot's name held."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from chaodipi.arena.cli.main import main
from chaodipi.arena.ladder import BotKind, PairKind, PairState, Store, VersionState
from chaodipi.arena.results import GameKey, GameRow


def _config(folder: Path, extra: str = "") -> Path:
    path = folder / "ladder.toml"
    path.write_text(
        f'name = "cli"\naddress = "127.0.0.1:0"\nweb = ""\nstorage = "ladder.sqlite"\n{extra}',
        encoding="utf-8",
    )
    return path


def _run(capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, str, str]:
    code = main(["ladder", *words])
    out, err = capsys.readouterr()
    return code, out, err


def _filled(folder: Path) -> None:
    """A ladder's database with a rated pair between a rung and a bot named like a formula."""
    store = Store.open(f"sqlite:///{folder / 'ladder.sqlite'}")
    rung = store.add_bot("heuristic", BotKind.RUNG, at=0.0, command="python3 -m h")
    sly = store.add_bot("+HYPERLINK", BotKind.RESIDENT, at=0.0, token_digest="d" * 64)
    a = store.version_of(sly, "v1", at=1.0)
    store.set_version_state(a.id, VersionState.ACTIVE)
    b = store.version_of(rung, "python3 -m h", at=1.0, pinned_elo=0.0)
    pair = store.start_pair(PairKind.RATED, a.id, b.id, at=2.0)
    rows = [
        GameRow(
            GameKey(a.name, b.name, pair.id, s),
            1.0,
            1,
            1,
            0,
            1,
            80,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            None,
            "played out",
            "",
            2.0,
        )
        for s in (False, True)
    ]
    store.finish_pair(pair, [(r, None) for r in rows], at=3.0, state=PairState.DONE, score_a=1.0)
    store.close()


def test_a_config_with_an_unknown_key_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, "tables = 3\n")
    code, _, err = _run(capsys, "serve", str(config))
    assert code == 2
    assert err.count("\n") == 1 and "tables: unknown key" in err


def test_status_without_a_database_and_add_without_a_ladder_say_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    code, _, err = _run(capsys, "status", str(config))
    assert (code, err.count("\n")) == (2, 1) and "no ladder database at" in err
    code, _, err = _run(capsys, "add", str(config), "alice")
    assert (code, err.count("\n")) == (2, 1) and "no operator token at" in err
    (tmp_path / "ladder-operator.token").write_text("t" * 40)
    code, _, err = _run(capsys, "add", str(config), "alice")
    assert (code, err.count("\n")) == (1, 1) and "is it running?" in err
    code, _, err = _run(capsys, "add", str(config), "../alice")
    assert code == 2 and "letters, digits" in err


def test_status_and_export_read_a_ladder_that_is_not_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    _filled(tmp_path)
    code, out, _ = _run(capsys, "status", str(config), "--json")
    assert code == 0
    document = json.loads(out)
    assert document["running"] is False and document["pairs"] == 1
    assert {s["version"] for s in document["standings"]} == {"+HYPERLINK@1", "heuristic@1"}
    code, out, _ = _run(capsys, "status", str(config))
    assert code == 0 and "the ladder is not running" in out
    code, _, _ = _run(
        capsys,
        "export",
        str(config),
        "--csv",
        str(tmp_path / "out"),
        "--json",
        str(tmp_path / "all.json"),
    )
    assert code == 0
    with open(tmp_path / "out" / "ratings.csv", newline="", encoding="utf-8") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    assert "'+HYPERLINK@1" in cells and "+HYPERLINK@1" not in cells  # never a formula
    exported = json.loads((tmp_path / "all.json").read_text())
    assert [p["score_a"] for p in exported["pairs"]] == [1.0]
    assert (tmp_path / "all.json").stat().st_mode & 0o077 == 0


def test_a_second_ladder_on_one_database_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path)
    first = subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", "ladder", "serve", str(config)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stderr is not None
        for line in first.stderr:  # its log lines, then the one that says it serves
            if "resident bots connect to" in line:
                break
        second = subprocess.run(
            [sys.executable, "-m", "chaodipi.arena", "ladder", "serve", str(config)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 2
        assert "in use by another ladder" in second.stderr and second.stderr.count("\n") == 1
        status = subprocess.run(
            [sys.executable, "-m", "chaodipi.arena", "ladder", "status", str(config), "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert json.loads(status.stdout)["running"] is True
    finally:
        first.terminate()
        assert first.wait(timeout=60) == 0
        first.stderr.close()  # type: ignore[union-attr]
