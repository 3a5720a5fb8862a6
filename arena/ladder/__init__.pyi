"""The public face of ``chaodipi.arena.ladder`` (its names, imported when first used)."""

from .ratings import ELO_PER_MU as ELO_PER_MU
from .ratings import PROVISIONAL_WIDTH as PROVISIONAL_WIDTH
from .ratings import LiveRating as LiveRating
from .ratings import provisional as provisional
from .ratings import rate_pair as rate_pair
from .ratings import refit as refit

__all__ = [
    "ELO_PER_MU",
    "PROVISIONAL_WIDTH",
    "LiveRating",
    "provisional",
    "rate_pair",
    "refit",
]
