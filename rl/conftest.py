"""Doctests of chaodipi.rl run when the ``rl`` extra is installed; without it they are not
collected (tests/test_rl_*.py say so as skips)."""

import importlib.util

collect_ignore_glob = (
    ["*.py"]
    if any(importlib.util.find_spec(m) is None for m in ("numpy", "gymnasium", "pettingzoo"))
    else []
)
