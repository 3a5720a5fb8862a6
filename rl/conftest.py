"""Doctests of chaodipi.rl run when the ``rl`` extra is installed; without it they are not
collected (tests/test_rl_*.py say so as skips). The trainer (train.py, qnet.py, selfplay.py,
ray_actors.py) needs torch besides."""

import importlib.util

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError:
    collect_ignore_glob = ["*.py"]
else:
    TORCH = ["train.py", "qnet.py", "selfplay.py", "ray_actors.py"]
    collect_ignore = [] if importlib.util.find_spec("torch") else TORCH
