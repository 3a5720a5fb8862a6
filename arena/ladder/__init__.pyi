"""The public face of ``chaodipi.arena.ladder`` (its names, imported when first used)."""

from .config import KEYS as KEYS
from .config import LadderConfig as LadderConfig
from .config import load_ladder as load_ladder
from .config import parse_ladder as parse_ladder
from .documents import PAIR_COLUMNS as PAIR_COLUMNS
from .documents import RATING_COLUMNS as RATING_COLUMNS
from .documents import export_document as export_document
from .documents import status_document as status_document
from .entries import Bot as Bot
from .entries import BotKind as BotKind
from .entries import Pair as Pair
from .entries import PairKind as PairKind
from .entries import PairState as PairState
from .entries import Version as Version
from .entries import VersionState as VersionState
from .live import Live as Live
from .live import Playing as Playing
from .matchmaking import Candidate as Candidate
from .matchmaking import MatchmakingSettings as MatchmakingSettings
from .matchmaking import Pairing as Pairing
from .matchmaking import SeedRule as SeedRule
from .matchmaking import next_pairing as next_pairing
from .on_ray import RayTables as RayTables
from .on_ray import ray_tables as ray_tables
from .operator import LadderError as LadderError
from .operator import Operator as Operator
from .ratings import ELO_PER_MU as ELO_PER_MU
from .ratings import PROVISIONAL_WIDTH as PROVISIONAL_WIDTH
from .ratings import LiveRating as LiveRating
from .ratings import provisional as provisional
from .ratings import rate_pair as rate_pair
from .ratings import refit as refit
from .service import Ladder as Ladder
from .store import Store as Store
from .store import database_url as database_url

__all__ = [
    "ELO_PER_MU",
    "KEYS",
    "PAIR_COLUMNS",
    "PROVISIONAL_WIDTH",
    "RATING_COLUMNS",
    "Bot",
    "BotKind",
    "Candidate",
    "Ladder",
    "LadderConfig",
    "LadderError",
    "Live",
    "LiveRating",
    "MatchmakingSettings",
    "Operator",
    "Pair",
    "PairKind",
    "PairState",
    "Pairing",
    "Playing",
    "RayTables",
    "SeedRule",
    "Store",
    "Version",
    "VersionState",
    "database_url",
    "export_document",
    "load_ladder",
    "next_pairing",
    "parse_ladder",
    "provisional",
    "rate_pair",
    "ray_tables",
    "refit",
    "status_document",
]
