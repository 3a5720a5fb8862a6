"""A bot author's install is the engine, the contract and the SDK: the server's and the
tournaments' dependencies are the ``arena`` extra, the SDK imports and plays without them, the
``arena`` command without them says which extra to install, and neither the server nor the
contract imports the SDK."""

from __future__ import annotations

import ast
import doctest
import email.parser
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import chaodipi.arena.extra
from chaodipi.arena.cli.init import STARTER, starter_text
from chaodipi.arena.extra import INSTALL_HINT, MODULES
from chaodipi.engine.presets import PRESETS

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
from chaodipi.search import heuristic_move as decide

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
outcome = match.outcome()
assert outcome is not None and outcome.ending is Ending.PLAYED_OUT
for number, seat in enumerate(seats):
    news = [convert.event_message(e) for e in match.events_since(sent[number], number)]
    result = seat.read(convert.match_over(outcome, news))
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
    assert base == {"grpcio", "protobuf", "lazy_loader"}  # lazy_loader: the arena faces (pyproject)
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


RECORD_A_HAND = """
import random, sys
from chaodipi.engine import PRESETS, Match
from chaodipi.records import (
    dump_lines, load_lines, pack, record_lines, render_html, replay_record, transcript, unpack
)

match, rng = Match(PRESETS["classic"], seed=7, max_hands=1), random.Random(7)
while not match.over:
    match.apply(match.to_play, match.legal_actions().sample(rng))
lines = load_lines(dump_lines(record_lines(match)))
assert replay_record(unpack(pack(lines))).records == match.records
assert render_html(lines).startswith("<!DOCTYPE html>")
print(len(transcript(lines)) > 10, end="; ")
blocked = sorted(set(sys.argv[1].split(",")) & {m.partition(".")[0] for m in sys.modules})
print("loaded of the blocked:", blocked)
"""


def test_the_records_package_works_without_the_arena_extra() -> None:
    """chaodipi.records is in the base install: without the arena extra (or ``arena``) a
    match's record is made, packed, read back, re-played, told and drawn as HTML."""
    done = _without(SERVER_ONLY, RECORD_A_HAND)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True; loaded of the blocked: []\n", done.stdout


def test_the_arena_command_without_the_extra_says_which_extra_to_install() -> None:
    code = "from chaodipi.arena.cli.main import main\nraise SystemExit(main(['presets']))"
    done = _without(list(MODULES.values()), code)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(
        "arena: grpcio-reflection, grpcio-health-checking, anyio, structlog, rich, scipy, "
        "matplotlib, jsonschema not installed: "
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


# -- what a pip install gets: the licence, the type markers, the starter of `arena init` -------


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    """PEP 639: ``license`` is an SPDX expression (the table form is deprecated), the file it
    names is shipped, and no licence classifier contradicts it (setuptools refuses both)."""
    assert PYPROJECT["license"] == "MIT"
    assert PYPROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert not [c for c in PYPROJECT["classifiers"] if c.startswith("License ::")]
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert build["requires"] == ["setuptools>=77"]  # the first to read an SPDX `license`


def test_the_wheel_has_the_license_the_type_markers_and_the_starter(tmp_path: Path) -> None:
    """The wheel pip would install: the licence file and its SPDX expression in the metadata,
    ``py.typed`` for the namespace and each typed package (PEP 561), and the files of ``arena
    init``."""
    source = tmp_path / "clone"  # the tracked files, as a clone has them: no build/ left over
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in listed.stdout.decode("utf-8").split("\0"):
        if name and (ROOT / name).is_symlink():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).symlink_to((ROOT / name).readlink())
        elif name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    done = subprocess.run(
        [*pip_wheel, "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("chaodipi_arena-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        headers = email.parser.Parser().parsestr(archive.read(metadata).decode("utf-8"))
    for package in ("", "engine/", "records/", "bot/", "arena/", "rl/"):
        assert f"chaodipi/{package}py.typed" in names, package
    for name in STARTER:
        assert f"chaodipi/sample_bots/starter/{name}" in names, name
    assert "chaodipi/records/record.schema.json" in names  # the game record's (record_schema())
    assert "chaodipi/sample_bots/models/dmc-classic.npz" in names  # the dmc rung's model
    from chaodipi.records.viewer.page import SCRIPTS

    for asset in ("page.html", "viewer.css", *SCRIPTS):  # the viewer's (arena show --html)
        assert f"chaodipi/records/viewer/{asset}" in names, asset
    web = ROOT / "arena" / "ladder" / "web"  # the ladder's pages: templates, style, script
    assets = [p for p in web.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert len(assets) >= 8
    for asset in assets:
        assert f"chaodipi/arena/ladder/web/{asset.relative_to(web)}" in names, asset
    for preset in PRESETS:  # the standard deal sets (arena run --deals-file standard)
        assert f"chaodipi/arena/tournament/standard_deals/{preset}.json.gz" in names, preset
    assert "chaodipi/arena/tournament/deal-set.schema.json" in names  # deal_set_schema()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), sorted(names)
    assert headers["License-Expression"] == "MIT"
    assert "Typing :: Typed" in headers.get_all("Classifier", [])


def test_arena_init_writes_a_starter_that_plays_as_it_is(tmp_path: Path) -> None:
    """``arena init DIR`` then the README's kind of command, from another folder: the starter
    bot plays the sample bots and the games are stored beside the config."""
    folder = tmp_path / "my tournament"  # a space: paths are never split
    init = _arena("init", str(folder), cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(STARTER)
    assert f"arena run '{folder / 'arena.toml'}'\n" in init.stdout  # to paste as it is
    done = _arena("run", str(folder / "arena.toml"), "--deals", "1", cwd=ROOT / "docs")
    assert done.returncode == 0, done.stderr
    assert "Standings (6 games)" in done.stdout and "│ my_bot " in done.stdout
    assert "vs random" in done.stdout and "vs heuristic" in done.stdout  # its pairings
    assert "forfeit" not in done.stderr and "not legal" not in done.stderr
    assert (folder / "results" / "arena.sqlite").is_file()


def test_arena_init_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text("mine", encoding="utf-8")
    done = _arena("init", str(tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"arena init: {tmp_path / 'my_bot.py'} already there: nothing written (use another DIR)\n"
    )
    assert (tmp_path / "my_bot.py").read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / "arena.toml").exists()
    done = _arena("init", str(tmp_path / "my_bot.py"), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "is a file, not a folder" in done.stderr


def test_the_starter_bot_is_the_documented_example() -> None:
    """docs/writing-a-bot.md walks through examples/highest_card_bot.py: the starter bot is that
    code under a comment that says what to change."""
    example = (ROOT / "examples" / "highest_card_bot.py").read_text(encoding="utf-8")
    starter = starter_text("my_bot.py")
    assert starter.endswith(example)
    header = starter.removesuffix(example).splitlines()
    assert header and all(line.startswith("# ") for line in header)


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
