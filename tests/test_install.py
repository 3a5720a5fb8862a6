"""A bot author's install is the engine, the contract and the SDK: the server's and the
tournaments' dependencies are the ``arena`` extra, the SDK imports and plays without them, the
``arena`` command without them says which extra to install, and neither the server nor the
contract imports the SDK."""

from __future__ import annotations

import ast
import doctest
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import chaodipi.arena.extra
from chaodipi.arena.extra import INSTALL_HINT, MODULES

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

BLOCKER = """
import sys


class Blocker:
    '''Refuses the modules named on the command line, as if they were not installed.'''

    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None


sys.meta_path.insert(0, Blocker(set(sys.argv[1].split(","))))
"""

SERVER_ONLY = [*MODULES.values(), "arena"]
"""What a bot's install lacks: the extra's modules, and the server itself."""

PLAY_A_HAND = """
from chaodipi.arena.v2 import convert
from chaodipi.bot import MatchResult, run_bot
from chaodipi.bot.seat import Seat
from chaodipi.engine.match import Ending, Match
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.view import observe
from chaodipi.sample_bots.heuristic_bot import decide

# one hand, every seat played by the SDK's Seat on the messages a table would send it
match = Match(PRESETS["classic"], seed=7, max_hands=1)
seats = [Seat(decide, 0.0, None) for _ in range(4)]
sent = [0, 0, 0, 0]
for number, seat in enumerate(seats):
    view = observe(match, number)
    assert seat.read(convert.snapshot(view)) is None
    sent[number] = view.cursor  # the snapshot has what came before
decisions = 0
while not match.over:
    number = match.to_play
    legal = match.legal_actions(number)
    news = [convert.event_message(e) for e in match.events_since(sent[number], number)]
    sent[number] = match.log.cursor
    decisions += 1
    frame = convert.decision(
        decisions,
        events=news,
        legal=convert.legal_message(legal),
        deadline_s=60,
        bank_s=0,
        strikes=0,
        cursor=match.log.cursor,
    )
    answer = seats[number].read(frame)
    match.apply(number, convert.action_from_message(answer.answer.action))
progress = tuple(match.progress)
end = convert.MatchEnd(Ending.PLAYED_OUT, "played", match.winner, 1, progress, None, match.reward)
for number, seat in enumerate(seats):
    news = [convert.event_message(e) for e in match.events_since(sent[number], number)]
    result = seat.read(convert.match_over(end, news))
    assert isinstance(result, MatchResult) and result.view == observe(match, number), number
blocked = sorted(set(sys.argv[1].split(",")) & {m.partition(".")[0] for m in sys.modules})
print(decisions, "decisions;", "loaded of the blocked:", blocked)
"""


def _without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where ``modules`` cannot be imported."""
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code, ",".join(modules)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def _distribution(requirement: str) -> str:
    """``"trio>=0.30,<0.40"`` -> ``"trio"``."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match is not None, requirement
    return match.group(0).lower()


def test_the_base_install_lists_none_of_the_servers_dependencies() -> None:
    base = {_distribution(r) for r in PYPROJECT["dependencies"]}
    assert base == {"grpcio", "protobuf"}
    assert not base & set(MODULES)


def test_the_arena_extra_is_what_arena_extra_names_and_tests_and_ray_pull_it_in() -> None:
    extras = PYPROJECT["optional-dependencies"]
    assert {_distribution(r) for r in extras["arena"]} == set(MODULES)
    assert "chaodipi-arena[arena]" in extras["test"]
    assert "chaodipi-arena[arena]" in extras["ray"]


def test_the_sdk_plays_without_the_server_or_its_dependencies() -> None:
    """In an interpreter that cannot import trio, scipy, rich, matplotlib, structlog, grpc's
    reflection and health services or ``arena`` at all: the SDK and a sample bot import, and
    four SDK seats play a whole hand on the messages the contract's conversion builds."""
    done = _without(SERVER_ONLY, "import sys\n" + PLAY_A_HAND)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("decisions; loaded of the blocked: []\n"), done.stdout
    assert int(done.stdout.split()[0]) > 20


def test_the_arena_command_without_the_extra_says_which_extra_to_install() -> None:
    code = "from chaodipi.arena.cli.main import main\nraise SystemExit(main(['presets']))"
    done = _without(list(MODULES.values()), code)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(
        "arena: grpcio-reflection, grpcio-health-checking, anyio, structlog, rich, scipy, "
        "matplotlib not installed: "
    )
    assert lines[0].endswith(INSTALL_HINT)
    assert "pip install -e '.[arena]'" in lines[0]


def _imported(path: Path) -> set[str]:
    """The top-level packages ``path`` imports, wherever in the file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.partition(".")[0])
    return names


def test_the_server_and_the_contract_import_nothing_of_the_sdk() -> None:
    """arena/ imports no SDK code, and the contract (proto/chaodipi) neither the SDK nor the
    server: the SDK depends on the contract, never the other way round."""
    found = []
    for folder, refused in (("arena", {"chaodipi.bot"}), ("proto", {"chaodipi.bot", "arena"})):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" not in path.parts and _imported(path) & refused:
                found.append(str(path.relative_to(ROOT)))
    assert found == []


def test_the_extra_modules_examples_hold() -> None:
    failed, attempted = doctest.testmod(chaodipi.arena.extra)
    assert (failed, attempted > 0) == (0, True)
