"""docs/rules.md cites a test for every rule: each cited test must exist."""

from __future__ import annotations

import ast
import re
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
