"""The public face of ``chaodipi.arena.results`` (its names, imported when first used)."""

from .database import ResultsDB as ResultsDB
from .rows import BOT_NAME as BOT_NAME
from .rows import BOT_NAME_RULE as BOT_NAME_RULE
from .rows import GameKey as GameKey
from .rows import GameRow as GameRow
from .rows import StoredRun as StoredRun
from .rows import game_label as game_label
from .sprt import PAIR_SCORES as PAIR_SCORES
from .sprt import SprtResult as SprtResult
from .sprt import SprtTest as SprtTest
from .sprt import logistic as logistic
from .sprt import pentanomial as pentanomial
from .sprt import pentanomial_with_score as pentanomial_with_score
from .sprt import sprt as sprt
from .stored import bot_names as bot_names
from .stored import sprt_to_run as sprt_to_run
from .stored import stored as stored
from .stored import stored_sprt as stored_sprt

__all__ = [
    "BOT_NAME",
    "BOT_NAME_RULE",
    "PAIR_SCORES",
    "GameKey",
    "GameRow",
    "ResultsDB",
    "SprtResult",
    "SprtTest",
    "StoredRun",
    "bot_names",
    "game_label",
    "logistic",
    "pentanomial",
    "pentanomial_with_score",
    "sprt",
    "sprt_to_run",
    "stored",
    "stored_sprt",
]
