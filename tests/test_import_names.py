"""The code a user copies, and the suite, import the installed names only (``chaodipi.…``).

The packages' folders sit at the repository's top level (``engine/``, ``arena/``, …;
``src/chaodipi`` links them), so from a clone ``import engine`` may work where an installed
user's fails, and it would load a second copy of the package beside ``chaodipi.engine``, with
classes of its own. pytest's ``pythonpath`` lists ``src`` alone for that reason. Every import
of the tests, the packages (their doctests included), the examples, and the Python code
blocks and ``>>>`` lines of the README and the docs names ``chaodipi.…``."""

from __future__ import annotations

import ast
import doctest
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TOP_LEVEL = frozenset({"engine", "arena", "bot", "rl", "search", "sample_bots"})
"""The folders at the repository's top level that are importable only from a clone."""

SOURCES = ("tests", "engine", "arena", "bot", "rl", "search", "sample_bots", "examples")
"""The folders whose Python files (and their doctests) are read."""

CODE_BLOCK = re.compile(r"```(?:python|py|pycon)\n(.*?)```", re.DOTALL)


def _imported(source: str) -> Iterator[str]:
    """The top-level module names ``source`` imports (absolute imports only)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return  # not Python on its own (a doctest's continuation, a shell line)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0]


def _doctests(text: str) -> Iterator[str]:
    """The source of each ``>>>`` example in ``text``."""
    for example in doctest.DocTestParser().get_examples(text):
        yield example.source


def _pieces() -> Iterator[tuple[str, str]]:
    """(where, Python source) for every file, doctest and code block the test reads."""
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            where = str(path.relative_to(ROOT))
            text = path.read_text(encoding="utf-8")
            yield where, text
            for source in _doctests(text):
                yield f"{where} (doctest)", source
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        where = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        for block in CODE_BLOCK.findall(text):
            yield f"{where} (code block)", block
        for source in _doctests(text):
            yield f"{where} (>>>)", source


def test_nothing_imports_a_package_by_its_folders_name() -> None:
    found = sorted(
        f"{where}: {name}"
        for where, source in _pieces()
        for name in set(_imported(source)) & TOP_LEVEL
    )
    assert found == []


def test_the_pieces_read_include_the_engines_headline_doctest() -> None:
    """The test reads the doctests of the packages' ``__init__`` (where the engine's headline
    example is), not only their code."""
    wheres = {where for where, _ in _pieces()}
    assert "engine/__init__.py (doctest)" in wheres
    assert "examples/highest_card_bot.py" in wheres


def test_pytest_puts_only_src_on_the_path() -> None:
    """With the repository's root on ``sys.path``, ``import engine`` would work in the suite
    alone; the ``tests`` package is found from the root conftest's folder without it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["pytest"]["ini_options"]["pythonpath"] == ["src"]
