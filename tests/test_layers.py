"""The project's parts and the arena's layers point one way (docs/architecture.md, "Layers"):
each part of the project imports only the parts below it, and engine, records, bot and rl only
through their public faces; inside the arena, no import cycle between its packages and top-level
modules, and each imports only the layers below it.

Every ``import`` in arena/ counts, wherever it is written: at the top of a module, inside a
function, or under ``TYPE_CHECKING``. A package (``arena/serving/``) is one node, a top-level
module (``arena/errors.py``) another; an import inside one node is not an edge.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parent.parent / "arena"
PREFIX = "chaodipi.arena."

BASE = {"errors", "files", "logs", "signals", "extra", "deals", "v2"}
"""What everything may import: errors, private files, logging, signals, the extra's check, the
secret deal key, and the contract (``arena/v2``)."""

MAY_IMPORT: dict[str, set[str]] = {
    **{module: BASE for module in BASE},
    "results": BASE,
    "serving": BASE,
    "report": BASE | {"results"},
    "tournament": BASE | {"results", "serving"},
    "ladder": BASE | {"results", "serving", "report", "tournament"},
    "cli": BASE | {"results", "serving", "report", "tournament", "ladder"},
    "__main__": {"cli"},
    "__init__": set(),
}
"""Each node of arena and the nodes it may import: cli on top, then the standing ladder (which
plays, rates and reports); tournament (playing runs) and
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
        "    from chaodipi.arena.cli.main import main\n"
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


# -- the project's packages ------------------------------------------------------------------

ROOT = ARENA.parent
FACED = ("engine", "records", "bot", "rl", "review", "search")
"""The packages others import through their public face only: ``chaodipi.engine``'s names, never
``chaodipi.engine.cards``'s (tests/test_exports.py keeps each face what its ``__all__`` says)."""
PROGRAMS = {"chaodipi.bot.stdio"}
"""Modules that are programs (``python3 -m …``): the arena's ``stdio`` command runs the bridge's."""
SOURCES = {
    "engine": "engine",
    "records": "records",
    "bot": "bot",
    "rl": "rl",
    "review": "review",
    "search": "search",
    "sample_bots": "sample_bots",
    "contract": "proto/chaodipi",
    "arena": "arena",
    "benchmarks": "benchmarks",
    "examples": "examples",
}
"""Each part of the project and its folder (the contract's generated modules left out)."""
PACKAGE_MAY_IMPORT: dict[str, set[str]] = {
    "engine": set(),
    "records": {"engine"},
    "contract": {"engine"},
    "bot": {"engine", "contract"},
    "search": {"engine"},
    "rl": {"engine", "records", "search"},
    "sample_bots": {"engine", "bot", "contract", "rl", "search"},
    "review": {"engine", "records", "search"},
    "arena": {"engine", "records", "contract", "bot", "review"},
    "benchmarks": {
        "engine", "records", "contract", "bot", "rl", "sample_bots", "review", "search", "arena"
    },
    "examples": {
        "engine", "records", "contract", "bot", "rl", "sample_bots", "review", "search", "arena"
    },
}
"""What each part may import: the engine at the bottom; the record and the contract on it; the
SDK on the contract; the search library (the heuristic policy, the playouts, the search, the
review's judge) on the engine alone; the RL environment on the record and the search (the
trainer's teacher); the sample bots on the SDK, the search and the RL environment's encodings
(the DMC bot plays a trained model); the server on all of these but the RL environment and the
search (it reaches the judge through the reviewer); the reviewer on the record and the search;
benchmarks and examples on anything."""


def _part(name: str) -> str | None:
    """The project part a module ``chaodipi.…`` belongs to (the contract is ``arena.v2``)."""
    parts = name.split(".")
    if parts[0] != "chaodipi" or len(parts) < 2:
        return None
    if parts[1] == "arena" and len(parts) > 2 and parts[2] == "v2":
        return "contract"
    return parts[1]


def _project_imports() -> Iterator[tuple[str, str, str]]:
    """Each import of another part of the project: (importing part, module imported, file)."""
    for part, folder in SOURCES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" in path.parts or path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
                continue
            if part == "arena" and path.relative_to(ARENA).parts[0] == "v2":
                continue
            text = path.read_text(encoding="utf-8")
            for node in ast.walk(ast.parse(text)):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                for name in names:
                    target = _part(name)
                    if target is not None and target != part:
                        yield part, name, str(path.relative_to(ROOT))


def test_other_packages_import_a_package_through_its_face() -> None:
    """No module outside engine, records, bot or rl imports one of their inner modules."""
    inner = [
        f"{where}: {name}"
        for _, name, where in _project_imports()
        if _part(name) in FACED and name.count(".") > 1 and name not in PROGRAMS
    ]
    assert not inner, "import these through the package's face:\n" + "\n".join(inner)


def test_each_part_of_the_project_imports_only_the_parts_below_it() -> None:
    wrong = [
        f"{where}: {part} imports {name}"
        for part, name, where in _project_imports()
        if _part(name) not in PACKAGE_MAY_IMPORT[part]
    ]
    assert not wrong, "\n".join(wrong)


ARENA_FACED = ("results", "serving", "tournament", "report", "ladder")
"""The arena's packages: outside each, it is imported through its face (``__init__.pyi``)."""


def test_the_arenas_packages_are_imported_through_their_faces() -> None:
    """No module outside an arena package (in arena/, benchmarks/ or examples/) imports one of
    its modules: ``from chaodipi.arena.results import ResultsDB``, not ``….results.database``."""
    inner = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        part = path.relative_to(ROOT).parts[0]
        if part not in ("arena", "benchmarks", "examples") or "v2" in path.parts:
            continue
        home = path.relative_to(ARENA).parts[0] if part == "arena" else None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                parts = node.module.split(".")
                inner_module = parts[:2] == ["chaodipi", "arena"] and len(parts) > 3
                if inner_module and parts[2] in ARENA_FACED and parts[2] != home:
                    inner.append(f"{path.relative_to(ROOT)}: {node.module}")
    assert not inner, "import these through the package's face:\n" + "\n".join(inner)


@pytest.mark.parametrize("name", ARENA_FACED)
def test_every_name_of_an_arena_face_is_there_and_documented(name: str) -> None:
    """Each name an arena package's ``__init__.pyi`` lists is imported from its module when
    first used, and a class or function among them has a docstring."""
    package = importlib.import_module(f"chaodipi.arena.{name}")
    assert package.__all__, f"chaodipi.arena.{name} has no face"
    for attribute in package.__all__:
        value = getattr(package, attribute)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"chaodipi.arena.{name}.{attribute} has no docstring"


# -- the search library: the one home of the heuristic policy and the playouts --------------

SEARCH = ROOT / "search"
POLICY_MODULES = ("heuristic.py", "playout.py", "pimc.py", "monte_carlo.py")
"""The search library's modules that hold a policy: the heuristic, the playouts, the PIMC
search, the Monte-Carlo policy."""
SHARED_NAMES = {"decide", "main", "candidates", "Heuristic"}
"""Names other parts define for their own purposes (a bot's ``decide``, a program's ``main``,
the RL environment's ``candidates``, the heuristic rung's in-process class in
``sample_bots/rungs.py``, named after its rung): not the policy's."""
USERS = {
    "sample_bots/heuristic_bot.py": "heuristic_move",
    "sample_bots/search_bot.py": "search_move",
    "sample_bots/mc_bot.py": "monte_carlo_move",
    "review/judging.py": "judge_problem",
    "rl/bots.py": "heuristic_move",
}
"""Modules that play or judge with a policy of the library, and the name each imports from
``chaodipi.search``."""


def _defined(path: Path) -> set[str]:
    """The functions and classes a module defines at its top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def _policy_copies(root: Path) -> list[str]:
    """Each module of the project at ``root`` outside search/ that defines a function or class
    of the heuristic policy, the playouts, the search or the Monte-Carlo policy by its name."""
    search = root / "search"
    policy = set().union(*(_defined(search / name) for name in POLICY_MODULES)) - SHARED_NAMES
    assert {"heuristic_move", "play_out", "hand_value", "bury_cards", "_halving"} <= policy
    return [
        f"{path.relative_to(root)} defines {name}"
        for part, folder in SOURCES.items()
        if part != "search"
        for path in sorted((root / folder).rglob("*.py"))
        if "node_modules" not in path.parts
        for name in sorted(_defined(path) & policy)
    ]


def test_the_policies_are_defined_in_the_search_library_alone() -> None:
    """No module outside search/ defines a function or class of the heuristic policy, the
    playouts, the search or the Monte-Carlo policy by its name (a copy of one would be a second
    home: a sample bot changed would change the review's verdicts, or the trainer's teacher)."""
    found = _policy_copies(ROOT)
    assert not found, "define these in chaodipi.search only:\n" + "\n".join(found)


def test_a_copy_of_the_heuristic_or_the_playouts_outside_the_search_library_is_found(
    tmp_path: Path,
) -> None:
    """A tree holding the search library and, planted beside it, the heuristic policy copied
    whole into a sample bot and the playouts' ``play_out`` and ``hand_value`` defined in the
    review: the rule names each copy, and finds none in the tree without them."""
    for name in POLICY_MODULES:
        (tmp_path / "search").mkdir(exist_ok=True)
        (tmp_path / "search" / name).write_text((SEARCH / name).read_text(encoding="utf-8"))
    assert _policy_copies(tmp_path) == []
    (tmp_path / "sample_bots").mkdir()
    heuristic = (SEARCH / "heuristic.py").read_text(encoding="utf-8")
    (tmp_path / "sample_bots" / "heuristic_bot.py").write_text(heuristic)
    (tmp_path / "review").mkdir()
    (tmp_path / "review" / "judging.py").write_text(
        "def play_out(state, rng):\n    pass\n\n\nclass hand_value:\n    pass\n"
    )
    found = _policy_copies(tmp_path)
    assert "sample_bots/heuristic_bot.py defines heuristic_move" in found
    assert "sample_bots/heuristic_bot.py defines bury_cards" in found
    assert "review/judging.py defines play_out" in found
    assert "review/judging.py defines hand_value" in found
    assert all(line.startswith(("sample_bots/", "review/")) for line in found)


def test_the_bots_the_review_and_the_trainer_take_their_policy_from_the_search_library() -> None:
    """Each sample bot built on a policy, the review's judging and the trainer's named bots import
    it from ``chaodipi.search``; the review no longer reaches the sample bots."""
    for where, name in USERS.items():
        tree = ast.parse((ROOT / where).read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "chaodipi.search"
            for alias in node.names
        }
        assert name in imported, f"{where} does not import {name} from chaodipi.search"
    reached = [name for part, name, _ in _project_imports() if part in ("review", "rl")]
    assert not [n for n in reached if _part(n) == "sample_bots"], reached
