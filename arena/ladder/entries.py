"""The ladder's values: a bot (:class:`Bot`), each of its versions (:class:`Version`, what is
rated) and a pair (:class:`Pair`, the unit a rating moves by).

A bot is a name with a way in: **resident** (it connects itself with a token the operator
issued), **hosted** (a command the ladder starts) or a **rung** (a hosted reference bot whose
rating is pinned at its bench Elo). Its versions are numbered from 1 in the order the ladder
first saw them: ``alice@2`` is alice's second version, the name its games and pages use.

>>> Version(3, 1, "alice", 2, "v2", VersionState.ACTIVE, 0.0).name
'alice@2'
>>> VersionState.ACTIVE.scheduled, VersionState.FAILED.scheduled
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = [
    "Bot",
    "BotKind",
    "Pair",
    "PairKind",
    "PairState",
    "Version",
    "VersionState",
    "version_name",
]


class BotKind(Enum):
    """How a bot comes to the ladder."""

    RESIDENT = "resident"
    """It connects itself over the contract with its token (``arena ladder add NAME``)."""
    HOSTED = "hosted"
    """A command in the ladder's config, which the ladder starts as ``arena run`` does."""
    RUNG = "rung"
    """A reference rung (``arena bench``'s ladder), hosted, its rating pinned."""


class VersionState(Enum):
    """Where a version stands."""

    VALIDATING = "validating"
    """New: four copies of it play one secret deal before it is rated."""
    ACTIVE = "active"
    """Rated and scheduled."""
    FAILED = "failed"
    """Its validation game failed (the reason and its stderr are kept): never scheduled; a new
    version may come."""
    PAUSED = "paused"
    """Kept out of the schedule: too many faults, or the operator paused its bot."""
    SUPERSEDED = "superseded"
    """A newer version of its bot came: it keeps its history and leaves the schedule."""
    RETIRED = "retired"
    """Its bot was retired by the operator."""

    @property
    def scheduled(self) -> bool:
        """Whether the matchmaking may give it a pair."""
        return self is VersionState.ACTIVE


class PairKind(Enum):
    """Why a pair (or a validation game) was played."""

    VALIDATION = "validation"
    """One game, four copies of one version on a secret deal."""
    RATED = "rated"
    """Two versions on one deal, twice, the seats swapped: it moves both ratings."""
    FINAL = "final"
    """A rated pair of the season's final schedule."""


class PairState(Enum):
    """Where a pair stands."""

    PLAYING = "playing"
    DONE = "done"
    """Both games ended with a result: rated (a validation game: judged)."""
    VOID = "void"
    """A game of it is no result (a bot never took its seat): stored, never rated."""
    ABANDONED = "abandoned"
    """The ladder stopped while it played: its deal is never dealt again and nothing is rated."""


def version_name(bot: str, number: int) -> str:
    """A version's name on the pages and in its games: ``alice@2``."""
    return f"{bot}@{number}"


@dataclass(frozen=True, slots=True)
class Bot:
    """A bot on the ladder (its token is kept only as a digest)."""

    id: int
    name: str
    kind: BotKind
    created_at: float
    paused: str | None = None
    """Why the operator paused it (None: not paused)."""
    retired: bool = False
    command: str | None = None
    """A hosted bot's command as the config gives it."""
    max_sessions: int | None = None
    """The most sessions its token may hold at once (None: the ladder's default)."""
    max_tables: int | None = None
    """The most tables it may play at once (None: the ladder's default)."""
    token_digest: str | None = None
    """A resident bot's token's SHA-256 (the token itself is never stored)."""


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a bot: what is rated."""

    id: int
    bot_id: int
    bot: str
    number: int
    """1 for the bot's first version, 2 for the next, ..."""
    label: str
    """What the bot calls it (a resident's ``bot_version``; a hosted bot's command)."""
    state: VersionState
    created_at: float
    reason: str = ""
    """Why it failed or is paused."""
    detail: str = ""
    """What shows it: the tail of its stderr, or the message the arena refused."""
    pinned_elo: float | None = None
    """A rung's bench Elo, which its rating stays at."""

    @property
    def name(self) -> str:
        return version_name(self.bot, self.number)


@dataclass(frozen=True, slots=True)
class Pair:
    """A pair (or a validation game): its id is its deal number."""

    id: int
    kind: PairKind
    version_a: int
    version_b: int
    state: PairState
    started_at: float
    finished_at: float | None = None
    score_a: float | None = None
    """Version A's pair score, the mean of its two games' scores (0, ¼, ½, ¾, 1); a validation
    game's is None."""
    reason: str = ""
    """Why it is void or abandoned; a validation game's verdict."""

    @property
    def deal(self) -> int:
        return self.id
