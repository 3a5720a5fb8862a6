"""What the arena needs beyond a bot's install: the ``arena`` extra.

A bot needs the engine, the contract (``chaodipi.arena.v2``, with its conversion) and the SDK
(``chaodipi.bot``): pyproject's base dependencies, grpcio and protobuf. The server, the
tournaments and the ``arena`` command need more, installed with the ``arena`` extra
(``pip install -e '.[arena]'``; the ``test`` extra pulls it in). :data:`MODULES` names the
module each of the extra's distributions gives (``tests/test_install.py`` checks it against
pyproject.toml), and :func:`missing` says which of them cannot be imported here.

>>> missing({"json": "json", "no-such-thing": "no_such_module_here"})
['no-such-thing']
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping

__all__ = ["INSTALL_HINT", "MODULES", "missing"]

MODULES = {
    "grpcio-reflection": "grpc_reflection",
    "grpcio-health-checking": "grpc_health",
    "anyio": "anyio",
    "structlog": "structlog",
    "rich": "rich",
    "scipy": "scipy",
    "matplotlib": "matplotlib",
    "jsonschema": "jsonschema",
}
"""The ``arena`` extra's distributions, and the top-level module each one gives."""

INSTALL_HINT = (
    "install the arena's `arena` extra: `pip install -e '.[arena]'` from a clone of the arena, "
    "or `pip install 'chaodipi-arena[arena]'` (a bot needs only the base install)"
)


def missing(modules: Mapping[str, str] = MODULES) -> list[str]:
    """The distributions of ``modules`` (distribution -> module) whose module cannot be
    imported here, in order."""
    absent = []
    for distribution, name in modules.items():
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a finder that refuses it, or a broken install
            found = False
        if not found:
            absent.append(distribution)
    return absent
