"""Each public package's face is what its ``__all__`` says, no more and no less (trio's
test_exports): every name listed is there and documented, and nothing else public is."""

from __future__ import annotations

import importlib
import inspect
import types

import pytest

PACKAGES = [
    "chaodipi.engine",
    "chaodipi.records",
    "chaodipi.bot",
    "chaodipi.review",
    "chaodipi.search",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_the_public_names_are_exactly_those_listed(name: str) -> None:
    package = importlib.import_module(name)
    listed = package.__all__
    assert listed == sorted(listed, key=lambda n: (not n.isupper(), n)), "keep __all__ sorted"
    assert len(set(listed)) == len(listed)
    public = {
        n
        for n, value in vars(package).items()
        if not n.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(listed), (public - set(listed), set(listed) - public)


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_is_documented_and_defined_in_the_package(name: str) -> None:
    package = importlib.import_module(name)
    for attribute in package.__all__:
        value = getattr(package, attribute)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__module__.startswith("chaodipi."), (attribute, value.__module__)
            assert inspect.getdoc(value), f"{name}.{attribute} has no docstring"
