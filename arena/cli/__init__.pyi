"""The public face of ``chaodipi.arena.cli`` (its names, imported when first used)."""

from .main import main as main

__all__ = ["main"]
