"""``arena run`` with in-process bots (``py:MODULE:NAME``): their games are played in worker
processes, each table beside its bots' ``decide``, and stored as every game is. The same bots
played as processes over the local link (``workers = 0``) play the very same games, move for
move; a ``decide`` that raises is its bot's crash; one that hangs loses its game, and its worker
is replaced, the games waiting for it played by the new one; one that will not stop even so
stops the run; a spec that names nothing callable is one line. Nothing here waits on a timer:
each test waits for the run to end (a hung ``decide`` is one past its seat's clock, real time,
as a process that stops answering is)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from chaodipi.arena.deals import DealKey
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament import workers
from chaodipi.arena.tournament.config import load_config
from chaodipi.arena.tournament.driver import run_tournament
from chaodipi.engine import PRESETS
from chaodipi.records import unpack
from tests.test_tournament import BOT, arena, write_config

RANDOM = "py:chaodipi.sample_bots.rungs:Random"
HEURISTIC = "py:chaodipi.sample_bots.rungs:Heuristic"


def play(folder: Path, key: DealKey, keys: dict[str, Any], bots: dict[str, str]) -> Any:
    """``arena run``'s tournament in this process, dealt from ``key``; what the run did
    (its ``RunResult``)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = load_config(None, {"database": str(folder / "r.sqlite"), **keys}, bots)
    config = replace(config, folder=folder)  # where its bots' modules are
    db = ResultsDB(config.database)
    db.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key.hex(),))
    db.db.commit()
    db.close()
    return anyio.run(run_tournament, config, backend="asyncio")


def moves(database: Path) -> dict[str, list[Any]]:
    """Each stored game's record as the bots played it: every line but the clock's (an action's
    time, the header's date and table name, which no two runs share)."""
    db = ResultsDB(database, read_only=True)
    try:
        games = {}
        for row in db.rows():
            lines = []
            for line in unpack(db.record(row.key) or b""):
                kept = {k: v for k, v in line.items() if k not in ("ms", "date", "table")}
                lines.append(kept)
            games[f"{row.key.bot_a}-{row.key.deal}-{row.key.swapped}"] = lines
        return games
    finally:
        db.close()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_in_process_games_are_the_games_the_same_bots_play_over_the_local_link(
    tmp_path: Path, preset: str
) -> None:
    """The random and heuristic rungs, on one deal of each preset, seats swapped: played in
    workers and played as processes over the local link (``workers = 0``, the SDK's program
    for a callable), from the same deal key, every game's record is the same, action by action
    (its notes, fallbacks and strikes too), and so is every row."""
    key = DealKey.new()
    keys = {"preset": preset, "deals": 1, "hands": 1, "decision_ms": 5000}
    bots = {"random": RANDOM, "heuristic": HEURISTIC}
    here = play(tmp_path / "workers", key, keys, bots)
    linked = play(tmp_path / "link", key, {**keys, "workers": 0}, bots)
    assert (here.played, linked.played, here.processes) == (2, 2, 0) and linked.processes > 0
    assert moves(tmp_path / "workers" / "r.sqlite") == moves(tmp_path / "link" / "r.sqlite")
    rows = [ResultsDB(tmp_path / d / "r.sqlite", read_only=True).rows() for d in ("workers", "link")]
    for one, other in zip(*rows, strict=True):
        assert (one.key, one.score_a, one.hands, one.levels_a, one.levels_b, one.reason) == (
            other.key, other.score_a, other.hands, other.levels_a, other.levels_b, other.reason
        )
    logs = sorted(p.name for p in (tmp_path / "workers" / "r-logs").iterdir())
    assert logs == ["heuristic#w1.stderr", "heuristic#w2.stderr", "random#w1.stderr",
                    "random#w2.stderr"]


CRASHY = """\
import random, sys

print("crashy imported", file=sys.stderr)
print("not to be kept", flush=True)


class Crashy:
    games = 0

    def __init__(self):
        Crashy.games += 1
        self.first = Crashy.games == 1
        self.seen = 0

    def __call__(self, view):
        self.seen += 1
        print("thinking", flush=True)
        if self.first and self.seen == 3:
            raise KeyError("no such card")
        return view.legal.default()
"""


def test_a_decide_that_raises_is_its_bot_s_crash_and_its_team_forfeits(tmp_path: Path) -> None:
    """The first seat each worker makes of the bot raises at its third decision: that game is
    the bot's forfeit, a crash whose reason names what it raised, with the traceback at the end
    of its stderr quoted; its other games are played out. The bot's stderr (its import, the
    traceback) is in its own file, its stdout nowhere."""
    (tmp_path / "crashy.py").write_text(CRASHY, encoding="utf-8")
    config = write_config(
        tmp_path / "t.toml",
        deals=2,
        workers=1,
        bots={"steady": RANDOM, "crashy": "py:crashy:Crashy"},
    )
    done = arena("run", str(config))
    assert done.returncode == 1, done.stderr
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 4 and not any(r.void for r in rows)
    (lost,) = [r for r in rows if r.forfeit == "crashy"]
    assert lost.crashes_b == 1 and lost.score_a == 1.0
    assert lost.reason == "crashy (seat 1) crashed, its decide raised KeyError: 'no such card'"
    assert lost.errors.startswith(
        "crashy (crashy#w1, seat 1, game steady-crashy-d1-a) crashed mid-game, its decide "
        "raised KeyError: 'no such card'; its stderr ends:\n"
    )
    assert "raise KeyError" in lost.errors  # the traceback's end, from its stderr
    assert sum(r.forfeit is None for r in rows) == 3
    stderr = (tmp_path / "results-logs" / "crashy#w1.stderr").read_text()
    assert stderr.startswith("crashy imported\n") and "Traceback" in stderr
    assert "not to be kept" not in stderr and "thinking" not in stderr
    assert (tmp_path / "results-logs" / "steady#w1.stderr").read_text() == ""


HANGS = """\
import os, threading


class Hangs:
    def __init__(self):
        self.seen = 0

    def __call__(self, view):
        self.seen += 1
        if self.seen == 2:
            try:  # the first seat of all to get here hangs
                os.close(os.open("hung", os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                threading.Event().wait()
        return view.legal.default()
"""


def test_a_decide_that_hangs_loses_its_game_and_its_worker_is_replaced(tmp_path: Path) -> None:
    """One ``decide`` never returns (1 s a decision, no bank, 2 strikes): 1.05 s past its
    deadline, when its seat would have struck out, it is stopped; its team forfeits that game,
    the worker ends after sending it, and a new worker plays the game that was waiting for the
    old one (2 games at once, one worker) and the rest: every game is stored, one forfeit."""
    (tmp_path / "hangs.py").write_text(HANGS, encoding="utf-8")
    config = write_config(
        tmp_path / "t.toml",
        deals=2,
        concurrency=2,
        workers=1,
        decision_ms=1000,
        bank_ms=0,
        max_strikes=2,
        bots={"steady": RANDOM, "hangs": "py:hangs:Hangs"},
    )
    done = arena("run", str(config))
    assert done.returncode == 1, done.stderr
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 4 and not any(r.void for r in rows)
    (lost,) = [r for r in rows if r.forfeit is not None]
    assert lost.forfeit == "hangs" and lost.strikes_b == 1 and lost.crashes_b == 0
    assert lost.reason.endswith("timed out: its decide was still running when its strikes "
                                "would have reached 2")
    logs = sorted(p.name for p in (tmp_path / "results-logs").iterdir())
    assert logs == ["hangs#w1.stderr", "hangs#w2.stderr", "steady#w1.stderr", "steady#w2.stderr"]


STUBBORN = """\
class Stubborn:
    def __call__(self, view):
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
"""


def test_a_decide_that_will_not_stop_has_its_worker_killed_and_the_run_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``decide`` that catches the alarm that stops it runs on: once it has run ``STUCK_S``
    past it, its worker is killed and the run stops saying why; the game is not stored
    (``--resume`` plays it)."""
    monkeypatch.setattr(workers, "STUCK_S", 0.5)
    monkeypatch.setattr(workers, "WATCH_S", 0.1)
    (tmp_path / "stubborn.py").write_text(STUBBORN, encoding="utf-8")
    keys = {"deals": 1, "hands": 1, "concurrency": 1, "decision_ms": 1000, "bank_ms": 0,
            "max_strikes": 1}
    ran = play(tmp_path, DealKey.new(), keys, {"a": RANDOM, "b": "py:stubborn:Stubborn"})
    assert ran.stopped is not None and ran.played == 0
    assert "ran on 0.5 s after it was stopped" in ran.stopped
    assert "its worker process was killed" in ran.stopped


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("py:nosuch.module:decide", "bots.b: nosuch.module:decide: no module named nosuch"),
        ("py:json:nothing", "bots.b: json:nothing: the module json has no nothing"),
        ("py:json:__doc__", "bots.b: json:__doc__: json.__doc__ is a str, not callable"),
        ("py:json", "bots.b.command: py:json: not MODULE:NAME"),
        ("py:json:loads --fast", "bots.b.command: an in-process bot is one word"),
    ],
)
def test_a_spec_that_names_nothing_callable_is_one_line(
    tmp_path: Path, command: str, said: str
) -> None:
    """Before any game: the spec's module, its name in it, or that it is not callable, in the
    run's one line, exit code 2."""
    database = str(tmp_path / "r.sqlite")
    done = arena("run", "-b", f"a={RANDOM}", "-b", f"b={command}", "-n", "1", "-d", database)
    assert done.returncode == 2, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("arena run: ")]
    assert said in line


def test_a_pairing_with_a_command_bot_plays_the_callable_as_a_process(tmp_path: Path) -> None:
    """An in-process bot against a command bot: no worker; the callable runs as the SDK's
    program for it (``python3 -m chaodipi.bot.callables``), a process of its pool."""
    config = write_config(tmp_path / "t.toml", deals=1, bots={"mine": RANDOM, "other": BOT})
    done = arena("run", str(config))
    assert done.returncode == 0, done.stderr
    assert len(ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()) == 2
    logs = sorted(p.name for p in (tmp_path / "results-logs").iterdir())
    assert "mine#1.stderr" in logs and not any("#w" in name for name in logs)


def test_run_help_names_in_process_bots_and_whom_they_are_for() -> None:
    done = arena("run", "--help")
    text = " ".join(done.stdout.split())
    assert "py:package.module:decide" in text
    assert "trusted bots only" in text and "shares memory with its table" in text


def test_a_ladder_starts_a_trusted_hosted_callable_as_a_process_of_its_own() -> None:
    """A standing ladder never plays a bot in-process: a hosted ``py:…`` command the operator
    says is trusted is started as the SDK's program for it, a process of its own, as every
    hosted command is."""
    from chaodipi.arena.ladder.config import parse_ladder

    config = parse_ladder(
        {
            "rungs": ["heuristic"],
            "bots": {"mine": {"command": "py:mybots.mine:decide", "trusted": True}},
        },
        Path("/srv/class"),
    )
    (hosted,) = [bot for bot in config.hosted if bot.name == "mine"]
    argv = config.spec("mine@1", hosted.label).argv()
    assert argv[1:] == ("-m", "chaodipi.bot.callables", "mybots.mine:decide")


@pytest.mark.parametrize("trusted", ["", "trusted = false"])
def test_a_ladder_refuses_a_hosted_callable_the_operator_has_not_said_is_trusted(
    tmp_path: Path, trusted: str
) -> None:
    """``arena ladder serve`` of a config whose hosted bot is ``py:…`` without ``trusted =
    true``: one line naming the bot, its command and the key to add; nothing is served."""
    config = tmp_path / "ladder.toml"
    config.write_text(
        f'rungs = ["random"]\n[bots.mine]\ncommand = "py:mybots.mine:decide"\n{trusted}\n',
        encoding="utf-8",
    )
    done = arena("ladder", "serve", str(config), timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"arena ladder serve: {config}: bots.mine.command: py:mybots.mine:decide is a Python "
        "callable, which the ladder plays only for a bot you trust: add trusted = true to "
        "[bots.mine] (it is played as a process of its own; docs/trust.md)"
    )
    assert not (tmp_path / "ladder.sqlite").exists()


def test_a_ladder_s_trusted_key_is_true_or_false() -> None:
    from chaodipi.arena.errors import ConfigError
    from chaodipi.arena.ladder.config import parse_ladder

    bots = {"mine": {"command": "py:mybots.mine:decide", "trusted": "yes"}}
    said = r"^bots\.mine\.trusted: must be true or false, not 'yes'$"
    with pytest.raises(ConfigError, match=said):
        parse_ladder({"bots": bots}, Path("/srv/class"))


def test_arena_serve_takes_no_bot_to_run() -> None:
    """``arena serve`` starts no bot: it has no option naming one, and one given is refused
    in a line (bots connect to its tables by themselves, with their tickets)."""
    assert "--bot" not in arena("serve", "--help").stdout
    done = arena("serve", "--bot", "mine=py:mybots.mine:decide", timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "arena: unrecognized arguments: --bot mine=py:mybots.mine:decide (see arena --help)"
    )
