"""Tournament configuration: a small TOML file, read and checked with the key and the reason.

```toml
preset = "classic"          # arena presets lists them
hands = 4                   # hands per game; 0 plays whole matches
seeds = 20                  # deal seeds; each is played twice, the teams' seats swapped
concurrency = 4             # games at once
schedule = "round-robin"    # or "gauntlet" (with gauntlet = "NAME": that bot meets all others)
decision_ms = 1000
bank_ms = 30000
max_strikes = 3
database = "results.sqlite" # relative to the config file

[bots.random]
command = "python3 -m sample_bots.random_bot"   # or a list of arguments

[bots.heuristic]
command = ["python3", "-m", "sample_bots.heuristic_bot"]
```

A bot command is started as a small pool of long-lived processes, each with ``--address
ADDRESS`` appended (also in ``ARENA_ADDRESS``) and its session token in its environment only,
``ARENA_TOKEN`` (a command line is readable by every user of the machine, an environment by its
own user only): each opens a session and is offered seats game after game, never two seats of
one deal (:mod:`arena.pools`). ``processes = N`` caps a bot's pool (default: the seats it plays
on one deal, at most 16). ``fresh = true`` starts the command once per seat and game instead,
with ``--address ADDRESS`` and the seat's ticket in ``ARENA_TICKET``, for a bot that can play
only one game per process. A command runs in the config file's folder, with the arena's own
environment (its ``PATH`` included); a command whose first word is ``python3`` or ``python``
runs with the interpreter that runs the arena (so it has the project's packages), and any other
spelling (``/usr/bin/python3``, ``python3.12``) is kept.
A seat whose bot has not connected ``connect_timeout`` seconds after the game's start (default
10) was not played: its game is void, not a loss. A bot that runs elsewhere is declared with
``token = "a secret of 8+ characters"`` instead of a command: its processes connect to the
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
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.results import GameKey
from engine.presets import PRESETS

__all__ = [
    "BotSpec",
    "ConfigError",
    "TournamentConfig",
    "load_config",
    "parse_config",
    "schedule",
]

_KNOWN = {
    "preset",
    "hands",
    "seeds",
    "concurrency",
    "schedule",
    "gauntlet",
    "decision_ms",
    "bank_ms",
    "max_strikes",
    "database",
    "bots",
    "replays",
    "seed_base",
    "connect_timeout",
}

_BOT_KEYS = {"command", "token", "fresh", "processes"}

PYTHON_NAMES = ("python3", "python")
"""A bot command starting with one of these runs with the arena's own interpreter."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key and the reason."""


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
    seeds: int
    concurrency: int
    schedule: str
    gauntlet: str | None
    decision_ms: int
    bank_ms: int
    max_strikes: int
    database: Path
    replays: Path | None
    seed_base: int
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
        """What must not change for ``--resume`` to continue this tournament."""
        key = {
            k: v
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
    >>> config = TournamentConfig("classic", 1, 2, 1, "round-robin", None, 1000, 30000, 3,
    ...                           Path("r.sqlite"), None, 5, bots)
    >>> [(key.seed, key.swapped) for key in schedule(config)]
    [(5, 0), (5, 1), (6, 0), (6, 1)]
    """
    return [
        GameKey(a, b, config.seed_base + deal, swapped)
        for deal in range(config.seeds)
        for a, b in config.pairings()
        for swapped in (0, 1)
    ]


def _int(data: dict[str, Any], key: str, default: int, minimum: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{key}: must be a whole number, not {value!r}")
    if value < minimum:
        raise ConfigError(f"{key}: must be at least {minimum}, not {value}")
    return value


def parse_config(data: dict[str, Any], base: Path) -> TournamentConfig:
    """Check a parsed TOML table; ``base`` is where relative paths start."""
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown key (known: {', '.join(sorted(_KNOWN))})")
    preset = data.get("preset", "classic")
    if preset not in PRESETS:
        raise ConfigError(f"preset: no preset {preset!r}; choose one of {', '.join(PRESETS)}")
    schedule = data.get("schedule", "round-robin")
    if schedule not in ("round-robin", "gauntlet"):
        raise ConfigError(f'schedule: must be "round-robin" or "gauntlet", not {schedule!r}')
    numbers = {
        "hands": _int(data, "hands", 4, 0),
        "seeds": _int(data, "seeds", 10, 1),
        "concurrency": _int(data, "concurrency", 4, 1),
        "decision_ms": _int(data, "decision_ms", 1000, 10),
        "bank_ms": _int(data, "bank_ms", 30_000, 0),
        "max_strikes": _int(data, "max_strikes", 3, 1),
        "seed_base": _int(data, "seed_base", 1, 0),
    }
    connect_timeout = data.get("connect_timeout", 10)
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
    database = Path(str(data.get("database", "results.sqlite")))
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
    command line's ``--seeds`` and the like) and are checked the same way."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    data.update(overrides or {})
    return parse_config(data, path.parent)
