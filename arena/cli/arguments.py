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
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from chaodipi.arena.errors import AddressError
from chaodipi.arena.serving.addresses import parse_address

__all__ = [
    "LOG_LEVELS",
    "MAX_MS",
    "ArenaParser",
    "host",
    "listen_address",
    "milliseconds",
    "output_file",
    "output_folder",
    "seconds",
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


def output_folder(text: str) -> Path:
    """A folder the command writes into (made if new, with its parents): not a file, nor
    inside one."""
    path = Path(text)
    for part in (path, *path.parents):
        if part.exists() and not part.is_dir():
            raise argparse.ArgumentTypeError(f"{text}: {part} is a file, not a folder")
    return path
