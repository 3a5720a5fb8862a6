"""The public face of ``chaodipi.arena.ladder`` (its names, imported when first used)."""

__all__: list[str] = []
