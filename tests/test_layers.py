"""The arena's layers point one way (docs/architecture.md, "Layers"): no import cycle between its
packages and top-level modules, and each imports only the layers below it.

Every ``import`` in arena/ counts, wherever it is written: at the top of a module, inside a
function, or under ``TYPE_CHECKING``. A package (``arena/serving/``) is one node, a top-level
module (``arena/errors.py``) another; an import inside one node is not an edge.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

ARENA = Path(__file__).resolve().parent.parent / "arena"
PREFIX = "chaodipi.arena."

BASE = {"errors", "files", "logs", "terminal", "signals", "extra", "deals", "v2"}
"""What everything may import: errors, private files, logging, terminal text, signals, the
extra's check, the secret deal key, and the contract (``arena/v2``)."""

MAY_IMPORT: dict[str, set[str]] = {
    **{module: BASE for module in BASE},
    "results": BASE,
    "serving": BASE,
    "viewer": BASE,
    "records": BASE | {"serving"},
    "report": BASE | {"results"},
    "tournament": BASE | {"results", "serving", "records"},
    "cli": BASE | {"results", "serving", "records", "report", "tournament", "viewer"},
    "__main__": {"cli"},
    "__init__": set(),
}
"""Each node of arena and the nodes it may import: cli on top; tournament (playing runs) and
report (reading results) side by side, neither importing the other; results (the database, its
rows, the SPRT) and serving (tables over gRPC) below them."""


def _node(module: str) -> str:
    """The node a module ``chaodipi.arena.X…`` belongs to: ``X``."""
    return module.removeprefix(PREFIX).split(".")[0]


def _imported(source: str, module: str, *, package: bool = False) -> Iterator[str]:
    """Every module the module ``module`` (a package's ``__init__`` if ``package``), whose text
    is ``source``, imports (and each name it imports from one), relative imports resolved."""
    within = module if package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = within.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _graph() -> dict[str, dict[str, str]]:
    """For each node, the nodes it imports, each with one place that does it."""
    graph: dict[str, dict[str, str]] = {}
    for path in sorted(ARENA.rglob("*.py")):
        relative = path.relative_to(ARENA)
        if relative.parts[0] == "v2":  # the contract, linked in: generated code
            continue
        module = PREFIX + ".".join(relative.with_suffix("").parts)
        module = module.removesuffix(".__init__") if len(relative.parts) > 1 else module
        source = relative.parts[0].removesuffix(".py")
        edges = graph.setdefault(source, {})
        text = path.read_text(encoding="utf-8")
        for name in _imported(text, module, package=path.name == "__init__.py"):
            if name.startswith(PREFIX) and _node(name) != source:
                edges.setdefault(_node(name), f"arena/{relative}")
    return graph


def _cycle(graph: dict[str, dict[str, str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its nodes, the first repeated at the end), or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for target in graph.get(node, {}):
            found = visit(target, [*path, node])
            if found is not None:
                return found
        done.add(node)
        return None

    for start in graph:
        found = visit(start, [])
        if found is not None:
            return found
    return None


def test_the_graph_sees_every_kind_of_import() -> None:
    """Module-level, function-level and ``TYPE_CHECKING`` imports, and relative ones."""
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import chaodipi.arena.logs\n"
        "from . import mailbox\n"
        "from ..results.rows import GameRow\n"
        "if TYPE_CHECKING:\n"
        "    from chaodipi.arena.report.stats import SprtTest\n"
        "def f():\n"
        "    from chaodipi.arena.cli import main\n"
    )
    names = set(_imported(source, "chaodipi.arena.serving.table"))
    assert {
        "chaodipi.arena.logs",
        "chaodipi.arena.serving.mailbox",
        "chaodipi.arena.results.rows.GameRow",
        "chaodipi.arena.report.stats",
        "chaodipi.arena.cli.main",
    } <= names


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b": "x"}, "b": {"c": "y"}, "c": {"a": "z"}, "d": {"a": "w"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": "x"}, "b": {}}) is None


def test_no_import_cycle_between_arenas_packages() -> None:
    graph = _graph()
    cycle = _cycle(graph)
    assert cycle is None, "an import cycle: " + " -> ".join(
        f"{a} ({graph[a][b]})" for a, b in itertools.pairwise(cycle)
    )


def test_each_layer_imports_only_the_layers_below_it() -> None:
    graph = _graph()
    unknown = set(graph) - set(MAY_IMPORT)
    assert not unknown, f"give these arena modules a layer in MAY_IMPORT: {sorted(unknown)}"
    wrong = [
        f"{source} imports {target} ({where})"
        for source, edges in graph.items()
        for target, where in edges.items()
        if target not in MAY_IMPORT[source]
    ]
    assert not wrong, "\n".join(wrong)


def test_cli_is_on_top_and_report_and_tournament_stand_apart() -> None:
    """The direction the layers table states, said once more in so many words."""
    graph = _graph()
    for source, edges in graph.items():
        if source not in ("cli", "__main__"):
            assert "cli" not in edges, f"{source} imports cli ({edges.get('cli')})"
    assert "tournament" not in graph["report"], graph["report"]["tournament"]
    assert "report" not in graph["tournament"], graph["tournament"]["report"]
    for lower in ("serving", "results"):
        for upper in ("tournament", "report", "cli"):
            edges = graph.get(lower, {})
            assert upper not in edges, f"{lower} imports {upper}: {edges.get(upper)}"
