"""The public face of ``chaodipi.arena.tournament`` (its names, imported when first used)."""

from .backend import Backend as Backend
from .backend import BotFailure as BotFailure
from .backend import FailureKind as FailureKind
from .backend import GameResult as GameResult
from .config import KEYS as KEYS
from .config import SCHEDULES as SCHEDULES
from .config import TRANSPORTS as TRANSPORTS
from .config import BotSpec as BotSpec
from .config import ConfigDeprecation as ConfigDeprecation
from .config import Key as Key
from .config import TournamentConfig as TournamentConfig
from .config import command_parts as command_parts
from .config import config_help as config_help
from .config import load_config as load_config
from .config import parse_config as parse_config
from .config import schedule as schedule
from .deal_sets import DealSetError as DealSetError
from .deal_sets import export_document as export_document
from .deal_sets import load_deal_set as load_deal_set
from .deal_sets import resolve_deal_set as resolve_deal_set
from .deal_sets import write_document as write_document
from .driver import prepare_log_dir as prepare_log_dir
from .driver import run_tournament as run_tournament
from .local import Games as Games
from .local import LocalBackend as LocalBackend
from .pools import Instances as Instances
from .processes import bound_stderr as bound_stderr
from .ray_backend import MAX_RETRIES as MAX_RETRIES
from .ray_backend import RayBackend as RayBackend
from .ray_backend import runtime_env as runtime_env
from .ray_cluster import connect as connect
from .ray_cluster import import_ray as import_ray
from .ray_cluster import parse_address as parse_address
from .ray_shard import Shard as Shard
from .ray_shard import ShardResult as ShardResult
from .ray_shard import play_shard as play_shard
from .recorder import Recorder as Recorder
from .recorder import RunResult as RunResult
from .rungs import RUNGS as RUNGS
from .rungs import Rung as Rung
from .rungs import rung as rung
from .rungs import rungs_of as rungs_of
from .runs import games_left as games_left
from .runs import stored_config as stored_config

__all__ = [
    "KEYS",
    "MAX_RETRIES",
    "RUNGS",
    "SCHEDULES",
    "TRANSPORTS",
    "Backend",
    "BotFailure",
    "BotSpec",
    "ConfigDeprecation",
    "DealSetError",
    "FailureKind",
    "GameResult",
    "Games",
    "Instances",
    "Key",
    "LocalBackend",
    "RayBackend",
    "Recorder",
    "RunResult",
    "Rung",
    "Shard",
    "ShardResult",
    "TournamentConfig",
    "bound_stderr",
    "command_parts",
    "config_help",
    "connect",
    "export_document",
    "games_left",
    "import_ray",
    "load_config",
    "load_deal_set",
    "parse_address",
    "parse_config",
    "play_shard",
    "prepare_log_dir",
    "resolve_deal_set",
    "run_tournament",
    "rung",
    "rungs_of",
    "runtime_env",
    "schedule",
    "stored_config",
    "write_document",
]
