"""A ladder's config: a small TOML file, read and checked with the key and the reason.

```toml
name = "Our class's ladder"
preset = "classic"
hands = 1
address = "0.0.0.0:50061"        # where resident bots connect (gRPC)
web = "127.0.0.1:8061"           # the pages
storage = "ladder.sqlite"         # beside this file; or a PostgreSQL URL
rungs = ["random", "heuristic"]   # reference bots, hosted; all but random pinned at their Elo

[bots.montecarlo]                 # a hosted bot: a command the ladder starts
command = "python3 -m chaodipi.sample_bots.mc_bot --budget-ms 200"
```

Every top-level key, its default and its meaning is in :data:`KEYS`, the one place they are
written (``arena ladder serve --help`` prints them from there). Resident bots are not in the
config: the operator adds them to the running ladder (``arena ladder add NAME``), and they
connect with the token that writes. A hosted bot's version is its command: change the command
and the ladder starts a new version of the bot (the old one keeps its history and leaves the
schedule). A hosted Python callable (``command = "py:package.module:decide"``) needs
``trusted = true`` beside it, the operator's word that it is theirs; it is played as a process
of its own, as every hosted command.

A PostgreSQL URL names no password: give it to libpq the usual way (``~/.pgpass`` or
``$PGPASSWORD``), never in a file others may read or on a command line.

>>> config = parse_ladder({"rungs": ["heuristic"], "bots": {"mine": {"command": "./mine"}}},
...                       Path("/srv/class"))
>>> config.storage, [bot.name for bot in config.hosted]
('ladder.sqlite', ['heuristic', 'mine'])
>>> config.pinned("heuristic")
0.0
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from chaodipi.arena.errors import ConfigError
from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE
from chaodipi.arena.tournament import RUNGS, BotSpec, TournamentConfig, command_parts
from chaodipi.engine import PRESETS

__all__ = ["KEYS", "HostedBot", "LadderConfig", "LadderKey", "load_ladder", "parse_ladder"]

KeyKind = Literal["text", "whole", "number", "share", "preset", "address", "rungs", "file"]


@dataclass(frozen=True, slots=True)
class LadderKey:
    """A top-level key: its default, what it means, the kind of value it takes and, for a
    number, the least it may be."""

    name: str
    default: Any
    help: str
    kind: KeyKind = "whole"
    minimum: float | None = None


KEYS: tuple[LadderKey, ...] = (
    LadderKey("name", "Ladder", "the ladder's name, on its pages", "text"),
    LadderKey("preset", "classic", "the rules: see `arena presets`", "preset"),
    LadderKey("hands", 1, "hands per game; 0 plays whole matches", minimum=0),
    LadderKey("decision_ms", 1000, "time per decision", minimum=10),
    LadderKey("bank_ms", 30_000, "time bank per seat and game", minimum=0),
    LadderKey("max_strikes", 3, "timeouts before a forfeit", minimum=1),
    LadderKey("address", "127.0.0.1:50061", "where resident bots connect (gRPC)", "address"),
    LadderKey("web", "127.0.0.1:8061", 'where the pages are served ("": no pages)', "address"),
    LadderKey(
        "storage", "ladder.sqlite", "a SQLite file beside this config, or a PostgreSQL URL", "text"
    ),
    LadderKey(
        "tls_cert",
        "",
        "a PEM certificate (beside this config): bots connect over TLS and the pages are "
        "HTTPS; with tls_key",
        "file",
    ),
    LadderKey("tls_key", "", "the certificate's PEM private key (readable by you only)", "file"),
    LadderKey("concurrency", 2, "pairs played at once (each is two tables)", minimum=1),
    LadderKey(
        "rungs",
        [],
        f"reference bots hosted by the ladder, of {', '.join(r.name for r in RUNGS)}: each but "
        "random pinned at its bench Elo",
        "rungs",
    ),
    LadderKey(
        "rematch_minutes",
        60,
        "no rematch within this time unless nothing else is free",
        "number",
        0,
    ),
    LadderKey("refit_minutes", 5, "how often the order-free refit is published", "number", 0.1),
    LadderKey(
        "provisional_width",
        100,
        "a rating is provisional while its 95 % interval is wider than ± this (Elo)",
        "number",
        1,
    ),
    LadderKey(
        "fault_rate",
        0.25,
        "a version is paused once more than this share of its games had a fault",
        "share",
    ),
    LadderKey("fault_games", 8, "games a version plays before its fault rate counts", minimum=1),
    LadderKey("sessions_per_bot", 16, "the most sessions a resident bot may hold", minimum=4),
    LadderKey("tables_per_bot", 16, "the most tables a bot plays at once", minimum=2),
    LadderKey(
        "connect_timeout", 30, "seconds a seat has to connect; then its game is void", "number", 1
    ),
    LadderKey(
        "ray", "", "a Ray cluster for the hosted bots' tables (auto, local, HOST:PORT)", "text"
    ),
)
"""Every top-level key but ``bots``, in the order the help lists them."""

_DEFAULTS = {key.name: key for key in KEYS}
_KNOWN = {*_DEFAULTS, "bots"}
_BOT_KEYS = {"command", "processes", "trusted"}


@dataclass(frozen=True, slots=True)
class HostedBot:
    """A bot the ladder starts: a rung, or a config's ``[bots.NAME]``."""

    name: str
    command: tuple[str, ...]
    rung: bool = False
    processes: int | None = None

    @property
    def label(self) -> str:
        """The version's label: its command as one line."""
        return shlex.join(self.command)


@dataclass(frozen=True, slots=True)
class LadderConfig:
    name: str
    preset: str
    hands: int
    decision_ms: int
    bank_ms: int
    max_strikes: int
    address: str
    web: str
    storage: str
    concurrency: int
    rungs: tuple[str, ...]
    rematch_minutes: float
    refit_minutes: float
    provisional_width: float
    fault_rate: float
    fault_games: int
    sessions_per_bot: int
    tables_per_bot: int
    connect_timeout: float
    ray: str
    tls_cert: str
    tls_key: str
    bots: tuple[HostedBot, ...]
    folder: Path = Path()
    """The config file's folder: where relative paths start and hosted commands run."""

    @property
    def tls(self) -> tuple[Path, Path] | None:
        """The certificate and key files, when the ladder serves over TLS."""
        if not self.tls_cert:
            return None
        return (self.folder / self.tls_cert, self.folder / self.tls_key)

    @property
    def hosted(self) -> tuple[HostedBot, ...]:
        """The rungs, then the config's bots."""
        commands = {r.name: r.command for r in RUNGS}
        rungs = tuple(
            HostedBot(name, tuple(shlex.split(commands[name])), rung=True) for name in self.rungs
        )
        return rungs + self.bots

    def pinned(self, name: str) -> float | None:
        """A rung's bench Elo, where the ladder pins it (None: not pinned)."""
        if name not in self.rungs:
            return None
        return next(r.elo for r in RUNGS if r.name == name)

    def table_settings(self) -> TournamentConfig:
        """What every game's table takes from the ladder (its bots come and go)."""
        return TournamentConfig(
            preset=self.preset,
            hands=self.hands,
            deals=1,
            concurrency=2 * self.concurrency,
            schedule="round-robin",
            gauntlet=None,
            decision_ms=self.decision_ms,
            bank_ms=self.bank_ms,
            max_strikes=self.max_strikes,
            database=self.folder / "ladder.sqlite",
            replays=None,
            first_deal=1,
            bots=(),
            connect_timeout=self.connect_timeout,
            folder=self.folder,
        )

    def spec(self, name: str, label: str) -> BotSpec:
        """A hosted bot's version as the pools play it, under the version's ``name``: its
        command is its ``label`` (:attr:`HostedBot.label`); the config's ``processes`` for the
        bot, if it names it."""
        base = name.rpartition("@")[0]
        bot = next((b for b in self.bots if b.name == base), None)
        processes = None if bot is None else bot.processes
        return BotSpec(name, tuple(shlex.split(label)), processes=processes)


def load_ladder(path: Path) -> LadderConfig:
    """Read and check the ladder's config file (a :class:`ConfigError` naming the key)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"cannot read the ladder's config {path}: {err.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    try:
        return parse_ladder(data, path.resolve().parent)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def parse_ladder(data: Mapping[str, Any], folder: Path) -> LadderConfig:
    """Check a parsed TOML table; ``folder`` is where relative paths start."""
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown key (known: {', '.join(sorted(_KNOWN))})")
    values = {key.name: _value(key, data.get(key.name, key.default)) for key in KEYS}
    if bool(values["tls_cert"]) != bool(values["tls_key"]):
        raise ConfigError(
            "tls_cert, tls_key: give both (TLS for the bots and the pages) or neither"
        )
    for name in ("tls_cert", "tls_key"):
        if values[name] and not (folder / values[name]).is_file():
            raise ConfigError(f"{name}: no file {folder / values[name]}")
    for name in values["rungs"]:
        played = next(r for r in RUNGS if r.name == name).presets()
        if values["preset"] not in played:
            raise ConfigError(
                f"rungs: {name} plays a model trained on one preset and has none for "
                f"{values['preset']} (it has one for: {', '.join(played) or 'none'}): leave it out"
            )
    bots = _bots(data.get("bots", {}), set(values["rungs"]))
    return LadderConfig(**values, bots=bots, folder=folder)


def _value(key: LadderKey, value: Any) -> Any:
    name = key.name
    match key.kind:
        case "text" | "file":
            if not isinstance(value, str):
                raise ConfigError(f"{name}: must be a string, not {value!r}")
            return value
        case "whole":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{name}: must be a whole number, not {value!r}")
            if key.minimum is not None and value < key.minimum:
                raise ConfigError(f"{name}: must be at least {key.minimum:g}, not {value}")
            return value
        case "number":
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ConfigError(f"{name}: must be a number, not {value!r}")
            if key.minimum is not None and value < key.minimum:
                raise ConfigError(f"{name}: must be at least {key.minimum:g}, not {value}")
            return float(value)
        case "share":
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 1:
                raise ConfigError(f"{name}: must be a share above 0 and at most 1, not {value!r}")
            return float(value)
        case "preset":
            if not isinstance(value, str) or value not in PRESETS:
                raise ConfigError(
                    f"{name}: no preset {value!r}; choose one of {', '.join(PRESETS)}"
                )
            return value
        case "address":
            if name == "web" and value == "":
                return value
            if not isinstance(value, str) or value.rpartition(":")[2] == "":
                raise ConfigError(f"{name}: must be HOST:PORT, not {value!r}")
            return value
        case "rungs":
            known = [r.name for r in RUNGS]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{name}: must be a list of rung names ({', '.join(known)})")
            for rung in value:
                if rung not in known:
                    raise ConfigError(f"{name}: no rung {rung!r}; choose of {', '.join(known)}")
            if len(set(value)) != len(value):
                raise ConfigError(f"{name}: a rung is named twice")
            return tuple(value)


def _bots(table: Any, rungs: set[str]) -> tuple[HostedBot, ...]:
    if not isinstance(table, dict):
        raise ConfigError("bots: must be tables [bots.NAME] with a command")
    bots = []
    for name, spec in table.items():
        if not BOT_NAME.fullmatch(name) or "@" in name:
            raise ConfigError(f"bots.{name!r}: {BOT_NAME_RULE}")
        if name in rungs:
            raise ConfigError(f"bots.{name}: is a rung's name; give the bot another")
        if not isinstance(spec, dict):
            raise ConfigError(f"bots.{name}: must be a table with a command")
        extra = sorted(set(spec) - _BOT_KEYS)
        if extra:
            raise ConfigError(
                f"bots.{name}.{extra[0]}: unknown key (known: {', '.join(sorted(_BOT_KEYS))}; a "
                "bot that connects by itself is added with `arena ladder add NAME`)"
            )
        parts = command_parts(name, spec.get("command"))
        _check_callable(name, parts, spec.get("trusted", False))
        processes = spec.get("processes")
        if processes is not None and (
            not isinstance(processes, int) or isinstance(processes, bool) or processes < 4
        ):
            raise ConfigError(
                f"bots.{name}.processes: must be a whole number of at least 4 (a pair seats "
                f"four copies of a bot), not {processes!r}"
            )
        bots.append(HostedBot(name, parts, processes=processes))
    return tuple(bots)


def _check_callable(name: str, command: tuple[str, ...], trusted: object) -> None:
    """A hosted ``py:MODULE:NAME`` command is played only when the operator says the bot is
    trusted (``trusted = true``), and then as a process of its own, as every hosted command
    (:meth:`BotSpec.argv`): never in-process beside the ladder's tables."""
    if not isinstance(trusted, bool):
        raise ConfigError(f"bots.{name}.trusted: must be true or false, not {trusted!r}")
    if not trusted and BotSpec(name, command).callable is not None:
        raise ConfigError(
            f"bots.{name}.command: {command[0]} is a Python callable, which the ladder plays "
            f"only for a bot you trust: add trusted = true to [bots.{name}] (it is played as a "
            "process of its own; docs/trust.md)"
        )
