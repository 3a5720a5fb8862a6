"""The public face of ``chaodipi.arena.serving`` (its names, imported when first used)."""

from .addresses import check_can_listen as check_can_listen
from .addresses import parse_address as parse_address
from .admission import Admission as Admission
from .hosting import host_tables as host_tables
from .hosting import void_unseated as void_unseated
from .in_process import InProcessSeat as InProcessSeat
from .in_process import Overdue as Overdue
from .in_process import Streams as Streams
from .mailbox import Mailbox as Mailbox
from .record import table_record as table_record
from .server import SERVICE_NAME as SERVICE_NAME
from .server import ArenaServer as ArenaServer
from .server import new_spectator_token as new_spectator_token
from .server import open_server as open_server
from .server import tune_garbage_collector as tune_garbage_collector
from .sessions import Door as Door
from .sessions import Session as Session
from .sessions import token_digest as token_digest
from .streams import StreamPort as StreamPort
from .table import Table as Table
from .table import TableConfig as TableConfig
from .table import TableResult as TableResult

__all__ = [
    "SERVICE_NAME",
    "Admission",
    "ArenaServer",
    "Door",
    "InProcessSeat",
    "Mailbox",
    "Overdue",
    "Session",
    "StreamPort",
    "Streams",
    "Table",
    "TableConfig",
    "TableResult",
    "check_can_listen",
    "host_tables",
    "new_spectator_token",
    "open_server",
    "parse_address",
    "table_record",
    "token_digest",
    "tune_garbage_collector",
    "void_unseated",
]
