"""What the running ladder's parts share: a scheduled version (:class:`Entry`), and what each
part may use of the ladder (:class:`Core`), which :class:`~chaodipi.arena.ladder.service.Ladder`
is. The parts: :mod:`~chaodipi.arena.ladder.service` runs it and schedules,
:mod:`~chaodipi.arena.ladder.playing` plays its pairs, :mod:`~chaodipi.arena.ladder.operating`
holds the operator's actions, the season and the refit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from chaodipi.arena.deals import DealKey
from chaodipi.arena.ladder.config import LadderConfig
from chaodipi.arena.ladder.entries import Bot, Version
from chaodipi.arena.ladder.live import Live
from chaodipi.arena.ladder.on_ray import RayTables
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.store import Store
from chaodipi.arena.serving import ArenaServer, Door
from chaodipi.arena.tournament import BotSpec, Games, Instances

__all__ = ["SEATS_PER_PAIR", "Core", "Entry"]

T = TypeVar("T")

SEATS_PER_PAIR = 4
"""A pair (and a validation game) seats four copies of each of its versions, each in a process
of its own that never sees another seat of the deal."""


@dataclass(slots=True)
class Entry:
    """A version the ladder may play now: its bot, its pool's spec, its live rating."""

    version: Version
    bot: Bot
    rating: LiveRating
    spec: BotSpec
    pairs_played: int = 0
    last_played: float | None = None
    in_flight: int = 0
    """Its pairs (or validation game) playing now."""
    reserved: int = 0
    """Seats promised to games it starts that are not taken from its pool yet."""
    external: bool = False
    """A resident version: its processes are its owner's."""


class Core(Protocol):
    """The ladder as its parts see it: its settings and store, what is scheduled, and the
    few things every part does (a store call off the loop, telling the scheduler something
    changed, a version leaving the schedule, a version's state told to the pages)."""

    config: LadderConfig
    store: Store
    live: Live
    clock: Callable[[], float]
    ray: RayTables | None
    _entries: dict[int, Entry]
    _bots: dict[int, Bot]
    _doors: dict[int, Door]
    _labels: dict[int, set[str]]
    _met: dict[frozenset[str], float]
    _final_left: Counter[int] | None
    _playing: int
    _final_playing: int
    _server: ArenaServer | None
    _games: Games | None
    _deal_key: DealKey | None

    @property
    def _instances(self) -> Instances: ...

    async def _db(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T: ...

    def _change(self) -> None: ...

    def _leave(self, entry: Entry) -> None: ...

    def _enter(self, version: Version, bot: Bot, rating: LiveRating | None) -> Entry: ...

    def _open_door(self, bot: Bot) -> None: ...

    def _announce(self, version: Version) -> None: ...

    # the season's, which playing reads (chaodipi.arena.ladder.operating)
    def _schedulable_final(self) -> bool: ...

    async def _season_over(self) -> None: ...

    async def refit(self) -> None: ...
