"""Errors in arena/ by kind (arena/errors.py), as engine/errors.py does for the rules: every
exception class the arena defines is one of the three kinds, and the commands exit with its
code."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import chaodipi.arena
from chaodipi.arena.errors import ArenaError, RunError, SetupError, UsageError


def _arena_modules() -> list[str]:
    modules = pkgutil.walk_packages(chaodipi.arena.__path__, "chaodipi.arena.")
    # the contract (chaodipi.arena.v2) is not the server: its WireError is its own
    return [m.name for m in modules if not m.name.endswith("__main__") and ".v2" not in m.name]


def test_every_exception_the_arena_defines_is_of_a_kind_and_lives_in_errors() -> None:
    found = {}
    for name in _arena_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, Exception)
                and not issubclass(value, Warning)
                and value.__module__ == name
            ):
                found[value.__qualname__] = name
    assert found and set(found.values()) == {"chaodipi.arena.errors"}, found
    kinds = (UsageError, SetupError, RunError)
    errors = importlib.import_module("chaodipi.arena.errors")
    for name in errors.__all__:
        kind = getattr(errors, name)
        assert kind is ArenaError or kind in kinds or issubclass(kind, kinds), name
