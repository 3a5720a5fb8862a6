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
written: ``arena run`` makes an option of each, ``--deals`` or ``-n`` for ``deals``, and its
``--help`` prints them from there; the file is optional, its bots may come from ``--bot
NAME=COMMAND``, :func:`load_config`); ``seeds`` and ``seed_base``, the names of
``deals`` and ``first_deal`` before, are still read, with a :class:`ConfigDeprecation` warning.
A bot's name (``[bots.NAME]``, ``--bot NAME=…``) is letters, digits and ``_.+-`` only
(:data:`chaodipi.arena.results.BOT_NAME`, the one rule for names wherever they come from, a
results database too): it names files and games.

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
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from chaodipi.arena.errors import ConfigError
from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE, GameKey
from chaodipi.arena.tournament.deal_sets import (
    STANDARD,
    DealSetError,
    check_covers,
    load_deal_set,
    resolve_deal_set,
    standard_set_path,
)
from chaodipi.engine import PRESETS

__all__ = [
    "KEYS",
    "MEANING",
    "RENAMED",
    "SCHEDULES",
    "TRANSPORTS",
    "BotSpec",
    "ConfigDeprecation",
    "DealSetRef",
    "Key",
    "TournamentConfig",
    "config_help",
    "from_record",
    "load_config",
    "pairings",
    "parse_config",
    "resume_refusal",
    "schedule",
    "unplayed",
]


KeyKind = Literal[
    "whole", "seconds", "preset", "schedule", "name", "file", "folder", "deal_set", "transport"
]
"""What a key's value is: a whole number (from ``minimum``), a positive number of seconds, a
preset's name, a schedule, a bot's name, the path of a file or a folder, a deal set (a
file, or ``standard``), or a transport."""


@dataclass(frozen=True, slots=True)
class Key:
    """A top-level config key: its default (``None``: unset), what it means, what kind of
    value it takes (for a whole number, the least one), and its short option on the command
    line, if it has one. ``arena run`` takes every key as an option, ``--`` and the name with
    dashes (:attr:`flag`)."""

    name: str
    default: str | int | float | None
    help: str
    kind: KeyKind = "whole"
    minimum: int | None = None
    short: str | None = None

    @property
    def flag(self) -> str:
        """The command line's option for this key.

        >>> KEYS[3].flag
        '--first-deal'
        """
        return "--" + self.name.replace("_", "-")


KEYS: tuple[Key, ...] = (
    Key("preset", "classic", "the rules: see `arena presets`", "preset", short="-p"),
    Key("hands", 4, "hands per game; 0 plays whole matches", minimum=0),
    Key("deals", 10, "deals, each played twice (seats swapped)", minimum=1, short="-n"),
    Key("first_deal", 1, "the first deal's number", minimum=0),
    Key("concurrency", 4, "games at once", minimum=1, short="-j"),
    Key("schedule", "round-robin", 'or "gauntlet", with gauntlet = "NAME"', "schedule"),
    Key("gauntlet", None, 'with schedule = "gauntlet": the bot that meets all others', "name"),
    Key("decision_ms", 1000, "time per decision", minimum=10),
    Key("bank_ms", 30_000, "time bank per seat and game", minimum=0),
    Key("max_strikes", 3, "timeouts before a forfeit", minimum=1),
    Key("database", "results.sqlite", "the results file, beside the config", "file", short="-d"),
    Key(
        "replays",
        None,
        "a folder for each game's record file, <game>.jsonl, besides the database "
        "(relative to the config file; docs/game-record.md)",
        "folder",
    ),
    Key("connect_timeout", 10, "seconds a bot has to connect; then its game is void", "seconds"),
    Key(
        "transport",
        "local",
        'how command bots reach the arena: "local", a socket pair each process inherits '
        '($ARENA_LOCAL; bots that do not speak it use gRPC), or "grpc" only',
        "transport",
    ),
    Key(
        "workers",
        None,
        "worker processes for the games between in-process bots (py:MODULE:NAME); 0 plays "
        "such bots as processes instead (default: one per core, at most concurrency)",
        minimum=0,
    ),
    Key(
        "deals_file",
        None,
        "play a public deal set's deals (docs/deal-sets.md) instead of a secret key's: a file, "
        "or standard for the preset's shipped set",
        "deal_set",
    ),
)
"""Every top-level key but ``bots``, in the order the help lists them."""

SCHEDULES = ("round-robin", "gauntlet")
"""The values of ``schedule``."""

TRANSPORTS = ("local", "grpc")
"""The values of ``transport``: command bots are given a local link as well as the gRPC address
(:mod:`chaodipi.arena.serving.local`), or the address only."""

MEANING = ("preset", "hands", "decision_ms", "bank_ms", "max_strikes")
"""The keys that change what a stored game's result means: ``--resume`` refuses to change
them. The others only add games (``deals``, ``first_deal``, ``schedule``, ``gauntlet``, a
new bot) or say how they are played (``concurrency``, ``connect_timeout``, ``transport``,
where files go)."""

_HOW_PLAYED = (
    "concurrency",
    "database",
    "replays",
    "connect_timeout",
    "folder",
    "transport",
    "workers",
)
"""The fields of a config that say how its games are played, not what: not fingerprinted."""

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

IN_PROCESS = "py:"
"""What a command that names an in-process bot begins with: ``py:MODULE:NAME``."""


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

    @property
    def callable(self) -> str | None:
        """``MODULE:NAME`` for an in-process bot (its command ``py:MODULE:NAME``), else None."""
        if len(self.command) == 1 and self.command[0].startswith(IN_PROCESS):
            return self.command[0].removeprefix(IN_PROCESS)
        return None

    def argv(self) -> tuple[str, ...]:
        """The command to start: a leading ``python3`` (or ``python``) becomes the arena's own
        interpreter, ``sys.executable``; an in-process bot played as a process is the SDK's
        program for it (:mod:`chaodipi.bot.callables`).

        >>> BotSpec("b", ("python3", "-m", "bot")).argv()[0] == sys.executable
        True
        >>> BotSpec("b", ("/usr/bin/python3", "bot.py")).argv()[0]
        '/usr/bin/python3'
        >>> BotSpec("b", ("py:mine:decide",)).argv()[1:]
        ('-m', 'chaodipi.bot.callables', 'mine:decide')
        """
        if self.callable is not None:
            return (sys.executable, "-m", "chaodipi.bot.callables", self.callable)
        if self.command and self.command[0] in PYTHON_NAMES:
            return (sys.executable, *self.command[1:])
        return self.command


@dataclass(frozen=True, slots=True)
class DealSetRef:
    """Which deal set a run plays: its file, and what identifies it (name and SHA-256: a run's
    stored config keeps these, so ``--resume`` and the report say which set was played)."""

    path: Path
    name: str
    sha256: str

    def identity(self) -> dict[str, str]:
        return {"name": self.name, "sha256": self.sha256}


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
    deal_set: DealSetRef | None = None
    """The public deal set played instead of the database's secret key (``deals_file``)."""
    transport: str = "local"
    """How command bots reach the arena (:data:`TRANSPORTS`)."""
    workers: int | None = None
    """Worker processes for games between in-process bots (None: one per core; 0: none, such
    bots play as processes)."""

    def pairings(self) -> list[tuple[str, str]]:
        """The pairs of bots that meet, in a fixed order."""
        return pairings([b.name for b in self.bots], self.schedule, self.gauntlet)

    def fingerprint(self) -> str:
        """What must not change for ``--resume`` to continue this tournament. Keys keep the
        names they had when databases began to store this (``seeds``, ``seed_base``), so that a
        database written then is still resumed."""
        key = {
            {"deals": "seeds", "first_deal": "seed_base"}.get(k, k): v
            for k, v in asdict(self).items()
            if k not in _HOW_PLAYED
            and not (k == "deal_set" and v is None)  # as before deal sets existed
        }
        # how a bot's processes are run does not change what is played
        key["bots"] = [{"name": b.name, "command": b.command, "token": b.token} for b in self.bots]
        return hashlib.sha256(json.dumps(key, default=str, sort_keys=True).encode()).hexdigest()[
            :16
        ]

    def record(self) -> dict[str, Any]:
        """The config as the results database keeps it (JSON): every key, each bot's command
        (an external bot's token is a secret: only that it has one), and the folder its
        commands ran in (``folder``, whole, as ``replays``: :func:`from_record` resumes from
        them wherever the next run starts).

        >>> config = load_config(None, {"hands": 2}, {"a": "./a", "b": "./b --fast"})
        >>> record = config.record()
        >>> record["hands"], record["bots"][1]
        (2, {'name': 'b', 'command': ['./b', '--fast'], 'fresh': False, 'processes': None})
        >>> Path(record["folder"]) == Path.cwd()
        True
        """
        record: dict[str, Any] = {
            key.name: getattr(self, key.name) for key in KEYS if key.name != "deals_file"
        }
        record["database"] = str(self.database)
        record["replays"] = None if self.replays is None else str(self.replays.absolute())
        record["folder"] = str(self.folder.absolute())
        record["deals_file"] = None if self.deal_set is None else self.deal_set.identity()
        record["bots"] = [
            {"name": b.name, "token": True}
            if b.token is not None
            else {
                "name": b.name,
                "command": list(b.command),
                "fresh": b.fresh,
                "processes": b.processes,
            }
            for b in self.bots
        ]
        return record


def pairings(names: list[str], schedule: str, gauntlet: str | None) -> list[tuple[str, str]]:
    """The pairs of bots that meet, in a fixed order: the first of a pair is its ``bot_a``
    (in a round-robin the one named first, in a gauntlet the gauntlet bot).

    >>> pairings(["a", "b", "c"], "round-robin", None)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> pairings(["a", "b", "c"], "gauntlet", "c")
    [('c', 'a'), ('c', 'b')]
    """
    if schedule == "gauntlet":
        assert gauntlet is not None
        return [(gauntlet, other) for other in names if other != gauntlet]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def resume_refusal(stored: Mapping[str, Any], config: TournamentConfig) -> str | None:
    """Why ``config`` cannot go on with the games of ``stored`` (a :meth:`record`), naming
    the key; None when it may: it keeps every key of :data:`MEANING` and every stored bot (with
    its command), and may add deals, bots and pairings.

    >>> old = load_config(None, {"deals": 2}, {"a": "./a", "b": "./b"}).record()
    >>> resume_refusal(old, load_config(None, {"deals": 9}, {"a": "./a", "b": "./b", "c": "./c"}))
    >>> print(resume_refusal(old, load_config(None, {"hands": 1}, {"a": "./a", "b": "./b"})))
    ... # doctest: +ELLIPSIS
    hands: the stored games were played with hands = 4, this run has 1; that changes ...
    """
    now = config.record()
    was, set_now = stored.get("deals_file"), now["deals_file"]
    if (was or {}).get("sha256") != (set_now or {}).get("sha256"):

        def said(identity: Any) -> str:
            return "a secret key" if identity is None else f"the deal set {identity['name']}"

        return (
            f"deals_file: the stored games were dealt from {said(was)}, this run from "
            f"{said(set_now)}; the same deal numbers would be other cards: keep the same "
            "deals, or use another database file"
        )
    for name in MEANING:
        if name in stored and stored[name] != now[name]:
            return (
                f"{name}: the stored games were played with {name} = {stored[name]!r}, this "
                f"run has {now[name]!r}; that changes what their results mean: keep "
                f"{name} = {stored[name]!r}, or use another database file"
            )
    bots = {b["name"]: b for b in now["bots"]}
    for old in stored.get("bots", []):
        name = old["name"]
        if name not in bots:
            return (
                f"bots.{name}: the stored games include bot {name!r}: keep it in the "
                "tournament (the schedule decides whom it meets), or use another database file"
            )
        if old.get("command") != bots[name].get("command"):
            was = "an external bot" if "command" not in old else shlex.join(old["command"])
            return (
                f"bots.{name}.command: the stored games were played by {was}; a bot under the "
                "same name must be the same bot: give it another name, or use another "
                "database file"
            )
    names = [b["name"] for b in stored.get("bots", [])]
    before = set(pairings(names, stored.get("schedule", "round-robin"), stored.get("gauntlet")))
    for a, b in config.pairings():
        if (b, a) in before:  # the same pairing the other way round: its games again
            key = "gauntlet" if config.schedule == "gauntlet" else "bots"
            return (
                f"{key}: this run plays {a} vs {b}, which the stored games have as {b} vs {a} "
                f"(in a round-robin the bot named first is the first of a pairing, in a "
                f"gauntlet the gauntlet bot): name the bots in the stored order "
                f"({', '.join(names)}), or use another database file"
            )
    return None


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


def unplayed(config: TournamentConfig, done: Collection[GameKey]) -> list[GameKey]:
    """The games of the schedule, in its order, not among ``done`` (the games stored as
    results, :meth:`chaodipi.arena.results.database.ResultsDB.done`): what a run plays.

    >>> bots = (BotSpec("a", ("x",)), BotSpec("b", ("y",)))
    >>> config = parse_config({"deals": 1, "bots": {
    ...     "a": {"command": "x"}, "b": {"command": "y"}}}, Path("."))
    >>> unplayed(config, {GameKey("a", "b", 1, False)})
    [GameKey(bot_a='a', bot_b='b', deal=1, swapped=True)]
    """
    return [key for key in schedule(config) if key not in done]


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
    if schedule not in SCHEDULES:
        raise ConfigError(f'schedule: must be "round-robin" or "gauntlet", not {schedule!r}')
    numbers = {
        name: _int(data, name)
        for name in ("hands", "deals", "concurrency", "decision_ms", "bank_ms", "max_strikes")
    }
    numbers["first_deal"] = _int(data, "first_deal")
    workers = None if data.get("workers") is None else _int(data, "workers")
    connect_timeout = data.get("connect_timeout", _DEFAULTS["connect_timeout"].default)
    if (
        not isinstance(connect_timeout, int | float)
        or isinstance(connect_timeout, bool)
        or connect_timeout <= 0
    ):
        raise ConfigError(
            f"connect_timeout: must be a positive number of seconds, not {connect_timeout!r}"
        )
    transport = data.get("transport", _DEFAULTS["transport"].default)
    if transport not in TRANSPORTS:
        raise ConfigError(f'transport: must be "local" or "grpc", not {transport!r}')
    bots_table = data.get("bots")
    if not isinstance(bots_table, dict) or not bots_table:
        raise ConfigError("bots: add at least two [bots.NAME] tables with a command")
    bots = []
    for name, spec in bots_table.items():
        if not BOT_NAME.fullmatch(name):
            raise ConfigError(f"bots.{name!r}: {BOT_NAME_RULE}")
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
        parts = command_parts(name, spec.get("command"))
        if parts[0].startswith(IN_PROCESS):
            _check_in_process(name, parts)
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
    deal_set = _deal_set(data.get("deals_file"), base, preset, numbers)
    return TournamentConfig(
        preset=preset,
        schedule=schedule,
        gauntlet=gauntlet if schedule == "gauntlet" else None,
        database=database if database.is_absolute() else base / database,
        replays=None if replays is None else base / str(replays),
        bots=tuple(bots),
        connect_timeout=float(connect_timeout),
        folder=base,
        deal_set=deal_set,
        transport=str(transport),
        workers=workers,
        **numbers,
    )


def _check_in_process(name: str, parts: tuple[str, ...]) -> None:
    """An in-process bot's command is one word, ``py:MODULE:NAME`` (what it names is loaded
    where it plays: :func:`chaodipi.bot.load_bot`)."""
    from chaodipi.bot import parse_bot  # the SDK (and grpc) only when a config names one

    if len(parts) > 1:
        raise ConfigError(
            f"bots.{name}.command: an in-process bot is one word, py:MODULE:NAME, not "
            f"{shlex.join(parts)!r} (give its settings in the module, or a class per setting)"
        )
    try:
        parse_bot(parts[0].removeprefix(IN_PROCESS))
    except ValueError as err:
        raise ConfigError(f"bots.{name}.command: py:{err}") from None


def _deal_set(
    given: object, base: Path, preset: str, numbers: Mapping[str, int]
) -> DealSetRef | None:
    """The ``deals_file`` key's set, read and checked against the engine, covering every deal
    the run plays (None: no set, the secret key deals)."""
    if given is None:
        return None
    if not isinstance(given, str | Path) or not str(given):
        raise ConfigError(f'deals_file: must be a file name or "standard", not {given!r}')
    path = resolve_deal_set(given, preset)
    if not path.is_absolute():
        path = base / path
    try:
        deal_set = load_deal_set(path)
        first = numbers["first_deal"]
        check_covers(deal_set, preset, range(first, first + numbers["deals"]))
    except DealSetError as err:
        raise ConfigError(f"deals_file: {err}") from None
    return DealSetRef(path, deal_set.name, deal_set.sha256)


def from_record(stored: Mapping[str, Any], overrides: Mapping[str, Any]) -> TournamentConfig:
    """The config a stored run ran with (its :meth:`TournamentConfig.record`), for a run that
    resumes from the database alone: its bots, keys and folder, with ``overrides`` (the
    command line's keys, paths whole) winning. What the record cannot give back is refused,
    naming the key: an external bot's token (never stored), and a deal set's file when it is
    not the preset's shipped one (only its name and digest are stored).

    >>> config = load_config(None, {"hands": 2}, {"a": "./a", "b": "./b --fast"})
    >>> again = from_record(config.record(), {"deals": 20})
    >>> again.hands, again.deals, again.bots == config.bots, again.folder == Path.cwd()
    (2, 20, True, True)
    """
    data: dict[str, Any] = {
        RENAMED.get(name, name): value
        for name, value in stored.items()
        if RENAMED.get(name, name) in _DEFAULTS
    }
    bots: dict[str, Any] = {}
    for bot in stored.get("bots", []):
        name = bot["name"]
        if "command" not in bot:
            raise ConfigError(
                f"bots.{name}: an external bot's token is never stored, so this database alone "
                "cannot resume it: give the config file that names its token"
            )
        bots[name] = {"command": bot["command"], "fresh": bot.get("fresh", False)}
        if bot.get("processes") is not None:
            bots[name]["processes"] = bot["processes"]
    data["bots"] = bots
    identity = data.pop("deals_file", None)
    if identity is not None and "deals_file" not in overrides:
        data["deals_file"] = _shipped_set(identity, data.get("preset"))
    data.update(overrides)
    return parse_config(data, Path(str(stored.get("folder", "."))))


def _shipped_set(identity: Mapping[str, Any], preset: object) -> str:
    """``standard`` when a stored deal set (its name and digest) is the preset's shipped one;
    any other set's file is not in the database: refused, saying to give it."""
    try:
        shipped = load_deal_set(standard_set_path(str(preset))) if preset in PRESETS else None
    except (DealSetError, OSError):
        shipped = None
    if shipped is None or shipped.sha256 != identity.get("sha256"):
        raise ConfigError(
            f"deals_file: the stored games were dealt from the deal set {identity.get('name')}, "
            "whose file the database does not hold: give it with --deals-file FILE"
        )
    return STANDARD


def load_config(
    path: Path | None,
    overrides: Mapping[str, Any] | None = None,
    bots: Mapping[str, str] | None = None,
) -> TournamentConfig:
    """Read and check a tournament config file (None: no file, every key from ``overrides``
    or its default, bot commands run and relative paths start in the current folder);
    ``overrides`` replace its top-level keys (the command line's ``--deals`` and the like) and
    ``bots`` (name → command, the command line's ``--bot NAME=COMMAND``) add bots to its
    ``[bots]`` or replace those of the same name; both are checked the same way.

    >>> config = load_config(None, {"deals": 3}, {"a": "python3 a.py", "b": "./b"})
    >>> config.deals, [b.command for b in config.bots], config.database
    (3, [('python3', 'a.py'), ('./b',)], PosixPath('results.sqlite'))
    """
    data: dict[str, Any] = {}
    if path is not None:
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
    if bots:
        table = data.get("bots")
        data["bots"] = {
            **(table if isinstance(table, dict) else {}),
            **{name: {"command": command} for name, command in bots.items()},
        }
    elif "bots" not in data and path is None:
        raise ConfigError(
            "bots: name at least two, with --bot NAME=COMMAND (or in a config file's "
            "[bots.NAME] tables)"
        )
    return parse_config(data, Path() if path is None else path.parent)


def command_parts(name: str, command: object) -> tuple[str, ...]:
    """A config's ``bots.NAME.command``, a string (split as a shell would) or a list of
    strings, as its arguments; a :class:`ConfigError` naming the key otherwise.

    >>> command_parts("mine", "python3 my_bot.py --fast")
    ('python3', 'my_bot.py', '--fast')
    """
    if isinstance(command, str):
        parts = tuple(shlex.split(command))
    elif isinstance(command, list) and all(isinstance(p, str) for p in command):
        parts = tuple(command)
    else:
        raise ConfigError(f"bots.{name}.command: must be a string or a list of strings")
    if not parts:
        raise ConfigError(f"bots.{name}.command: is empty")
    return parts
