"""Doctests of chaodipi.rl run when the ``rl`` extra is installed; without it they are not
collected (tests/test_rl_*.py say so as skips)."""

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError:
    collect_ignore_glob = ["*.py"]
