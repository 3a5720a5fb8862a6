"""A match: hands one after another, the two teams' levels, who deals, and who won.

Teams: team 0 is seats 0 and 2, team 1 is seats 1 and 3. A match is reproducible from
``(preset, seed, actions)``; ``max_hands`` cuts it short for quick runs (then the team further
ahead wins; level with each other is a draw).

>>> import random
>>> from engine.presets import PRESETS
>>> match = Match(PRESETS["classic"], seed=7, max_hands=1)
>>> rng = random.Random(7)
>>> while not match.over:
...     seat = match.to_play
...     match.apply(seat, match.legal_actions(seat).sample(rng))
>>> len(match.records)
1
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.actions import Action
from engine.cards import Rank
from engine.hand import Event, HandState, LegalActions
from engine.levels import climb, levels_for, progress_end
from engine.presets import Preset
from engine.scoring import HandResult
from engine.trick import IllegalAction

__all__ = ["HandRecord", "Match", "team_of"]


def team_of(seat: int) -> int:
    return seat % 2


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A finished hand: its result and what it did to the match."""

    number: int
    dealer: int
    level: str | None
    trump: str | None
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
    actions: list[tuple[int, Action]] = field(default_factory=list)
    """Every action taken, in order: with (preset, seed, max_hands) it reproduces the match."""
    hand: HandState = field(init=False)

    def __post_init__(self) -> None:
        self.hand = self._new_hand()

    # -- the hand in play -----------------------------------------------------------------------

    def _new_hand(self) -> HandState:
        number = len(self.records)
        seed = f"chaodipi/{self.seed}/{number}"
        kangqi = (
            self.preset.match.kangqi
            and self.dealer is not None
            and (self.progress[team_of(self.dealer)] == 13)
        )
        if self.dealer is None:
            level: Rank | None = Rank.TWO
        else:
            level = None if kangqi else Rank(self.progress[team_of(self.dealer)] % 13)
        return HandState.deal(
            self.preset, seed, level, self.dealer, first_hand=number == 0, kangqi_hand=kangqi
        )

    @property
    def to_play(self) -> int:
        return -1 if self.over else self.hand.to_play

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
        self.actions.append((seat, action))
        self._after_action()

    def push(self, seat: int, action: Action) -> None:
        """Take an action without checking it."""
        self.hand.push(seat, action)
        self.actions.append((seat, action))
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
        dealers, defenders = team_of(dealer), 1 - team_of(dealer)
        before = (self.progress[0], self.progress[1])
        total = result.raw_total
        if rules.score.penalty_floor:
            total = max(0, total)
        take, next_dealer, note = self._levels(hand, result, total, dealers, defenders)
        if next_dealer is None:
            next_dealer = (dealer + 1) % 4 if take else (dealer + 2) % 4
        trump = hand.trump
        self.records.append(
            HandRecord(
                number=len(self.records),
                dealer=dealer,
                level=None if trump.level is None else str(trump.level),
                trump=None if trump.suit is None else trump.suit.symbol,
                result=result,
                total=total,
                progress_before=before,
                progress_after=(self.progress[0], self.progress[1]),
                next_dealer=next_dealer,
                note=note,
            )
        )
        self.dealer = next_dealer
        hand.events.append(
            Event(
                "hand_over",
                -1,
                {
                    "total": total,
                    "kitty": [str(c) for c in hand.kitty],
                    "dealt": [[str(c) for c in cards] for cards in hand.dealt],
                    "progress": list(self.progress),
                    "next_dealer": next_dealer,
                    "note": note,
                },
            )
        )

    def _levels(
        self, hand: HandState, result: HandResult, total: int, dealers: int, defenders: int
    ) -> tuple[bool, int | None, str]:
        """Move the teams' levels for a finished hand: (defenders took the deal, next dealer
        if not the usual one, a note saying what happened)."""
        rules = self.preset.match
        end = progress_end(rules)
        progress = self.progress
        if hand.kangqi_hand:
            if total >= rules.kangqi_take_over:
                return True, None, f"扛旗 held off: the defenders took {total}"
            progress[dealers] = 14
            self._finish(dealers)
            return False, None, "扛旗 passed: the match is won"
        if result.heaven_earth is not None:
            rewarded = defenders if result.heaven_earth == "defenders" else dealers
            progress[1 - rewarded] = 0
            progress[rewarded] = end - 1
            self.heaven_earth_rewards[rewarded] = self.preset.score.heaven_earth_reward
            return rewarded == defenders, None, f"上天入地: team {rewarded} to A, the other to 2"
        last_by_defenders = result.last_winner not in hand.dealer_side
        if rules.hefei_jumps and len(self.records) == 0:
            if total <= 0:
                self._finish(dealers)
                return False, None, "first hand 打大光: the dealers win"
            if result.trick_points >= 80 and last_by_defenders:
                self._finish(defenders)
                return True, None, "first hand: 80 and the kitty dug, the defenders win"
        level = hand.level
        for demotion in rules.demotions:
            if (
                level == demotion.level
                and last_by_defenders
                and result.trick_points >= demotion.points
                and _shows_level_card(result, level, pair=demotion.pair)
            ):
                base = progress[dealers] - progress[dealers] % 13
                progress[dealers] = base + demotion.to
                take, gain = levels_for(total, self.preset.score)
                progress[defenders] = climb(progress[defenders], gain, dealing=False, rules=rules)
                return (
                    True,
                    None,
                    f"kitty dug with the level card: dealers back to {Rank(demotion.to)}",
                )
        if rules.hefei_jumps and (total <= 0 or total >= 200):
            team = dealers if total <= 0 else defenders
            if progress[team] % 13 >= Rank.JACK:
                self._finish(team)
                return team == defenders, None, "跳级 from J or above: the match is won"
            progress[team] = progress[team] - progress[team] % 13 + Rank.ACE
            return team == defenders, None, "跳级 to A"
        take, gain = levels_for(total, self.preset.score)
        team = defenders if take else dealers
        progress[team] = climb(progress[team], gain, dealing=not take, rules=rules)
        if progress[team] >= end and not rules.kangqi:
            self._finish(team)
            return take, None, "passed A: the match is won"
        return take, None, f"{'defenders take the deal' if take else 'dealers hold'}, +{gain}"

    def _finish(self, winner: int | None) -> None:
        self.over = True
        self.winner = winner
        if winner is not None:
            margin = self.progress[winner] - self.progress[1 - winner]
            self.reward = max(margin, self.heaven_earth_rewards[winner], 1)

    @property
    def events(self) -> list[Event]:
        return self.hand.events


def _shows_level_card(result: HandResult, level: Rank | None, *, pair: bool) -> bool:
    cards = result.last_play
    levels = [c for c in cards if c.rank == level and not c.is_joker]
    if not pair:
        return bool(levels)
    return any(levels.count(c) >= 2 for c in levels)
