"""docs/rules.md cites a test for every rule: each cited test must exist. No tracked file points
outside the repository: the rule texts are cited by name, the facts the docs use are in docs/."""

from __future__ import annotations

import ast
import re
import subprocess
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
