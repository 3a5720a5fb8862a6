"""Who plays whom next on the ladder: one pairing at a time among the versions that can start
a pair now (docs/ladder.md).

The way is Halite III's coordinator's (HaliteChallenge/Halite-III:
apiserver/apiserver/coordinator/matchmaking.py), for two-sided pairs:

1. **A seed**, by one of three rules (``SeedRule``) drawn with
   ``MatchmakingSettings.seed_odds`` (Halite's split of 65, 25 and 10 %): the fewest pairs
   (weight ``1 / (pairs + 1)``: a version with half the pairs of another is twice as likely),
   the most uncertain (weight σ², doubled while the version is provisional: newcomers and
   versions far from everyone), or the longest idle (never played first). Pinned rungs are
   seeds like any other version; their small fixed σ keeps the second rule off them.
2. **An opponent** near the seed's live Elo: the legal opponents ordered by Elo distance, a
   window of the ``int(5 / (0.01 + U)^0.65)`` nearest (U uniform on [0, 1): at least 4, 10
   or more a third of the time, 20 or more a tenth), one of them at random. The heavy tail
   lets a version meet far-off ones now and then, which links the ratings across the ladder.
3. **Legal**: both can start a pair now, they are not versions of one bot, and they have not
   met within ``MatchmakingSettings.rematch_s`` (an hour by default); that last rule is
   dropped only when no other pairing is possible.

It never leaves two free versions idle: if the seed has no legal opponent, the next seed in
the rule's order is tried; ``next_pairing`` returns None only when no two free versions of
different bots exist. The service calls it again for each pair it can start.

a0 and a1 are versions of one bot, and a0 met b1 a minute ago, so a1 meets b1:

>>> ladder = [
...     Candidate(version=v, bot=v[0], rating=LiveRating.newcomer(), pairs=0,
...               last_played=None, free=True, provisional=True)
...     for v in ("a0", "a1", "b1")
... ]
>>> met = {frozenset({"a0", "b1"}): 40.0}
>>> pairing = next_pairing(ladder, met, now=100.0, rng=random.Random(1))
>>> sorted([pairing.seed, pairing.opponent])
['a1', 'b1']
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import assert_never

from .ratings import LiveRating

__all__ = ["Candidate", "MatchmakingSettings", "Pairing", "SeedRule", "next_pairing"]


class SeedRule(Enum):
    """How a seed is chosen: each rule has its odds in ``MatchmakingSettings.seed_odds``."""

    FEWEST_PAIRS = "fewest pairs"
    """Weighted by ``1 / (pairs + 1)``."""
    UNCERTAIN = "uncertain"
    """Weighted by σ², doubled while provisional."""
    IDLE = "idle"
    """The longest idle first, never played before all."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One active version as matchmaking sees it.

    ``last_played`` is when its last pair was played, in seconds on the service's clock (the
    one ``now`` is read on), None if never; ``free`` whether it can start a pair now (the
    service knows its capacity and the tables'); ``provisional`` what
    ``ratings.provisional`` says of its latest rating.
    """

    version: str
    bot: str
    rating: LiveRating
    pairs: int
    last_played: float | None
    free: bool
    provisional: bool

    def __post_init__(self) -> None:
        if self.pairs < 0:
            raise ValueError(f"version {self.version} has played {self.pairs} pairs")


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two versions to play a pair: the seed and the opponent chosen for it."""

    seed: str
    opponent: str


@dataclass(frozen=True, slots=True)
class MatchmakingSettings:
    """How matchmaking chooses (the ladder's config).

    >>> MatchmakingSettings(rematch_s=-1)
    Traceback (most recent call last):
    ...
    ValueError: rematch_s is a number of seconds ≥ 0, not -1
    """

    rematch_s: float = 3600.0
    """How long two versions that met wait before meeting again, while others are free."""
    seed_odds: tuple[float, float, float] = (0.65, 0.25, 0.10)
    """The odds of each ``SeedRule``, in its order (weights, normalised)."""
    window_scale: float = 5.0
    window_offset: float = 0.01
    window_power: float = 0.65
    """The opponent window, ``int(window_scale / (window_offset + U) ** window_power)``
    nearest by Elo (at least one)."""

    def __post_init__(self) -> None:
        if not self.rematch_s >= 0:
            raise ValueError(f"rematch_s is a number of seconds ≥ 0, not {self.rematch_s}")
        if len(self.seed_odds) != 3 or not all(w >= 0 for w in self.seed_odds):
            raise ValueError(f"seed_odds are three weights ≥ 0, not {self.seed_odds}")
        if not sum(self.seed_odds) > 0:
            raise ValueError("seed_odds need one weight above 0")
        if not (self.window_scale > 0 and self.window_offset > 0 and self.window_power >= 0):
            raise ValueError(
                "the window needs window_scale > 0, window_offset > 0 and window_power ≥ 0"
            )

    def window(self, rng: random.Random) -> int:
        """How many of the nearest opponents the next one is drawn from.

        >>> rng = random.Random(0)
        >>> windows = [MatchmakingSettings().window(rng) for _ in range(10_000)]
        >>> min(windows), sum(w >= 10 for w in windows), sum(w >= 20 for w in windows)
        (4, 3291, 1112)
        """
        u = rng.random()
        return max(1, int(self.window_scale / (self.window_offset + u) ** self.window_power))


def next_pairing(
    candidates: Sequence[Candidate],
    last_met: Mapping[frozenset[str], float],
    now: float,
    rng: random.Random,
    settings: MatchmakingSettings | None = None,
) -> Pairing | None:
    """The next pairing among the free ``candidates``, or None when no two free versions of
    different bots exist. ``last_met`` holds when each couple of versions (a frozenset of
    their two ids) last played, on the clock ``now`` is read on; ``rng`` makes every choice.
    """
    settings = settings or MatchmakingSettings()
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.version in seen:
            raise ValueError(f"version {candidate.version} is a candidate twice")
        seen.add(candidate.version)
    free = [c for c in candidates if c.free]
    seeds = _seed_order(free, rng, settings)
    for rematches_allowed in (False, True):
        for seed in seeds:
            opponents = [
                c
                for c in free
                if c.bot != seed.bot
                and (rematches_allowed or not _met_lately(seed, c, last_met, now, settings))
            ]
            if opponents:
                return Pairing(seed.version, _opponent(seed, opponents, rng, settings).version)
    return None


def _met_lately(
    a: Candidate,
    b: Candidate,
    last_met: Mapping[frozenset[str], float],
    now: float,
    settings: MatchmakingSettings,
) -> bool:
    met = last_met.get(frozenset((a.version, b.version)))
    return met is not None and now - met < settings.rematch_s


def _seed_order(
    free: list[Candidate], rng: random.Random, settings: MatchmakingSettings
) -> list[Candidate]:
    """The free versions in the order they are tried as seed, by a ``SeedRule`` drawn at
    random: a weighted random order (Efraimidis–Spirakis, smallest ``−log U / w`` first) for
    the fewest pairs and the most uncertain, the longest idle first for idle."""
    rule = rng.choices(list(SeedRule), weights=settings.seed_odds)[0]
    keys: dict[str, tuple[float, ...]] = {}
    for c in free:
        match rule:
            case SeedRule.FEWEST_PAIRS:
                keys[c.version] = (-math.log(1 - rng.random()) * (c.pairs + 1),)
            case SeedRule.UNCERTAIN:
                weight = c.rating.sigma**2 * (2 if c.provisional else 1)
                keys[c.version] = (-math.log(1 - rng.random()) / weight,)
            case SeedRule.IDLE:
                never = c.last_played is None
                keys[c.version] = (not never, c.last_played or 0.0, rng.random())
            case _:
                assert_never(rule)
    return sorted(free, key=lambda c: keys[c.version])


def _opponent(
    seed: Candidate, opponents: list[Candidate], rng: random.Random, settings: MatchmakingSettings
) -> Candidate:
    """One of the ``settings.window`` opponents nearest the seed's Elo, ties in random order."""
    ties = {c.version: rng.random() for c in opponents}
    nearest = sorted(
        opponents, key=lambda c: (abs(c.rating.elo - seed.rating.elo), ties[c.version])
    )
    return rng.choice(nearest[: settings.window(rng)])
