"""A match: hands one after another, the two teams' levels, who deals, and who won.

Teams: team 0 is seats 0 and 2, team 1 is seats 1 and 3. A match is reproducible from
``(preset, seed, actions)``; ``max_hands`` cuts it short for quick runs (then the team further
ahead wins; level with each other is a draw).

>>> import random
>>> from chaodipi.engine.presets import PRESETS
>>> match = Match(PRESETS["classic"], seed=7, max_hands=1)
>>> rng = random.Random(7)
>>> while not match.over:
...     seat = match.to_play
...     match.apply(seat, match.legal_actions(seat).sample(rng))
>>> len(match.records)
1
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from chaodipi.engine.actions import Action
from chaodipi.engine.cards import Rank, Suit
from chaodipi.engine.errors import IllegalAction
from chaodipi.engine.events import Event, EventLog, HandOver
from chaodipi.engine.hand import HandState, LegalActions
from chaodipi.engine.levels import is_must_play, settle
from chaodipi.engine.presets import Preset
from chaodipi.engine.scoring import HandResult
from chaodipi.engine.seats import other_team, team_of

__all__ = ["Ending", "HandRecord", "Match", "Outcome", "hand_level", "must_play_dealt"]


class Ending(Enum):
    """How a match ended (the values are what reports print)."""

    PLAYED_OUT = "played out"
    """By the rules, or at its hand limit."""
    FORFEIT = "forfeit"
    """A seat's team forfeited (too many timeouts, or its bot is gone)."""
    STOPPED = "stopped"
    """Stopped before its end (the server shut down): undecided."""
    FAILED = "failed"
    """The table running it failed: undecided."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, as python-chess's ``Outcome`` says how a board's game did: by the
    rules (:meth:`Match.outcome`), or as the arena ended it first (:meth:`Match.cut_short`: a
    forfeit, or undecided). The one value every layer reads: a table's result holds it, a game
    record's header writes it (``result``), the contract's ``MatchOver`` carries it and is read
    back into it, and the SDK's ``MatchResult`` holds it.

    >>> outcome = Outcome(Ending.FORFEIT, "seat 3 timed out 3 times", 0, 2, (4, 1), 3)
    >>> outcome.score(0), outcome.score(1), Outcome(Ending.PLAYED_OUT, "", None, 1, (2, 2)).score(1)
    (1.0, 0.0, 0.5)
    """

    ending: Ending
    reason: str
    """Why, as a person reads it (``played to the end``, ``seat 3 timed out 3 times``)."""
    winner: int | None
    """The winning team (``None``: a draw, or undecided)."""
    hands: int
    """The hands finished."""
    progress: tuple[int, ...]
    """Each team's progress at the end (team 0's, team 1's)."""
    forfeited_by: int | None = None
    """The seat whose team forfeited, if one did."""
    reward: int = 0
    """What the winner earns (积分): 0 unless the game was played out and won."""

    @property
    def decided(self) -> bool:
        """Whether the game is a result: won, lost or drawn (not stopped, nor failed)."""
        return self.ending is Ending.PLAYED_OUT or self.ending is Ending.FORFEIT

    def score(self, team: int) -> float | None:
        """The game's score for ``team``: 1 won, 0 lost, ½ drawn; ``None`` undecided."""
        if not self.decided:
            return None
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == team else 0.0

    def said(self, team: Callable[[int], str] = "team {}".format) -> str:
        """How the game ended, in the words every view of it uses (``arena show``, ``arena
        watch``, the viewer, the SDK's last line), each team named by ``team``.

        >>> print(Outcome(Ending.FORFEIT, "seat 0 struck out", 1, 4, (5, 2), 0))
        team 1 won on a forfeit after 4 hands: seat 0 struck out; progress 5 : 2
        >>> Outcome(Ending.PLAYED_OUT, "played to the end", 0, 9, (13, 4), reward=9).said(
        ...     lambda team: f"team {team} (alpha)")
        'team 0 (alpha) won (reward 9) after 9 hands: played to the end; progress 13 : 4'
        >>> print(Outcome(Ending.STOPPED, "the table stopped", None, 1, (0, 2)))
        undecided (stopped) after 1 hand: the table stopped; progress 0 : 2
        """
        if self.winner is not None:
            verdict = f"{team(self.winner)} won"
            if self.reward:
                verdict += f" (reward {self.reward})"
            if self.ending is Ending.FORFEIT:
                verdict += " on a forfeit"
        elif self.ending is Ending.PLAYED_OUT:
            verdict = "a draw"
        else:
            verdict = f"undecided ({self.ending.value})"
        hands = f"{self.hands} hand{'s' * (self.hands != 1)}"
        progress = " : ".join(str(p) for p in self.progress)
        return f"{verdict} after {hands}: {self.reason}; progress {progress}"

    def __str__(self) -> str:
        return self.said()


def hand_level(preset: Preset, progress: Sequence[int], dealer: int | None) -> Rank | None:
    """The level of the hand ``dealer`` deals at ``progress`` (``None``: the 扛旗 hand, which
    has none). The first hand (no dealer yet) is played at 2.

    >>> from chaodipi.engine.presets import PRESETS
    >>> hand_level(PRESETS["classic"], (0, 0), None), hand_level(PRESETS["classic"], (5, 3), 1)
    (<Rank.TWO: 0>, <Rank.FIVE: 3>)
    """
    if dealer is None:
        return Rank.TWO
    place = progress[team_of(dealer)]
    if preset.match.kangqi and place == 13:
        return None
    return Rank(place % 13)


def must_play_dealt(preset: Preset, before: Sequence[int], dealer: int, kangqi: bool) -> int | None:
    """The must-play level (as progress) the dealers' team has now played, having dealt a hand
    from ``before`` (``None``: the hand's level was not one)."""
    place = before[team_of(dealer)]
    if not kangqi and is_must_play(place, preset.match):
        return place
    return None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A finished hand: its result and what it did to the match."""

    number: int
    dealer: int
    level: Rank | None
    """The hand's level (``None`` in the 扛旗 hand)."""
    trump: Suit | None
    """The trump suit (``None``: no-trump)."""
    result: HandResult
    total: int
    """The defenders' points after floors: what the level table read."""
    progress_before: tuple[int, int]
    progress_after: tuple[int, int]
    next_dealer: int
    note: str


@dataclass(slots=True)
class Match:
    """A match in progress. ``apply`` takes one seat's action; finished hands are scored and
    the next one dealt automatically."""

    preset: Preset
    seed: int | str
    max_hands: int | None = None
    progress: list[int] = field(default_factory=lambda: [0, 0])
    dealer: int | None = None
    records: list[HandRecord] = field(default_factory=list)
    winner: int | None = None
    over: bool = False
    reward: int = 0
    heaven_earth_rewards: list[int] = field(default_factory=lambda: [0, 0])
    must_played: list[set[int]] = field(default_factory=lambda: [set(), set()])
    """Each team's must-play levels (as progress) at which it has dealt a hand, won or lost
    (001 §2.1 「如“2”、“J”、“A”已打过，则不再为必打牌」)."""
    _seats: list[int] = field(default_factory=list, init=False, repr=False)
    _moves: list[Action] = field(default_factory=list, init=False, repr=False)
    """Who took each action and what it was, in order (see :attr:`actions`)."""
    log: EventLog = field(default_factory=EventLog)
    """Every event of the match, in order, each with the seats that may see it (append-only:
    the hands record into it)."""
    hand: HandState = field(init=False)

    def __post_init__(self) -> None:
        self.hand = self._new_hand()

    # -- the hand in play -----------------------------------------------------------------------

    def _new_hand(self) -> HandState:
        number = len(self.records)
        seed = f"chaodipi/{self.seed}/{number}"
        level = hand_level(self.preset, self.progress, self.dealer)
        kangqi = level is None
        return HandState.deal(
            self.preset,
            seed,
            level,
            self.dealer,
            first_hand=number == 0,
            kangqi_hand=kangqi,
            log=self.log,
            number=number,
            progress=(self.progress[0], self.progress[1]),
        )

    @property
    def actions(self) -> list[tuple[int, Action]]:
        """Every action taken, in order, with its seat: with (preset, seed, max_hands) it
        reproduces the match. Kept as two lists, not a pair per action: a match keeps every
        action to its end, and fewer objects kept means cheaper passes of the garbage
        collector."""
        return list(zip(self._seats, self._moves, strict=True))

    @property
    def to_play(self) -> int:
        """The seat to act; ``IllegalAction`` once the match is over (nobody acts then: a
        view says so with ``to_act`` None)."""
        if self.over:
            raise IllegalAction("the match is over: nobody is to play")
        return self.hand.to_play

    @property
    def number(self) -> int:
        """The number of the hand in play (0 for the first)."""
        return len(self.records)

    def legal_actions(self, seat: int | None = None) -> LegalActions:
        if self.over:
            raise IllegalAction("the match is over")
        return self.hand.legal_actions(seat)

    def apply(self, seat: int, action: Action) -> None:
        """Check and take one action; score the hand and deal the next when it ends."""
        if self.over:
            raise IllegalAction("the match is over")
        self.hand.apply(seat, action)
        self._seats.append(seat)
        self._moves.append(action)
        self._after_action()

    def push(self, seat: int, action: Action) -> None:
        """Take an action without checking it."""
        self.hand.push(seat, action)
        self._seats.append(seat)
        self._moves.append(action)
        self._after_action()

    def _after_action(self) -> None:
        if self.hand.result is None:
            return
        self._score(self.hand)
        if not self.over and self.max_hands is not None and len(self.records) >= self.max_hands:
            ahead = self.progress[0] - self.progress[1]
            self._finish(None if ahead == 0 else (0 if ahead > 0 else 1))
        if not self.over:
            self.hand = self._new_hand()

    # -- scoring a hand -------------------------------------------------------------------------

    def _score(self, hand: HandState) -> None:
        result = hand.result
        assert result is not None and hand.dealer is not None and hand.trump is not None
        rules = self.preset
        dealer = hand.dealer
        dealers = team_of(dealer)
        before = (self.progress[0], self.progress[1])
        total = result.total
        played = must_play_dealt(rules, before, dealer, hand.kangqi_hand)
        if played is not None:
            self.must_played[dealers].add(played)
        settled = settle(
            self.preset,
            before,
            dealers=dealers,
            last_by_defenders=result.last_winner not in hand.dealer_side,
            level=hand.level,
            kangqi_hand=hand.kangqi_hand,
            first_hand=not self.records,
            result=result,
            total=total,
            played=(frozenset(self.must_played[0]), frozenset(self.must_played[1])),
        )
        self.progress = list(settled.progress)
        note = settled.note
        if settled.heaven_earth_team is not None:
            team = settled.heaven_earth_team
            self.heaven_earth_rewards[team] = rules.score.heaven_earth_reward
        next_dealer = settled.next_dealer(dealer)
        trump = hand.trump
        self.records.append(
            HandRecord(
                number=len(self.records),
                dealer=dealer,
                level=trump.level,
                trump=trump.suit,
                result=result,
                total=total,
                progress_before=before,
                progress_after=(self.progress[0], self.progress[1]),
                next_dealer=next_dealer,
                note=note,
            )
        )
        self.dealer = next_dealer
        if settled.finished:
            self._finish(settled.winner)
        self.log.record(
            hand.number,
            HandOver(
                total=total,
                kitty=tuple(hand.kitty),
                dealt=tuple(tuple(cards) for cards in hand.dealt),
                progress=(self.progress[0], self.progress[1]),
                next_dealer=next_dealer,
                note=note,
                result=result,
            ),
        )

    def _finish(self, winner: int | None) -> None:
        self.over = True
        self.winner = winner
        if winner is not None:
            margin = self.progress[winner] - self.progress[1 - winner]
            self.reward = max(margin, self.heaven_earth_rewards[winner], 1)

    def outcome(self) -> Outcome | None:
        """How the match ended by the rules, once it is over (``None`` until then).

        >>> from chaodipi.engine.presets import PRESETS
        >>> Match(PRESETS["classic"], seed=1).outcome() is None
        True
        """
        if not self.over:
            return None
        return Outcome(
            Ending.PLAYED_OUT,
            "played to the end",
            self.winner,
            len(self.records),
            (self.progress[0], self.progress[1]),
            reward=self.reward,
        )

    def cut_short(self, ending: Ending, reason: str, forfeited_by: int | None = None) -> Outcome:
        """How the match ends when the arena ends it before its rules do, as it stands: a
        forfeit (``FORFEIT``, lost by the team of the seat ``forfeited_by``, which earns the
        other team no reward), or undecided (``STOPPED``, ``FAILED``).

        >>> from chaodipi.engine.presets import PRESETS
        >>> match = Match(PRESETS["classic"], seed=1)
        >>> outcome = match.cut_short(Ending.FORFEIT, "seat 3 crashed", 3)
        >>> outcome.ending, outcome.winner, outcome.forfeited_by, outcome.reward
        (<Ending.FORFEIT: 'forfeit'>, 0, 3, 0)
        """
        if ending is Ending.PLAYED_OUT:
            raise ValueError("a match cut short is not played out")
        if (ending is Ending.FORFEIT) != (forfeited_by is not None):
            raise ValueError("a forfeit, and only a forfeit, names the seat that forfeited")
        winner = None if forfeited_by is None else other_team(team_of(forfeited_by))
        progress = (self.progress[0], self.progress[1])
        return Outcome(ending, reason, winner, len(self.records), progress, forfeited_by)

    def events_since(self, cursor: int, seat: int) -> list[Event]:
        """The events after ``cursor`` (a sequence number; 0: from the start) that ``seat`` may
        see, in order: what is new for a seat since it last looked.

        >>> from chaodipi.engine.presets import PRESETS
        >>> match = Match(PRESETS["classic"], seed=1)
        >>> [(e.seq, e.kind.value, e.seat) for e in match.events_since(0, 2)]
        [(1, 'hand_begun', None), (4, 'deal', 2)]
        >>> match.events_since(match.log.cursor, 2)
        []
        """
        return self.log.since(cursor, seat)
