"""What the ladder's pages (and ``arena ladder status``) say, read from its store: the
leaderboard (:func:`leaderboard`: the standings, the versions kept off them, the recent pairs) and a
bot's page (:func:`bot_summary`: its versions, their ratings after each pair, its results
against each opponent, its recent games).

A version's rating is the latest refit's when the refit rated it, else its live rating
(:func:`rating_of`): a rung's is its pinned bench Elo. Its interval is 95 %: the refit's, or
the live rating's. It is **provisional** while the interval's half-width is more than the
ladder's ``provisional_width`` (Elo).

The board reads the store in a fixed number of queries, however many versions and pairs it
holds (a page open in 50 browsers must answer fast).

>>> Rating(1500.0, 1400.0, 1620.0, "refit").half_width
110.0
>>> pair_score_text(0.75), pair_score_text(None)
('¾', '—')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from chaodipi.arena.ladder.entries import (
    Bot,
    BotKind,
    Pair,
    PairState,
    Version,
    VersionState,
)
from chaodipi.arena.ladder.played import FaultCounts, RefitRow, StoredGame
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.store import Store
from chaodipi.arena.results import game_label

__all__ = [
    "Apart",
    "Board",
    "BotSummary",
    "GameLine",
    "Opponent",
    "PairLine",
    "Rating",
    "RatingPoint",
    "Standing",
    "VersionLine",
    "bot_summary",
    "leaderboard",
    "pair_score_text",
    "rating_of",
]

RECENT_PAIRS = 20
"""How many of the latest pairs the leaderboard lists."""

RECENT_GAMES = 30
"""How many of a bot's latest games its page lists."""

RatingSource = Literal["refit", "live", "pinned"]

_PAIR_SCORES = {0.0: "0", 0.25: "¼", 0.5: "½", 0.75: "¾", 1.0: "1"}


def pair_score_text(score: float | None) -> str:
    """A pair score as the pages write it (0, ¼, ½, ¾, 1; a dash for none)."""
    if score is None:
        return "—"
    return _PAIR_SCORES.get(score, f"{score:.2f}")


@dataclass(frozen=True, slots=True)
class Rating:
    """A version's rating in Elo with its 95 % interval, and where it comes from."""

    elo: float
    low: float
    high: float
    source: RatingSource

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def rating_of(
    version: Version,
    refit: Mapping[int, RefitRow],
    live: Mapping[int, LiveRating],
) -> Rating | None:
    """A version's rating: pinned (a rung), the latest refit's, or its live rating with its
    95 % interval (:attr:`LiveRating.error`); None before its first rated pair."""
    if version.pinned_elo is not None:
        return Rating(version.pinned_elo, version.pinned_elo, version.pinned_elo, "pinned")
    fitted = refit.get(version.id)
    if fitted is not None:
        return Rating(fitted.elo, fitted.low, fitted.high, "refit")
    rated = live.get(version.id)
    if rated is None:
        return None
    return Rating(rated.elo, rated.elo - rated.error, rated.elo + rated.error, "live")


def _provisional(rating: Rating | None, width: float) -> bool:
    if rating is None:
        return True
    return rating.source != "pinned" and rating.half_width > width


@dataclass(frozen=True, slots=True)
class Standing:
    """One version on the leaderboard."""

    rank: int
    version_id: int
    version: str
    """Its name, ``alice@2``."""
    bot: str
    kind: BotKind
    rating: Rating | None
    """None: it has not finished a rated pair yet."""
    provisional: bool
    pairs: int
    """Rated pairs it finished (final pairs count)."""
    last_played: float | None
    """When its last rated pair finished (Unix time)."""
    faults: FaultCounts

    @property
    def pinned(self) -> bool:
        return self.rating is not None and self.rating.source == "pinned"


@dataclass(frozen=True, slots=True)
class Apart:
    """A bot whose newest version is kept off the standings: validating, failed or paused."""

    version_id: int
    version: str
    bot: str
    state: str
    """``validating``, ``failed``, ``paused``, or ``waiting`` (a resident bot with no version
    yet: ``version_id`` 0, ``version`` its bot's name)."""
    reason: str
    created_at: float
    """When the version came."""


@dataclass(frozen=True, slots=True)
class PairLine:
    """A finished pair as the pages list it (its games' ids, once both are stored)."""

    pair: int
    kind: str
    version_a: str
    version_b: str
    state: str
    score_a: float | None
    finished_at: float | None
    reason: str
    games: tuple[tuple[int, str], ...]
    """Each stored game: its id and its name (``alice@1-bob@2-d17-a``)."""


@dataclass(frozen=True, slots=True)
class Board:
    """The leaderboard as of ``at``."""

    at: float
    standings: tuple[Standing, ...]
    apart: tuple[Apart, ...]
    recent: tuple[PairLine, ...]
    refit_at: float | None
    """When the latest refit was published (None: none yet)."""
    refit_pairs: int | None
    season: Mapping[str, Any] | None
    """The season's freeze (``frozen_at``, ``final_pairs``), or None."""

    def as_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "standings": [_standing_json(s) for s in self.standings],
            "apart": [asdict(a) for a in self.apart],
            "recent": [_pair_json(p) for p in self.recent],
            "refit": None
            if self.refit_at is None
            else {"at": self.refit_at, "pairs": self.refit_pairs},
            "season": None if self.season is None else dict(self.season),
        }


def leaderboard(
    store: Store,
    *,
    provisional_width: float,
    now: float,
    recent: int = RECENT_PAIRS,
) -> Board:
    """The leaderboard: each bot's newest version, ranked by rating when it is active (its
    bot neither paused nor retired), else listed apart with its reason; and the latest
    pairs. A fixed number of store reads."""
    bots = {b.id: b for b in store.bots()}
    versions = store.versions()
    live = store.live_ratings()
    latest = store.latest_refit()
    refit = latest[2] if latest is not None else {}
    played = store.pairs_played()
    faults = store.all_faults()
    newest: dict[int, Version] = {}
    for version in versions:
        if version.bot_id not in newest or version.number > newest[version.bot_id].number:
            newest[version.bot_id] = version
    ranked: list[tuple[Version, Bot, Rating | None]] = []
    apart: list[Apart] = []
    for bot_id, version in newest.items():
        bot = bots[bot_id]
        if bot.retired or version.state in (VersionState.RETIRED, VersionState.SUPERSEDED):
            continue
        if bot.paused is not None:
            apart.append(
                Apart(version.id, version.name, bot.name, "paused", bot.paused, version.created_at)
            )
        elif version.state is VersionState.ACTIVE:
            ranked.append((version, bot, rating_of(version, refit, live)))
        else:
            apart.append(
                Apart(
                    version.id,
                    version.name,
                    bot.name,
                    version.state.value,
                    version.reason,
                    version.created_at,
                )
            )
    ranked.sort(key=lambda r: (r[2] is None, -(r[2].elo if r[2] else 0.0), r[0].name))
    standings = tuple(
        Standing(
            rank,
            version.id,
            version.name,
            bot.name,
            bot.kind,
            rating,
            _provisional(rating, provisional_width),
            played.get(version.id, (0, 0.0))[0],
            played[version.id][1] if version.id in played else None,
            faults.get(version.id, FaultCounts()),
        )
        for rank, (version, bot, rating) in enumerate(ranked, start=1)
    )
    for bot in bots.values():  # a resident bot added that never connected: no version yet
        if bot.id not in newest and not bot.retired:
            reason = "added; it has not connected yet" if bot.paused is None else bot.paused
            apart.append(Apart(0, bot.name, bot.name, "waiting", reason, bot.created_at))
    apart.sort(key=lambda a: (a.state, a.bot))
    names = {v.id: v.name for v in versions}
    latest_pairs = store.pairs(
        states=(PairState.DONE, PairState.VOID), limit=recent, newest_first=True
    )
    return Board(
        now,
        standings,
        tuple(apart),
        tuple(_pair_lines(store, latest_pairs, names)),
        None if latest is None else latest[0],
        None if latest is None else latest[1],
        store.season(),
    )


def _pair_lines(store: Store, pairs: Sequence[Pair], names: Mapping[int, str]) -> list[PairLine]:
    stored = store.games_of_pairs(p.id for p in pairs)
    return [
        PairLine(
            p.id,
            p.kind.value,
            names[p.version_a],
            names[p.version_b],
            p.state.value,
            p.score_a,
            p.finished_at,
            p.reason,
            tuple((g.id, game_label(g.row.key)) for g in stored.get(p.id, [])),
        )
        for p in pairs
    ]


# -- a bot's page ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A version's live rating after one of its pairs, in Elo."""

    pair: int
    at: float
    elo: float
    error: float
    """Its 95 % interval's half-width (:attr:`LiveRating.error`)."""


@dataclass(frozen=True, slots=True)
class VersionLine:
    """One version of a bot, as its page shows it."""

    id: int
    name: str
    label: str
    state: str
    reason: str
    detail: str
    """The tail of its stderr, or the message the arena refused: shown as it is, as text."""
    created_at: float
    rating: Rating | None
    provisional: bool
    pairs: int
    faults: FaultCounts
    history: tuple[RatingPoint, ...]


@dataclass(frozen=True, slots=True)
class Opponent:
    """A version's rated pairs against one opponent version."""

    version: str
    opponent: str
    pairs: int
    won: int
    """Pairs it scored more than ½ in."""
    drawn: int
    lost: int
    mean: float
    """Its mean pair score."""


@dataclass(frozen=True, slots=True)
class GameLine:
    """One of a bot's stored games."""

    id: int
    pair: int
    name: str
    version: str
    """The bot's version that played it."""
    opponent: str | None
    """The other team's version (None: a validation game, four copies of one version)."""
    score: float | None
    """The version's score in the game (1, ½, 0; None: void)."""
    hands: int
    finished_at: float
    reviewed: bool
    void: str | None
    """Why the game is no result (a bot never took its seat), or None."""


@dataclass(frozen=True, slots=True)
class BotSummary:
    """A bot's page."""

    name: str
    kind: BotKind
    created_at: float
    paused: str | None
    retired: bool
    versions: tuple[VersionLine, ...]
    """Its versions, the newest first."""
    opponents: tuple[Opponent, ...]
    games: tuple[GameLine, ...]
    """Its latest games, the newest first."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind.value,
            "created_at": self.created_at,
            "paused": self.paused,
            "retired": self.retired,
            "versions": [
                {
                    **{
                        k: v
                        for k, v in asdict(line).items()
                        if k not in ("rating", "faults", "history")
                    },
                    "rating": _rating_json(line.rating),
                    "faults": _faults_json(line.faults),
                    "history": [asdict(p) for p in line.history],
                }
                for line in self.versions
            ],
            "opponents": [asdict(o) for o in self.opponents],
            "games": [asdict(g) for g in self.games],
        }


def bot_summary(store: Store, name: str, *, provisional_width: float) -> BotSummary | None:
    """The bot named ``name``'s page (None: no such bot). Its reads grow with its versions
    (a few each), never with its pairs or games."""
    bot = store.bot(name)
    if bot is None:
        return None
    versions = store.versions()
    names = {v.id: v.name for v in versions}
    own = sorted((v for v in versions if v.bot_id == bot.id), key=lambda v: -v.number)
    live = store.live_ratings()
    latest = store.latest_refit()
    refit = latest[2] if latest is not None else {}
    played = store.pairs_played()
    faults = store.all_faults()
    lines: list[VersionLine] = []
    opponents: list[Opponent] = []
    stored: list[StoredGame] = []
    for version in own:
        rating = rating_of(version, refit, live)
        history = tuple(
            RatingPoint(pair, at, rated.elo, rated.error)
            for pair, at, rated in store.rating_history(version.id)
        )
        lines.append(
            VersionLine(
                version.id,
                version.name,
                version.label,
                version.state.value,
                version.reason,
                version.detail,
                version.created_at,
                rating,
                _provisional(rating, provisional_width),
                played.get(version.id, (0, 0.0))[0],
                faults.get(version.id, FaultCounts()),
                history,
            )
        )
        opponents += _opponents(version, store.pairs(version=version.id), names)
        stored += store.games(version=version.id, limit=RECENT_GAMES)
    stored = sorted({g.id: g for g in stored}.values(), key=lambda g: -g.id)[:RECENT_GAMES]
    mine = {v.id for v in own}
    return BotSummary(
        bot.name,
        bot.kind,
        bot.created_at,
        bot.paused,
        bot.retired,
        tuple(lines),
        tuple(sorted(opponents, key=lambda o: (-o.pairs, o.version, o.opponent))),
        tuple(_game_line(g, mine, names) for g in stored),
    )


def _opponents(version: Version, pairs: Iterable[Pair], names: Mapping[int, str]) -> list[Opponent]:
    scores: dict[int, list[float]] = {}
    for pair in pairs:
        if pair.score_a is None:
            continue
        if pair.version_a == version.id:
            scores.setdefault(pair.version_b, []).append(pair.score_a)
        else:
            scores.setdefault(pair.version_a, []).append(1.0 - pair.score_a)
    return [
        Opponent(
            version.name,
            names[other],
            len(got),
            sum(1 for s in got if s > 0.5),
            sum(1 for s in got if s == 0.5),
            sum(1 for s in got if s < 0.5),
            sum(got) / len(got),
        )
        for other, got in scores.items()
    ]


def _game_line(game: StoredGame, mine: set[int], names: Mapping[int, str]) -> GameLine:
    row = game.row
    ours_a = game.version_a in mine
    score = row.score_a if ours_a or row.score_a is None else 1.0 - row.score_a
    version, other = (
        (game.version_a, game.version_b) if ours_a else (game.version_b, game.version_a)
    )
    return GameLine(
        game.id,
        game.pair_id,
        game_label(row.key),
        names[version],
        None if version == other else names[other],
        score,
        row.hands,
        game.finished_at,
        game.has_review,
        row.void,
    )


# -- JSON -----------------------------------------------------------------------------------


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _rating_json(rating: Rating | None) -> dict[str, Any] | None:
    if rating is None:
        return None
    return {
        "elo": _finite(rating.elo),
        "low": _finite(rating.low),
        "high": _finite(rating.high),
        "source": rating.source,
    }


def _faults_json(faults: FaultCounts) -> dict[str, Any]:
    return {**asdict(faults), "rate": faults.rate}


def _standing_json(standing: Standing) -> dict[str, Any]:
    return {
        "rank": standing.rank,
        "version_id": standing.version_id,
        "version": standing.version,
        "bot": standing.bot,
        "kind": standing.kind.value,
        "rating": _rating_json(standing.rating),
        "pinned": standing.pinned,
        "provisional": standing.provisional,
        "pairs": standing.pairs,
        "last_played": standing.last_played,
        "faults": _faults_json(standing.faults),
    }


def _pair_json(line: PairLine) -> dict[str, Any]:
    return {
        **{k: v for k, v in asdict(line).items() if k != "games"},
        "games": [{"id": i, "name": n} for i, n in line.games],
    }
