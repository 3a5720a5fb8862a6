"""What the ``arena`` command line accepts: argument types, and a parser that errs in one line.

Every option of every command is read with one of these types (or ``choices``), so a bad value
is refused before anything starts, with one line naming the option and what it takes, and exit
code 2:

    arena selfplay: argument --matches: must be a whole number of at least 1, not '-1'

>>> whole(1)("3")
3
>>> whole(1)("0")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a whole number of at least 1, not '0'
>>> seconds("nan")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a positive number of seconds, not 'nan'
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from chaodipi.arena.errors import AddressError
from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE
from chaodipi.arena.serving import parse_address
from chaodipi.arena.tournament import KEYS, SCHEDULES, TRANSPORTS, Key
from chaodipi.engine import PRESETS

__all__ = [
    "LOG_LEVELS",
    "MAX_MS",
    "ArenaParser",
    "add_spectator_token_option",
    "bot",
    "config_value",
    "database_file",
    "deal_set_file",
    "host",
    "listen_address",
    "milliseconds",
    "output_file",
    "output_folder",
    "seconds",
    "sprt_hypotheses",
    "time_control",
    "whole",
]

LOG_LEVELS = ("debug", "info", "warning", "error")
"""The values of every command's ``--log-level``."""
MAX_MS = 86_400_000
"""The longest clock an option takes, in milliseconds (a day; the protocol's fields are 32-bit)."""


class ArenaParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line, ``PROG: what is wrong (see PROG
    --help)``, with exit code 2 (argparse's own print the usage first, many lines for
    ``arena serve``). Sub-commands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def whole(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number from ``minimum`` (to ``maximum``)."""
    span = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, not {text!r}")
        return value

    return read


def milliseconds(minimum: int) -> Callable[[str], int]:
    """A clock in milliseconds, from ``minimum`` to a day."""
    return whole(minimum, MAX_MS)


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def listen_address(text: str) -> str:
    """``HOST:PORT`` (an IPv6 host in brackets)."""
    try:
        parse_address(text)
    except AddressError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def host(text: str) -> str:
    """A host name or address to listen on; an IPv6 address comes back in brackets, ready
    for ``f"{host}:{port}"``."""
    bracketed = f"[{text}]" if ":" in text and not text.startswith("[") else text
    try:
        parse_address(f"{bracketed}:0")
    except AddressError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a host name or address") from None
    return bracketed


def output_file(text: str) -> Path:
    """A file the command writes (made or replaced): its folder must exist already, and it
    must not be a folder."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: there is no folder {path.parent}")
    return path


def database_file(text: str) -> Path:
    """A results database to open or make (with its folders): not a folder."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a folder, not a database file")
    return path


def output_folder(text: str) -> Path:
    """A folder the command writes into (made if new, with its parents): not a file, nor
    inside one."""
    path = Path(text)
    for part in (path, *path.parents):
        if part.exists() and not part.is_dir():
            raise argparse.ArgumentTypeError(f"{text}: {part} is a file, not a folder")
    return path


def add_spectator_token_option(parser: argparse.ArgumentParser, default_place: str) -> None:
    """``--spectator-token [PATH]``, the same for ``arena serve`` and ``arena run``: the value
    is None (no token), True (write it to ``default_place``) or the PATH given."""
    parser.add_argument(
        "--spectator-token",
        nargs="?",
        type=Path,
        const=True,
        default=None,
        metavar="PATH",
        help="make an operator token for ArenaService.Watch (WatchRequest.token; bots never get "
        f"it) and write it to PATH (default: {default_place}), a file readable by you only; "
        "only the file's name is printed, never the token. Without it nobody may watch",
    )


def bot(text: str) -> tuple[str, str]:
    """``NAME=COMMAND``: a bot the arena starts, its command split as a shell would.

    >>> bot("random=python3 -m chaodipi.sample_bots.random_bot")
    ('random', 'python3 -m chaodipi.sample_bots.random_bot')
    >>> bot("python3 bot.py")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    argparse.ArgumentTypeError: write NAME=COMMAND, e.g. ..., not 'python3 bot.py'
    """
    name, _, command = text.partition("=")
    if not BOT_NAME.fullmatch(name) or not command.strip():
        raise argparse.ArgumentTypeError(
            f"write NAME=COMMAND, e.g. random='python3 my_bot.py' ({BOT_NAME_RULE}), not {text!r}"
        )
    try:
        shlex.split(command)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{name}: the command cannot be split ({err})") from None
    return name, command


def time_control(text: str) -> tuple[int, int | None]:
    """``DECISION_MS[+BANK_MS]``: the time per decision and the bank per seat and game, in
    milliseconds (``decision_ms``, ``bank_ms``; without a bank, the config's).

    >>> time_control("500+10000"), time_control("200")
    ((500, 10000), (200, None))
    """
    decision, plus, bank = text.partition("+")
    low = {key.name: key.minimum or 0 for key in KEYS}
    try:
        values = (int(decision), int(bank) if plus else None)
    except ValueError:
        values = None
    if (
        values is None
        or not low["decision_ms"] <= values[0] <= MAX_MS
        or (values[1] is not None and not low["bank_ms"] <= values[1] <= MAX_MS)
    ):
        raise argparse.ArgumentTypeError(
            f"write DECISION_MS[+BANK_MS], milliseconds, e.g. 1000+30000 (a decision of at "
            f"least {low['decision_ms']}), not {text!r}"
        )
    return values[0], values[1]


def sprt_hypotheses(text: str) -> tuple[float, float, float, float]:
    """``ELO0,ELO1,ALPHA,BETA``: an SPRT's hypotheses and error rates.

    >>> sprt_hypotheses("0,50,0.05,0.05")
    (0.0, 50.0, 0.05, 0.05)
    """
    try:
        elo0, elo1, alpha, beta = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"write elo0,elo1,alpha,beta, e.g. 0,50,0.05,0.05, not {text!r}"
        ) from None
    if not all(math.isfinite(x) for x in (elo0, elo1)) or not (
        elo0 < elo1 and 0 < alpha < 1 and 0 < beta < 1
    ):
        raise argparse.ArgumentTypeError(f"need elo0 < elo1 and 0 < alpha, beta < 1, not {text!r}")
    return elo0, elo1, alpha, beta


def deal_set_file(text: str) -> Path | str:
    """A deal set's file, or ``standard`` (the preset's shipped set), as given."""
    if not text:
        raise argparse.ArgumentTypeError("give a deal set's file, or standard")
    return text if text == "standard" else Path(text)


def config_value(key: Key) -> Callable[[str], Any]:
    """The type of ``key``'s option (:attr:`Key.flag`): what the config file takes, checked
    the same way, so that ``--deals 0`` is refused as ``deals = 0`` is."""
    if key.kind == "whole":
        return whole(key.minimum or 0)
    if key.kind == "seconds":
        return seconds
    if key.kind == "folder":
        return output_folder
    if key.kind == "file":
        return database_file
    if key.kind == "deal_set":
        return deal_set_file
    choices = {"preset": tuple(PRESETS), "schedule": SCHEDULES, "transport": TRANSPORTS}.get(
        key.kind
    )
    if choices is None:
        return str

    def choose(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(
                f"no {key.name} {text!r}; choose one of {', '.join(choices)}"
            )
        return text

    return choose
