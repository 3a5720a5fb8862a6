"""Another local user who can write in a folder the arena writes in plants a link where a file
is to come (a symbolic link, or a hard link to a file the operator owns; table names are
predictable: ``t1.jsonl``): the arena never writes through it (arena/files.py). A file made
new is made with ``O_EXCL`` (a link there fails it, one line); a file written again is written
beside it and renamed over the link; a file appended to or kept open must be a plain file of
the operator's with no other link. Every folder it makes is 0700 and every file 0600, under
umask 000 too. The victim's file keeps its contents and its mode. (The tests run as root, whom
permissions do not stop: what is checked is what the arena wrote, and where.)"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chaodipi.arena.cli.main import main
from chaodipi.arena.files import make_private_folder, open_private, write_private
from chaodipi.records import dump_lines, load_lines
from tests.test_show import _record
from tests.test_tournament import write_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and modes")

RANDOM = "python3 -m chaodipi.sample_bots.random_bot"
MINE = "the operator's own file\n"


@pytest.fixture
def open_umask() -> Iterator[None]:
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the operator's, elsewhere, that a planted link points to."""
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_text(MINE, encoding="utf-8")
    path.chmod(0o644)
    return path


def _untouched(victim: Path) -> None:
    assert victim.read_text(encoding="utf-8") == MINE
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644


def _symlink(path: Path, victim: Path) -> None:
    path.symlink_to(victim)


def _hard_link(path: Path, victim: Path) -> None:
    path.hardlink_to(victim)


PLANTS: dict[str, Callable[[Path, Path], None]] = {"symlink": _symlink, "hard link": _hard_link}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _plain_private(path: Path) -> None:
    status = path.lstat()
    assert stat.S_ISREG(status.st_mode) and status.st_nlink == 1, path
    assert _mode(path) == 0o600, (path, oct(_mode(path)))


def test_every_folder_made_is_its_owners_only_under_umask_000(
    tmp_path: Path, open_umask: None
) -> None:
    kept = tmp_path / "kept"
    kept.mkdir(mode=0o755)
    make_private_folder(kept / "a" / "b")
    assert [_mode(p) for p in (kept / "a", kept / "a" / "b")] == [0o700, 0o700]
    assert _mode(kept) == 0o755  # a folder already there is used as it is
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        make_private_folder(tmp_path / "file" / "a")


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_file_written_again_replaces_the_link_never_its_target(
    tmp_path: Path, victim: Path, open_umask: None, plant: str
) -> None:
    path = tmp_path / "page.html"
    PLANTS[plant](path, victim)
    write_private(path, "<!DOCTYPE html>\n", replace=True)
    _untouched(victim)
    _plain_private(path)
    assert path.read_text(encoding="utf-8") == "<!DOCTYPE html>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "page.html"]  # no litter


def test_a_new_file_is_refused_at_a_planted_link_even_a_dangling_one(tmp_path: Path) -> None:
    target = tmp_path / "would-be-made"
    path = tmp_path / "deal.key"
    path.symlink_to(target)
    with pytest.raises(FileExistsError):
        write_private(path, "s3cret\n")
    assert not target.exists()


@pytest.mark.parametrize("plant", [*sorted(PLANTS), "another user's file"])
def test_a_file_appended_to_must_be_the_operators_own_plain_file(
    tmp_path: Path, victim: Path, plant: str
) -> None:
    path = tmp_path / "a#1.stderr"
    if plant == "another user's file":
        path.write_text("theirs\n")
        os.chown(path, 65534, 65534)
        said = "it is another user's (uid 65534)"
    else:
        PLANTS[plant](path, victim)
        said = "it is a symbolic link" if plant == "symlink" else "it has 1 other hard link(s)"
    with pytest.raises(OSError) as raised:
        open_private(path)
    assert raised.value.filename == str(path) and said in str(raised.value.strerror)
    _untouched(victim)
    with open_private(tmp_path / "b#1.stderr") as new:  # a new file, then appended to again
        new.write(b"one\n")
    with open_private(tmp_path / "b#1.stderr") as again:
        again.write(b"two\n")
    assert (tmp_path / "b#1.stderr").read_bytes() == b"one\ntwo\n"
    _plain_private(tmp_path / "b#1.stderr")


def _serve(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``arena serve`` under umask 000 whose one table no bot joins: void at once, and its
    record written as it ends."""
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "serve", "--plaintext", "--address",
         "127.0.0.1:0", "--connect-timeout", "0.1", "--tickets", str(folder / "t.jsonl"), *extra],
        capture_output=True, text=True, timeout=120, umask=0,
    )  # fmt: skip


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_serve_writes_a_tables_record_never_through_a_planted_link(
    tmp_path: Path, victim: Path, plant: str
) -> None:
    """Its records folder, made under umask 000, is 0700; in a folder that another user can
    write (0777), ``t1.jsonl`` planted as a link to the operator's file is replaced by the
    record: the file it pointed to keeps its contents and its mode."""
    done = _serve(tmp_path)
    assert done.returncode == 1, done.stderr[-3000:]  # void: no bot came
    made = tmp_path / "t.jsonl-records"
    assert _mode(made) == 0o700
    _plain_private(made / "t1.jsonl")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    PLANTS[plant](shared / "t1.jsonl", victim)
    done = _serve(tmp_path, "--records", str(shared))
    assert done.returncode == 1, done.stderr[-3000:]
    _untouched(victim)
    _plain_private(shared / "t1.jsonl")
    header = load_lines((shared / "t1.jsonl").read_text(encoding="utf-8"))[0]
    assert header["type"] == "header" and header["table"] == "t1"


def test_a_runs_database_folder_is_its_owners_only_and_a_planted_database_refused(
    tmp_path: Path, victim: Path
) -> None:
    """``arena run`` under umask 000 makes the database's new folder 0700. A link planted
    where its database, or SQLite's log beside it, is to be is refused in one line, and the
    file it points to is untouched."""

    def run(database: str) -> subprocess.CompletedProcess[str]:
        config = write_config(
            tmp_path / "t.toml", deals=1, database=database, bots={"a": RANDOM, "b": RANDOM}
        )
        return subprocess.run(
            [sys.executable, "-m", "chaodipi.arena", "run", str(config)],
            capture_output=True, text=True, timeout=300, umask=0,
        )  # fmt: skip

    done = run("db/results.sqlite")
    assert done.returncode == 0, done.stderr[-3000:]
    assert _mode(tmp_path / "db") == 0o700
    (tmp_path / "shared").mkdir()
    for name in ("results.sqlite", "results.sqlite-wal"):
        PLANTS["symlink"](tmp_path / "shared" / name, victim)
        done = run("shared/results.sqlite")
        assert done.returncode == 2, done.stderr[-3000:]
        assert done.stderr.count("\n") == 1, done.stderr
        assert str(tmp_path / "shared" / name) in done.stderr, done.stderr
        assert "database" in done.stderr and "it is a symbolic link" in done.stderr, done.stderr
        _untouched(victim)
        (tmp_path / "shared" / name).unlink()


def test_init_show_html_deals_export_and_report_csv_never_write_through_a_link(
    tmp_path: Path, victim: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``arena init DIR`` and ``arena deals export -o FILE`` make new files: a dangling link
    planted there is one line, exit 2, and nothing is made where it points. ``arena show
    --html FILE`` and ``arena report --csv DIR`` write files again: a link there is replaced."""
    starter = tmp_path / "starter"
    starter.mkdir()
    (starter / "my_bot.py").symlink_to(tmp_path / "made-by-the-link.py")
    assert main(["init", str(starter)]) == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and "already there" in said[0], said
    assert not (tmp_path / "made-by-the-link.py").exists()

    deals = tmp_path / "deals.json"
    deals.symlink_to(tmp_path / "made-by-the-link.json")
    assert main(["deals", "export", "-o", str(deals), "-n", "2"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said == [f"arena deals export: {deals} exists: nothing overwritten (choose another -o)"]
    assert not (tmp_path / "made-by-the-link.json").exists()

    record = tmp_path / "game.jsonl"
    record.write_text(dump_lines(_record("classic", seed=2, max_hands=1)), encoding="utf-8")
    page = tmp_path / "game.html"
    page.symlink_to(victim)
    assert main(["show", str(record), "--html", str(page)]) == 0
    _untouched(victim)
    _plain_private(page)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_csv_and_plots_replace_a_planted_link(
    tmp_path: Path, victim: Path, open_umask: None
) -> None:
    from chaodipi.arena.results.database import ResultsDB
    from tests.test_report import game

    database = tmp_path / "r.sqlite"
    db = ResultsDB(database)
    for swapped in (0, 1):
        db.add(game("a", "b", 1, swapped, 1.0))
    db.close()
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "games.csv").symlink_to(victim)
    assert main(["report", str(database), "--csv", str(folder), "--plot", str(tmp_path / "p")]) == 0
    _untouched(victim)
    for path in (*folder.iterdir(), *(tmp_path / "p").iterdir()):
        _plain_private(path)
    assert _mode(tmp_path / "p") == 0o700
    assert (folder / "games.csv").read_text(encoding="utf-8").startswith("id,game,")
