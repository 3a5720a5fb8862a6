"""docs/rules.md cites a test for every rule: each cited test must exist. No tracked file points
outside the repository: the rule texts are cited by name, the facts the docs use are in docs/."""

from __future__ import annotations

import ast
import doctest
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def test_every_test_cited_in_rules_md_exists() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    cited = re.findall(r"`(?:tests/)?(test_\w+\.py)::(test_\w+)`", text)
    # "same test" / "::test_x" shorthands refer to the file named just before them
    shorthand = re.findall(r"`(test_\w+\.py)::(test_\w+)`((?:, `::test_\w+`)+)", text)
    for file, _first, rest in shorthand:
        cited += [(file, name) for name in re.findall(r"`::(test_\w+)`", rest)]
    assert len(cited) > 40
    missing = [
        f"{file}::{name}" for file, name in cited if name not in _test_names(ROOT / "tests" / file)
    ]
    assert missing == []


OUTSIDE = re.compile(r"\.\./shared\b|/work/")
"""The workplace's shared folder (rule texts, notes) and its machines' paths: not in a clone."""
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
RELATIVE_PATH = re.compile(r"`(\.\./[^`\s]*)`")


def _tracked() -> list[Path]:
    """The repository's tracked files (not the folders its symbolic links name)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    paths = [ROOT / name for name in listed.split("\0") if name]
    return [
        p for p in paths if p.is_file() and not p.is_symlink() and "node_modules" not in p.parts
    ]


def test_no_tracked_file_points_outside_the_repository() -> None:
    found = []
    for path in _tracked():
        if path == Path(__file__).resolve():
            continue  # names them to look for them
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_every_relative_link_of_the_docs_is_inside_the_repository() -> None:
    """A Markdown link or a backticked ``../`` path resolves to a file or folder of the clone."""
    documents = [p for p in _tracked() if p.suffix == ".md"]
    assert {"README.md", "rules.md", "architecture.md"} <= {p.name for p in documents}
    bad = []
    for path in documents:
        text = path.read_text(encoding="utf-8")
        targets = MARKDOWN_LINK.findall(text) + RELATIVE_PATH.findall(text)
        for target in targets:
            if re.match(r"[a-z]+:|#", target):
                continue  # a URL or an anchor
            resolved = (path.parent / target.partition("#")[0]).resolve()
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                bad.append(f"{path.relative_to(ROOT)}: {target}")
    assert bad == []


def test_the_readmes_test_command_shows_why_tests_skipped_and_ci_runs_it() -> None:
    """A test that skips says why (its install command, say): pytest prints that with ``-rs``,
    in the README's command and in every pytest run of .ci/run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [line for line in readme.splitlines() if "# the tests" in line]
    command = line.partition("&&")[2].partition("#")[0].strip()
    assert command.split()[:3] == ["python3", "-m", "pytest"] and "-rs" in command.split()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    runs = [step.partition("#")[0].split() for step in ci if " -m pytest" in step]
    assert len(runs) >= 2 and all("-rs" in run for run in runs), runs
    assert any(step.startswith(command + " ") or step == command for step in ci)


def test_each_set_the_default_run_leaves_out_has_its_step_in_ci_and_its_command_in_the_readme() -> None:
    """pytest's addopts leave out the tests of some markers (``-m 'not ray and not slow'``): each
    is registered with what it is, .ci/run runs it in a step of its own (``-m slow``), and the
    README gives that command, so no test is run by nobody."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = options["tool"]["pytest"]["ini_options"]
    words = shlex.split(ini["addopts"])
    expression = words[words.index("-m") + 1]
    left_out = re.fullmatch(r"not (\w+)((?: and not \w+)*)", expression)
    assert left_out is not None, expression
    markers = [left_out[1], *re.findall(r"not (\w+)", left_out[2])]
    assert {"ray", "slow"} <= set(markers), markers
    registered = {line.partition(":")[0]: line.partition(":")[2] for line in ini["markers"]}
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    steps = [step.partition("#")[0].split() for step in ci if " -m pytest" in step]
    for marker in markers:
        assert f"pytest -m {marker}" in registered[marker], registered  # says how to run it
        assert any(step[-2:] == ["-m", marker] for step in steps), (marker, steps)
        assert f"`python3 -m pytest -rs -m {marker}`" in readme, marker


RUNG_LISTS = {
    "README.md": re.compile(r"each rung of the reference ladder \(([^)]*)\)"),
    "docs/deal-sets.md": re.compile(r"`arena/tournament/rungs\.py` \(one line each, weakest first:([^)]*)\)"),
}
"""Where the docs list the reference ladder's rungs: the README's Commands table (`arena
bench`'s row) and docs/deal-sets.md."""


def test_the_docs_list_the_rungs_arena_bench_plays() -> None:
    """The README and docs/deal-sets.md listed a Monte-Carlo rung that `arena bench` does not
    play: each list of rungs is the names of rungs.py's table, in its order."""
    from chaodipi.arena.tournament.rungs import RUNGS

    for name, pattern in RUNG_LISTS.items():
        text = " ".join((ROOT / name).read_text(encoding="utf-8").split())
        (listed,) = pattern.findall(text)
        assert [word.strip() for word in listed.split(",")] == [r.name for r in RUNGS], name


THE_COMMANDS = (
    "python3 -m pip install -e '.[test]' && python3 -m chaodipi.arena run examples/sample_bots.toml"
    " --resume",
    "python3 -m pip install -e '.[test]' && python3 -m pytest -rs",
    "python3 -m pip install -e '.[ladder]' && python3 -m chaodipi.arena ladder serve "
    "examples/ladder.toml",
)
"""The main job, the tests, and a standing ladder."""


def test_the_readme_opens_with_its_three_commands() -> None:
    """The README's first block, right under its title and a few lines of what it is, holds
    the main job, the tests and a standing ladder, each exactly as a newcomer pastes it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head, fence, rest = readme.partition("```sh\n")
    assert fence and len(head.splitlines()) <= 8, "the commands are not at the top"
    block = rest.partition("```")[0].splitlines()
    commands = [line.partition("#")[0].strip() for line in block]
    assert commands == list(THE_COMMANDS)


BENCH_COMMAND = re.compile(r"`python3 (?:benchmarks/\w+\.py|-m chaodipi\.arena \w+)[^`]*`")


def _table_rows(text: str) -> list[str]:
    """Every body row of every Markdown table (each header and its rule left out)."""
    lines = text.splitlines()
    rule = re.compile(r"\|[\s|:-]+\|")
    return [
        line
        for number, line in enumerate(lines)
        if line.startswith("|")
        and not rule.fullmatch(line)
        and not (number + 1 < len(lines) and rule.fullmatch(lines[number + 1]))
    ]


def test_every_figure_of_the_performance_page_names_the_command_that_measures_it() -> None:
    """docs/performance.md: each row of its tables is a figure and the command that gives it
    (a ``python3 benchmarks/…`` script or an ``arena`` command), copyable as it stands."""
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    rows = _table_rows(text)
    assert len(rows) >= 10
    assert [row for row in rows if not BENCH_COMMAND.search(row)] == []
    for script in re.findall(r"python3 (benchmarks/\w+\.py)", text):
        assert (ROOT / script).is_file(), script


HISTORY = re.compile(
    r"\bissue \d+|\bused to\b|\bthe former design\b|\bno longer\b|\bprototype\b"
    r"|\bbefore (?:this (?:fix|change|branch|design)|the port|sessions|issue)\b|\bNow the\b",
    re.IGNORECASE,
)


def test_the_docs_say_what_is_not_how_it_came_to_be() -> None:
    """README.md and docs/*.md describe the design as it is; its history is in git and
    CHANGELOG.md (which says what changed for bot authors, version by version)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if match := HISTORY.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group()}")
    assert found == []


def test_the_changelog_keeps_a_changelog_and_names_the_protocol() -> None:
    """CHANGELOG.md: Unreleased first, then each version, the package's (pyproject.toml)
    among them, each naming the protocol version its contract speaks."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert versions[0] == "Unreleased"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (version,) = re.findall(r'^version = "([^"]+)"', pyproject, re.MULTILINE)
    assert version in versions
    convert = (ROOT / "proto" / "chaodipi" / "arena" / "v2" / "convert.py").read_text("utf-8")
    (protocol,) = re.findall(r"^PROTOCOL_VERSION = (\d+)", convert, re.MULTILINE)
    assert f"protocol {protocol}" in text
    for term in ("FAILED_PRECONDITION", "Answer.fallback", "RESOURCE_EXHAUSTED"):
        assert term in text, term


def test_the_glossary_gives_each_thing_one_word() -> None:
    """docs/architecture.md's glossary: each term once, with its meaning, its code names and
    the words not to use for it; it settles the words a newcomer found used for two things."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.partition("\n## Glossary\n")[2].partition("\n## ")[0]
    rows = [row.split("|")[1:-1] for row in _table_rows(section)]
    assert len(rows) >= 10 and all(len(cells) == 4 for cells in rows)
    terms = [re.findall(r"\*\*([^*]+)\*\*", cells[0]) for cells in rows]
    flat = [term for names in terms for term in names]
    assert len(flat) == len(set(flat))
    for names, cells in zip(terms, rows, strict=True):
        avoided = {w.strip() for w in re.sub(r"\([^)]*\)", "", cells[3]).split(",")}
        assert not set(names) & avoided, names
    assert {"game", "hand", "holding", "deal", "packet", "decision", "turn", "seat"} <= set(flat)
    assert {"instance", "progress", "5-10-K", "reward"} <= set(flat)
    for confused in ("`Match`", "`TableResult`", "levels_a", "ftk", "won by"):
        assert confused in section, confused


def test_the_architecture_page_names_every_module() -> None:
    """docs/architecture.md's tables name every module of the project's packages (its file
    name), so a new engineer finds each one there."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [
        str(path.relative_to(ROOT))
        for folder in ("engine", "records", "review", "search", "arena", "bot", "rl", "sample_bots")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "node_modules" not in path.parts
        and path.name != "__init__.py"
        and not path.name.endswith(("_pb2.py", "_pb2_grpc.py"))
        and path.name not in text
    ]
    assert unnamed == []


def test_the_engine_helpers_writing_a_bot_md_shows_run_as_shown() -> None:
    """docs/writing-a-bot.md, "The engine's helpers": every helper its table names is a
    public name of chaodipi.engine, or a method of one (a bot author needs no engine module),
    and its example runs as printed (a doctest of the page)."""
    import chaodipi.engine as engine

    path = ROOT / "docs" / "writing-a-bot.md"
    text = path.read_text(encoding="utf-8")
    section = text.partition("\n### The engine's helpers\n")[2].partition("\n## ")[0]
    table = "\n".join(_table_rows(section))
    helpers = [
        "parse_cards", "format_cards", "points_of", "partner", "opponents", "team_of",
        "same_team", "next_seat", "Trump", "TRUMP", "count_cards", "decompose", "beats_unit",
        "infer", "Trick", "lead_options", "follow_options", "DealSampler", "CardPlay",
        "score_hand", "kitty_multiplier", "levels_for",
    ]  # fmt: skip
    methods = {
        "Trump": ["sort"], "Trick": ["would_win", "points"], "Knowledge": ["trick"],
        "CardPlay": ["legal_plays", "push"], "DealSampler": ["card_play"],
    }  # fmt: skip
    assert [name for name in helpers if f"`{name}" not in table] == []
    assert [name for name in helpers if name not in engine.__all__] == []
    for owner, names in methods.items():
        assert all(hasattr(getattr(engine, owner), name) for name in names), owner
    result = doctest.testfile(str(path), module_relative=False, report=False)
    assert result.attempted >= 8 and result.failed == 0, result
