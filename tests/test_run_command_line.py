"""``arena run`` and ``arena report`` as a tournament user meets them: bots on the command
line and no file, every config key an option, a cutechess-style line after each game and the
standings every K games, a run grown by ``--resume``, the SPRT stored with the run and
reprinted, a failure printed once, tidy CSV, and a ``--help`` that imports nothing heavy."""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chaodipi.arena.cli.main import LAZY_COMMANDS, build_parser, main
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.sprt import SprtTest
from chaodipi.arena.tournament.config import KEYS, TournamentConfig, load_config, schedule
from chaodipi.arena.tournament.processes import STDERR_TAIL, stderr_tail
from chaodipi.arena.tournament.recorder import RunResult
from tests.test_driver import Scripted, played, run
from tests.test_run_growth import config

BOT = f"{sys.executable} -m chaodipi.sample_bots.random_bot"
BROKEN = (
    f"{sys.executable} -c \"import sys; print('a first line', file=sys.stderr); "
    "print('missing weights.bin', file=sys.stderr); sys.exit(3)\""
)
SCORE = re.compile(r"^Score of (\S+) vs (\S+): (\d+) - (\d+) - (\d+)  \[(\d\.\d{3})\] (\d+)$")


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def test_a_tournament_from_one_command_line_with_no_file(tmp_path: Path) -> None:
    """Two bots, 2 deals, the time control, the database and the CSV folder: all options.
    After each game its line and the pairing's running score, the standings after every 2."""
    done = arena(
        "run", "-b", f"a={BOT}", "-b", f"b={BOT}", "-n", "2", "--hands", "1", "-j", "2",
        "--tc", "3000+20000", "-d", "out/t.sqlite", "--report-every", "2", "--csv", "csv",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    db = ResultsDB(tmp_path / "out" / "t.sqlite", read_only=True)
    rows, runs = db.rows(), db.runs()
    assert len(rows) == 4 and len(runs) == 1
    recorded = runs[0].config
    assert (recorded["decision_ms"], recorded["bank_ms"], recorded["deals"]) == (3000, 20000, 2)
    assert [b["name"] for b in recorded["bots"]] == ["a", "b"]
    scores = [m for line in done.stderr.splitlines() if (m := SCORE.match(line))]
    assert [int(m[7]) for m in scores] == [1, 2, 3, 4]
    wins = sum(r.score_a == 1.0 for r in rows)
    losses = sum(r.score_a == 0.0 for r in rows)
    last = scores[-1]
    assert (last[1], last[2], int(last[3]), int(last[4])) == ("a", "b", wins, losses)
    assert int(last[3]) + int(last[4]) + int(last[5]) == 4
    assert float(last[6]) == pytest.approx((wins + int(last[5]) / 2) / 4, abs=5e-4)
    assert done.stderr.count("Finished game ") == 4
    assert "Standings (2 games)" in done.stderr and "Standings (4 games)" in done.stderr
    # the CSV: one tidy file per table
    games = read_csv(tmp_path / "csv" / "games.csv")
    assert len(games) == 4 and {g["swapped"] for g in games} == {"0", "1"}
    assert sorted(float(g["score_a"]) for g in games) == sorted(r.score_a for r in rows)  # type: ignore[type-var]
    standings = read_csv(tmp_path / "csv" / "standings.csv")
    assert [s["rank"] for s in standings] == ["1", "2"]
    assert {s["unbounded"] for s in standings} <= {"0", "1"}
    (pairing,) = read_csv(tmp_path / "csv" / "pairings.csv")
    assert sum(int(pairing[f"ptnml_{i}"]) for i in range(5)) == 2
    for name in ("games", "standings", "pairings"):
        text = (tmp_path / "csv" / f"{name}.csv").read_text(encoding="utf-8")
        assert not re.search(r"\b(True|False|inf|nan)\b", text), name
    # arena report shows the config it was run with
    report = arena("report", str(tmp_path / "out" / "t.sqlite"))
    assert report.returncode == 0, report.stderr
    assert "config of the last run" in report.stdout
    assert "  decision_ms = 3000" in report.stdout and "  bank_ms = 20000" in report.stdout
    assert f"[bots.a] command = {json.dumps(BOT.split())}" in report.stdout


def test_csv_loads_in_pandas_as_it_is(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    play_two(tmp_path)
    assert main(["report", str(tmp_path / "r.sqlite"), "--csv", str(tmp_path / "csv")]) == 0
    games = pandas.read_csv(tmp_path / "csv" / "games.csv")
    assert games["swapped"].dtype.kind == "i" and games["score_a"].dtype.kind == "f"
    assert len(pandas.read_csv(tmp_path / "csv" / "pairings.csv")) == 1


def test_a_run_grows_by_resume(tmp_path: Path) -> None:
    """More deals and another bot: only the new games are played, the stored ones kept; then a
    change of hands is refused, naming the key, in one line."""
    first = arena("run", "-b", f"a={BOT}", "-b", f"b={BOT}", "-n", "1", "--hands", "1",
                  cwd=tmp_path)  # fmt: skip
    assert first.returncode == 0, first.stderr
    database = tmp_path / "results.sqlite"
    before = {r.key: r for r in ResultsDB(database, read_only=True).rows()}
    grown = arena(
        "run", "-b", f"a={BOT}", "-b", f"b={BOT}", "-b", f"c={BOT}", "-n", "2", "--hands", "1",
        "--resume", cwd=tmp_path,
    )  # fmt: skip
    assert grown.returncode == 0, grown.stderr
    assert "10 games played now, 2 already stored" in grown.stderr
    after = {r.key: r for r in ResultsDB(database, read_only=True).rows()}
    assert len(after) == 12 and all(after[key] == row for key, row in before.items())
    refused = arena("run", "-b", f"a={BOT}", "-b", f"b={BOT}", "-b", f"c={BOT}", "-n", "3",
                    "--hands", "2", "--resume", cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "hands: the stored games were played with hands = 1, this run has 2" in refused.stderr


def test_a_failure_is_printed_once_and_its_stderr_quoted_from_a_line_start(
    tmp_path: Path,
) -> None:
    done = arena("run", "-b", f"good={BOT}", "-b", f"broken={BROKEN}", "-n", "1", "--hands", "1",
                 cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1
    everything = (done.stdout + done.stderr).splitlines()
    # each seat whose process exited (one or two per game) is said once, with its stderr
    failures = [line for line in everything if "exited before connecting (exit code 3)" in line]
    assert 2 <= len(failures) == len(set(failures)) <= 4
    assert sum("missing weights.bin" in line for line in everything) == len(failures)
    lines = [line.strip() for line in done.stderr.splitlines()]
    assert lines.count("a first line") == lines.count("missing weights.bin") == len(failures)
    assert all(line.endswith("; its stderr ends:") for line in failures)
    assert done.stderr.splitlines()[-1].startswith("arena run: 0 games played now (and 2 void")
    assert sum(line.startswith("arena run: ") for line in done.stderr.splitlines()) == 2
    report = arena("report", str(tmp_path / "results.sqlite")).stdout.splitlines()
    listed = [line for line in report if "exited before connecting (exit code 3)" in line]
    assert len(listed) == len(failures)  # in the void games, not again as problems
    assert not any("problem:" in line for line in report)
    assert sum(line == "    a first line" for line in report) == len(failures)


def test_a_stderr_tail_starts_at_a_line_start(tmp_path: Path) -> None:
    path = tmp_path / "bot.stderr"
    lines = [f"line {i:04} " + "x" * 30 for i in range(200)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tail = stderr_tail(path).splitlines()
    assert tail[0] in lines and tail[-1] == lines[-1]
    assert len("\n".join(tail)) <= STDERR_TAIL
    path.write_text("y" * (3 * STDERR_TAIL), encoding="utf-8")  # one line, longer than a tail
    assert stderr_tail(path).startswith("…y")


def test_help_imports_nothing_heavy() -> None:
    """``arena --help`` and ``arena run --help`` load neither the server nor the statistics:
    the modules each leaves in sys.modules, read in a fresh interpreter."""
    heavy = {"scipy", "numpy", "trio", "anyio", "grpc", "google", "ray", "matplotlib", "rich",
             "structlog"}  # fmt: skip
    for argv in (["--help"], ["run", "--help"], ["report", "--help"], ["bench", "--help"],
                 ["deals", "export", "--help"]):  # fmt: skip
        code = (
            "import sys, json\n"
            "from chaodipi.arena.cli.main import main\n"
            "try:\n"
            f"    main({argv!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert "usage: arena" in done.stdout, done.stderr
        loaded = set(json.loads(done.stderr.splitlines()[-1]))
        assert not loaded & heavy, (argv, sorted(loaded & heavy))


def test_a_run_loads_the_fitting_statistics_only_when_it_fits() -> None:
    """``arena run``'s modules (the run, its report and the SPRT) leave ``scipy.optimize``
    (0.3 s to load) unloaded until a rating fit or an SPRT bound needs it: a run of two bots
    without an SPRT, and its Elo table, never load it; an SPRT's likelihood ratio does."""
    code = (
        "import sys\n"
        "import chaodipi.arena.cli.run_job, chaodipi.arena.report.stats\n"
        "from chaodipi.arena.report import pentanomial_estimate\n"
        "from chaodipi.arena.results.sprt import pentanomial_llr\n"
        "pentanomial_estimate([3, 4, 6, 5, 2])\n"
        "print('scipy.optimize' in sys.modules)\n"
        "pentanomial_llr([3, 4, 6, 5, 2], 0.0, 5.0)\n"
        "print('scipy.optimize' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "True"], done.stderr

def test_arena_help_lists_each_lazy_command_with_its_modules_help() -> None:
    """``arena --help`` lists a command without importing its module: the line it shows is
    the one the module gives when it is imported."""
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in commands._choices_actions}
    assert {name: helps[name] for name in LAZY_COMMANDS} == {
        name: summary for name, (_, summary) in LAZY_COMMANDS.items()
    }


def test_every_config_key_is_an_option_of_arena_run() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    options = {
        flag: action.dest
        for action in commands.choices["run"]._actions
        for flag in action.option_strings
    }
    for key in KEYS:
        assert options[key.flag] == key.name
        if key.short is not None:
            assert options[key.short] == key.name
    assert {options[f] for f in ("-b", "-t", "-n", "-j", "-d", "-p")} == {
        "bot", "tc", "deals", "concurrency", "database", "preset",
    }  # fmt: skip


def test_options_win_over_the_file_and_add_bots(tmp_path: Path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text(
        'deals = 5\nhands = 3\n[bots.a]\ncommand = "./a"\n[bots.b]\ncommand = "./b"\n',
        encoding="utf-8",
    )
    tournament = load_config(toml, {"deals": 2}, {"b": "./other --x", "c": "./c"})
    assert (tournament.deals, tournament.hands) == (2, 3)
    assert [(b.name, b.command) for b in tournament.bots] == [
        ("a", ("./a",)), ("b", ("./other", "--x")), ("c", ("./c",)),
    ]  # fmt: skip


def given_config(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> tuple[int, TournamentConfig, SprtTest | None]:
    """What ``arena run argv`` would play (the run itself replaced: nothing is played)."""
    from chaodipi.arena.cli import run_job

    seen: list[Any] = []

    def no_play(args: Any, tournament: TournamentConfig, sprt: Any, *rest: Any) -> RunResult:
        seen.append((tournament, sprt))
        return RunResult()

    monkeypatch.setattr(run_job, "_play", no_play)
    code = main(["run", *argv])
    (tournament, sprt), = seen
    return code, tournament, sprt


def test_tc_and_paths_given_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--tc sets both clocks; a path option is relative to the current folder, even with a
    config file elsewhere; without a file, bot commands run in the current folder."""
    folder = tmp_path / "configs"
    folder.mkdir()
    toml = folder / "t.toml"
    toml.write_text('[bots.a]\ncommand = "./a"\n[bots.b]\ncommand = "./b"\n', encoding="utf-8")
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    _, tournament, _ = given_config(monkeypatch, [str(toml), "--tc", "500+1000", "-d", "x.sqlite"])
    assert (tournament.decision_ms, tournament.bank_ms) == (500, 1000)
    assert tournament.database == here / "x.sqlite" and tournament.folder == folder
    _, tournament, _ = given_config(monkeypatch, ["-b", "a=./a", "-b", "b=./b", "-t", "200"])
    assert (tournament.decision_ms, tournament.bank_ms) == (200, 30_000)
    assert tournament.folder.resolve() == here and tournament.database.resolve() == here / "results.sqlite"


def play_two(tmp_path: Path, **options: Any) -> TournamentConfig:
    """A stored two-bot run (scripted: bot_a wins every game) of 30 deals."""
    tournament = config(tmp_path, deals=30)
    run(tournament, Scripted([played(key) for key in schedule(tournament)]), **options)
    return tournament


def test_the_sprt_is_stored_with_the_run_and_reprinted_by_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    tournament = play_two(tmp_path, sprt_test=SprtTest(0, 100, 0.05, 0.05))
    database = str(tournament.database)
    assert ResultsDB(tournament.database, read_only=True).count() < 60  # the SPRT stopped it
    assert main(["report", database]) == 0
    out = capsys.readouterr().out
    assert "SPRT: H1 accepted (elo0 0, elo1 100, α 0.05, β 0.05)" in out
    assert main(["report", database, "--sprt=-200,-100,0.05,0.05", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["sprt"]["elo0"], document["sprt"]["elo1"]) == (-200, -100)
    assert document["config"]["deals"] == 30
    # a resume without --sprt goes on with the stored one
    argv = ["-b", "good=./good", "-b", "broken=./broken --fast", "--hands", "1", "-n", "31",
            "-d", database, "--resume"]  # fmt: skip
    _, _, sprt = given_config(monkeypatch, argv)
    assert sprt == SprtTest(0, 100, 0.05, 0.05)
    assert "the stored run's SPRT goes on" in capsys.readouterr().err


def test_a_resume_from_the_database_alone_plays_the_config_its_last_run_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """``arena run -d DB --resume`` with neither a config file nor --bot: the stored config's
    bots, keys, folder (where the commands run) and paths, from any folder, the command line's
    keys winning; what the database cannot give back, or no database, is one line, exit 2."""
    tournament = config(
        tmp_path, {"a": "./a", "b": "./b --fast"}, hands=2, replays="records",
        deals_file="standard", connect_timeout=3,
    )  # fmt: skip
    run(tournament, Scripted([played(key) for key in schedule(tournament)]))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, resumed, _ = given_config(
        monkeypatch, ["-d", str(tournament.database), "--resume", "-n", "3", "-j", "2"]
    )
    assert code == 0
    assert resumed.bots == tournament.bots and resumed.folder == tmp_path
    assert (resumed.hands, resumed.connect_timeout, resumed.deals, resumed.concurrency) == (
        2, 3.0, 3, 2
    )  # fmt: skip
    assert resumed.database == tournament.database and resumed.replays == tmp_path / "records"
    assert resumed.deal_set == tournament.deal_set
    said = capsys.readouterr().err  # the commands it will start came from the file: said first
    assert f"resuming the config stored in {tournament.database}: a = ./a, b = ./b --fast" in said

    (tmp_path / "v").mkdir()
    visitor = config(tmp_path / "v", {"a": "./a", "visitor": {"token": "a-secret-token"}})
    run(visitor, Scripted([played(key) for key in schedule(visitor)]))
    for database, says in (
        (visitor.database, "bots.visitor: an external bot's token is never stored"),
        (tmp_path / "none.sqlite", "there is no results database"),
    ):
        assert main(["run", "-d", str(database), "--resume"]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("arena run: ") and says in line, line


def test_report_sprt_needs_two_bots(tmp_path: Path, capsys: Any) -> None:
    tournament = config(tmp_path, {"a": "./a", "b": "./b", "c": "./c"})
    run(tournament, Scripted([played(key) for key in schedule(tournament)]))
    code = main(["report", str(tournament.database), "--sprt", "0,50,0.05,0.05"])
    assert code == 2
    assert "--sprt compares exactly two bots" in capsys.readouterr().err
