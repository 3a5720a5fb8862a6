"""The public face of ``chaodipi.arena.ladder`` (its names, imported when first used)."""

from .matchmaking import Candidate as Candidate
from .matchmaking import MatchmakingSettings as MatchmakingSettings
from .matchmaking import Pairing as Pairing
from .matchmaking import SeedRule as SeedRule
from .matchmaking import next_pairing as next_pairing
from .ratings import ELO_PER_MU as ELO_PER_MU
from .ratings import PROVISIONAL_WIDTH as PROVISIONAL_WIDTH
from .ratings import LiveRating as LiveRating
from .ratings import provisional as provisional
from .ratings import rate_pair as rate_pair
from .ratings import refit as refit

__all__ = [
    "ELO_PER_MU",
    "PROVISIONAL_WIDTH",
    "Candidate",
    "LiveRating",
    "MatchmakingSettings",
    "Pairing",
    "SeedRule",
    "next_pairing",
    "provisional",
    "rate_pair",
    "refit",
]
