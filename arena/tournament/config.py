"""Tournament configuration: a small TOML file, read and checked with the key and the reason.

```toml
preset = "classic"
hands = 4
deals = 20                  # each deal is played twice, the teams' seats swapped

[bots.random]
command = "python3 -m chaodipi.sample_bots.random_bot"   # or a list of arguments

[bots.heuristic]
command = ["python3", "-m", "chaodipi.sample_bots.heuristic_bot"]
```

Every top-level key, its default and its meaning is in :data:`KEYS` (the one place they are
written: ``arena run --help`` prints them from there); ``seeds`` and ``seed_base``, the names of
``deals`` and ``first_deal`` before, are still read, with a :class:`ConfigDeprecation` warning.

A bot command is started as a small pool of long-lived processes, each with ``--address
ADDRESS`` appended (also in ``ARENA_ADDRESS``) and its session token in its environment only,
``ARENA_TOKEN`` (a command line is readable by every user of the machine, an environment by its
own user only): each opens a session and is offered seats game after game, never two seats of
one deal (:mod:`chaodipi.arena.tournament.pools`). ``processes = N`` caps a bot's pool (default: the
seats it plays on one deal, at most 16). ``fresh = true`` starts the command once per seat and game
instead, with ``--address ADDRESS`` and the seat's ticket in ``ARENA_TICKET``, for a bot that can
play only one game per process. A command runs in the config file's folder, with the arena's own
environment (its ``PATH`` included); a command whose first word is ``python3`` or ``python``
runs with the interpreter that runs the arena (so it has the project's packages), and any other
spelling (``/usr/bin/python3``, ``python3.12``) is kept. A bot that runs elsewhere is declared
with ``token = "a secret of 8+ characters"`` instead of a command: its processes connect to the
address ``arena run`` prints (``--port`` fixes it) and each opens a session with the token
(``$ARENA_TOKEN`` or ``--token-file`` for the Python SDK); a game waits (up to
``connect_timeout``) for a session that may take its seat.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
import tomllib
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from chaodipi.arena.errors import ConfigError
from chaodipi.arena.tournament.results import GameKey
from chaodipi.engine.presets import PRESETS

__all__ = [
    "KEYS",
    "RENAMED",
    "BotSpec",
    "ConfigDeprecation",
    "Key",
    "TournamentConfig",
    "config_help",
    "load_config",
    "parse_config",
    "schedule",
]


@dataclass(frozen=True, slots=True)
class Key:
    """A top-level config key: its default (``None``: unset), what it means, and, for a
    number, the least value it may take."""

    name: str
    default: str | int | float | None
    help: str
    minimum: int | float | None = None


KEYS: tuple[Key, ...] = (
    Key("preset", "classic", "see `arena presets`"),
    Key("hands", 4, "hands per game; 0 plays whole matches", 0),
    Key("deals", 10, "deals, each played twice (seats swapped)", 1),
    Key("first_deal", 1, "the first deal's number", 0),
    Key("concurrency", 4, "games at once", 1),
    Key("schedule", "round-robin", 'or "gauntlet", with gauntlet = "NAME"'),
    Key("gauntlet", None, 'with schedule = "gauntlet": the bot that meets all others'),
    Key("decision_ms", 1000, "time per decision", 10),
    Key("bank_ms", 30_000, "time bank per seat and game", 0),
    Key("max_strikes", 3, "timeouts before a forfeit", 1),
    Key("database", "results.sqlite", "relative to the config file"),
    Key(
        "replays",
        None,
        "a folder for each game's record file, <game>.jsonl, as well as the database "
        "(relative to the config file; docs/game-record.md)",
    ),
    Key("connect_timeout", 10, "seconds a bot has to connect; then its game is void", 0),
)
"""Every top-level key but ``bots``, in the order the help lists them."""

RENAMED = {"seeds": "deals", "seed_base": "first_deal"}
"""Keys read under their old names, with a warning: old name → name."""

_DEFAULTS = {key.name: key for key in KEYS}
_KNOWN = {*_DEFAULTS, "bots"}


class ConfigDeprecation(UserWarning):
    """A config written with a key's old name: it is read, and the message says the new one."""


def config_help() -> str:
    """The keys with their defaults, as TOML a user may copy (for ``arena run --help``)."""
    lines = []
    for key in KEYS:
        if key.default is None:
            assignment = f"# {key.name} = …"
        else:
            value = f'"{key.default}"' if isinstance(key.default, str) else f"{key.default}"
            assignment = f"{key.name} = {value}"
        lines.append(f"  {assignment:<28}# {key.help}")
    return "\n".join(lines)


_BOT_KEYS = {"command", "token", "fresh", "processes"}

PYTHON_NAMES = ("python3", "python")
"""A bot command starting with one of these runs with the arena's own interpreter."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot the arena starts (``command``), or one that connects by itself (``token``)."""

    name: str
    command: tuple[str, ...] = ()
    token: str | None = None
    fresh: bool = False
    """Start the command once per seat and game (with a ticket) instead of keeping a pool."""
    processes: int | None = None
    """The most processes of this bot alive at once (None: the seats it plays on one deal,
    at most 16)."""

    def argv(self) -> tuple[str, ...]:
        """The command to start: a leading ``python3`` (or ``python``) becomes the arena's own
        interpreter, ``sys.executable``.

        >>> BotSpec("b", ("python3", "-m", "bot")).argv()[0] == sys.executable
        True
        >>> BotSpec("b", ("/usr/bin/python3", "bot.py")).argv()[0]
        '/usr/bin/python3'
        """
        if self.command and self.command[0] in PYTHON_NAMES:
            return (sys.executable, *self.command[1:])
        return self.command


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    preset: str
    hands: int
    deals: int
    concurrency: int
    schedule: str
    gauntlet: str | None
    decision_ms: int
    bank_ms: int
    max_strikes: int
    database: Path
    replays: Path | None
    first_deal: int
    bots: tuple[BotSpec, ...]
    connect_timeout: float = 10.0
    """Seconds a bot has to connect after its start; then its game is void."""
    folder: Path = Path()
    """Where bot commands run: the config file's folder."""

    def pairings(self) -> list[tuple[str, str]]:
        """The pairs of bots that meet, in a fixed order."""
        names = [b.name for b in self.bots]
        if self.schedule == "gauntlet":
            assert self.gauntlet is not None
            return [(self.gauntlet, other) for other in names if other != self.gauntlet]
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]

    def fingerprint(self) -> str:
        """What must not change for ``--resume`` to continue this tournament. Keys keep the
        names they had when databases began to store this (``seeds``, ``seed_base``), so that a
        database written then is still resumed."""
        key = {
            {"deals": "seeds", "first_deal": "seed_base"}.get(k, k): v
            for k, v in asdict(self).items()
            if k not in ("concurrency", "database", "replays", "connect_timeout", "folder")
        }
        # how a bot's processes are run does not change what is played
        key["bots"] = [{"name": b.name, "command": b.command, "token": b.token} for b in self.bots]
        return hashlib.sha256(json.dumps(key, default=str, sort_keys=True).encode()).hexdigest()[
            :16
        ]


def schedule(config: TournamentConfig) -> list[GameKey]:
    """Every game of the tournament, deal after deal: deals × pairings × (as dealt, swapped).

    >>> bots = (BotSpec("a", ("x",)), BotSpec("b", ("y",)))
    >>> config = parse_config({"deals": 2, "first_deal": 5, "bots": {
    ...     "a": {"command": "x"}, "b": {"command": "y"}}}, Path("."))
    >>> [(key.deal, key.swapped) for key in schedule(config)]
    [(5, False), (5, True), (6, False), (6, True)]
    """
    return [
        GameKey(a, b, config.first_deal + deal, swapped)
        for deal in range(config.deals)
        for a, b in config.pairings()
        for swapped in (False, True)
    ]


def _int(data: dict[str, Any], name: str) -> int:
    key = _DEFAULTS[name]
    value = data.get(name, key.default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{name}: must be a whole number, not {value!r}")
    if key.minimum is not None and value < key.minimum:
        raise ConfigError(f"{name}: must be at least {key.minimum}, not {value}")
    return value


def _renamed(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the old names of keys read as the new ones (warning for each)."""
    data = dict(data)
    for old, new in RENAMED.items():
        if old not in data:
            continue
        if new in data:
            raise ConfigError(f"{old}: is the old name of {new}; give only {new}")
        warnings.warn(
            f"config key {old!r} is now {new!r}: it is read as {new} (rename it)",
            ConfigDeprecation,
            stacklevel=3,
        )
        data[new] = data.pop(old)
    return data


def parse_config(data: dict[str, Any], base: Path) -> TournamentConfig:
    """Check a parsed TOML table; ``base`` is where relative paths start."""
    data = _renamed(data)
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown key (known: {', '.join(sorted(_KNOWN))})")
    preset = data.get("preset", _DEFAULTS["preset"].default)
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ConfigError(f"preset: no preset {preset!r}; choose one of {', '.join(PRESETS)}")
    schedule = data.get("schedule", _DEFAULTS["schedule"].default)
    if schedule not in ("round-robin", "gauntlet"):
        raise ConfigError(f'schedule: must be "round-robin" or "gauntlet", not {schedule!r}')
    numbers = {
        name: _int(data, name)
        for name in ("hands", "deals", "concurrency", "decision_ms", "bank_ms", "max_strikes")
    }
    numbers["first_deal"] = _int(data, "first_deal")
    connect_timeout = data.get("connect_timeout", _DEFAULTS["connect_timeout"].default)
    if (
        not isinstance(connect_timeout, int | float)
        or isinstance(connect_timeout, bool)
        or connect_timeout <= 0
    ):
        raise ConfigError(
            f"connect_timeout: must be a positive number of seconds, not {connect_timeout!r}"
        )
    bots_table = data.get("bots")
    if not isinstance(bots_table, dict) or not bots_table:
        raise ConfigError("bots: add at least two [bots.NAME] tables with a command")
    bots = []
    for name, spec in bots_table.items():
        if not isinstance(spec, dict):
            raise ConfigError(f"bots.{name}: must be a table with a command")
        extra = sorted(set(spec) - _BOT_KEYS)
        if extra:
            known = ", ".join(sorted(_BOT_KEYS))
            raise ConfigError(f"bots.{name}.{extra[0]}: unknown key (known: {known})")
        if ("command" in spec) == ("token" in spec):
            raise ConfigError(
                f"bots.{name}: give a command (the arena starts the bot) or a token (the bot "
                "connects by itself), not both or neither"
            )
        if "token" in spec:
            token = spec["token"]
            if not isinstance(token, str) or len(token) < 8:
                raise ConfigError(f"bots.{name}.token: must be a string of at least 8 characters")
            if "fresh" in spec or "processes" in spec:
                key = "fresh" if "fresh" in spec else "processes"
                raise ConfigError(
                    f"bots.{name}.{key}: only for a bot the arena starts (a command); an "
                    "external bot runs its own processes"
                )
            bots.append(BotSpec(name, token=token))
            continue
        command = spec.get("command")
        if isinstance(command, str):
            parts = tuple(shlex.split(command))
        elif isinstance(command, list) and all(isinstance(p, str) for p in command):
            parts = tuple(command)
        else:
            raise ConfigError(f"bots.{name}.command: must be a string or a list of strings")
        if not parts:
            raise ConfigError(f"bots.{name}.command: is empty")
        fresh = spec.get("fresh", False)
        if not isinstance(fresh, bool):
            raise ConfigError(f"bots.{name}.fresh: must be true or false, not {fresh!r}")
        processes = spec.get("processes")
        if processes is not None and (
            not isinstance(processes, int) or isinstance(processes, bool) or processes < 2
        ):
            raise ConfigError(
                f"bots.{name}.processes: must be a whole number of at least 2 (partners are "
                f"two processes), not {processes!r}"
            )
        if fresh and processes is not None:
            raise ConfigError(
                f"bots.{name}: fresh = true starts one process per seat and game; drop "
                "processes, or fresh"
            )
        bots.append(BotSpec(name, parts, fresh=fresh, processes=processes))
    if len(bots) < 2:
        raise ConfigError("bots: a tournament needs at least two bots")
    gauntlet = data.get("gauntlet")
    if schedule == "gauntlet" and gauntlet not in bots_table:
        raise ConfigError(
            f"gauntlet: name the bot that meets all others (one of {', '.join(bots_table)})"
        )
    database = Path(str(data.get("database", _DEFAULTS["database"].default)))
    replays = data.get("replays")
    return TournamentConfig(
        preset=preset,
        schedule=schedule,
        gauntlet=gauntlet if schedule == "gauntlet" else None,
        database=database if database.is_absolute() else base / database,
        replays=None if replays is None else base / str(replays),
        bots=tuple(bots),
        connect_timeout=float(connect_timeout),
        folder=base,
        **numbers,
    )


def load_config(path: Path, overrides: Mapping[str, Any] | None = None) -> TournamentConfig:
    """Read and check a tournament config file; ``overrides`` replace its top-level keys (the
    command line's ``--deals`` and the like) and are checked the same way."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    data = _renamed(data)
    data.update(overrides or {})
    return parse_config(data, path.parent)
