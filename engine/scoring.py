"""The score of a hand: the defenders' points from tricks, 抠底, penalties and bonuses.

Every amount is a change to the defenders' points, the number the level tables read
(:mod:`chaodipi.engine.levels`). ``docs/rules.md`` cites the sentence behind each term.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chaodipi.engine.cards import CARDS, Card, Rank, points_of
from chaodipi.engine.playing import CardPlay
from chaodipi.engine.rules import HeavenEarth, ScoreRules, Side
from chaodipi.engine.trick import five_ten_king_of
from chaodipi.engine.trump import RED_FIVE, Trump
from chaodipi.engine.units import decompose, pairs_of

__all__ = ["HandResult", "heaven_earth_side", "kitty_multiplier", "score_hand"]


@dataclass(frozen=True, slots=True)
class HandResult:
    """What a hand scored. ``total`` is the defenders' points that decide the levels."""

    dealer: int
    trick_points: int
    kitty_points: int
    kitty_multiplier: int
    """0 when the dealers won the last trick, or the hand has no kitty (no 抠底)."""
    throw_penalty: int
    fry_penalty: int
    red_five: int
    heaven_earth: Side | None
    """上天入地: the side rewarded, or None."""
    last_winner: int
    last_play: tuple[Card, ...]
    floor_at_zero: bool = False
    """The defenders' points stop at 0 (001 §4.1 「台下罚分罚至0分为止」)."""

    @property
    def total(self) -> int:
        """The defenders' points the level tables read."""
        return max(0, self.raw_total) if self.floor_at_zero else self.raw_total

    @property
    def floored(self) -> bool:
        """The floor was applied: the parts sum below 0 and :attr:`total` is 0 (001 §4.1)."""
        return self.floor_at_zero and self.raw_total < 0

    @property
    def kitty_bonus(self) -> int:
        return self.kitty_points * self.kitty_multiplier

    @property
    def captured(self) -> int:
        """The points the defenders won in cards: their tricks and the kitty they dug (抠底,
        multiplied). Penalties and bonuses are not cards won."""
        return self.trick_points + self.kitty_bonus

    @property
    def shut_out(self) -> bool:
        """打大光: the defenders won no point card, in tricks or in a dug kitty, whatever the
        penalties did to their total (docs/rules.md, "what 打大光 is").

        >>> from chaodipi.engine.cards import parse_cards
        >>> played = dict(dealer=0, kitty_points=0, kitty_multiplier=0, fry_penalty=0,
        ...     red_five=0, heaven_earth=None, last_winner=0, last_play=tuple(parse_cards("♦3")),
        ...     floor_at_zero=True)
        >>> took_30 = HandResult(trick_points=30, throw_penalty=-40, **played)
        >>> took_30.total, took_30.shut_out
        (0, False)
        >>> HandResult(trick_points=0, throw_penalty=0, **played).shut_out
        True
        """
        return self.captured == 0

    @property
    def raw_total(self) -> int:
        return (
            self.trick_points
            + self.kitty_bonus
            + self.throw_penalty
            + self.fry_penalty
            + self.red_five
        )


def kitty_multiplier(trump: Trump, winning: tuple[Card, ...], by_unit: bool) -> int:
    """抠底: ×2 for singles, ×4 with a pair (003); by unit ×2, ×4, ×8, ×16… (001 §4.7)."""
    if not by_unit:
        return 4 if pairs_of(winning) else 2
    longest = max(u.length for u in decompose(trump, winning)) if winning else 0
    return 1 << (longest + 1)


def _holds_five_ten_king(trump: Trump, cards: tuple[Card, ...]) -> bool:
    for suit in range(4):
        three = tuple(CARDS[suit * 13 + r] for r in (Rank.FIVE, Rank.TEN, Rank.KING))
        if all(c in cards for c in three) and five_ten_king_of(trump, three) is not None:
            return True
    return False


def heaven_earth_side(
    trump: Trump,
    mode: HeavenEarth,
    winning: tuple[Card, ...],
    winner_defends: bool,
    defenders_only: bool,
) -> Side | None:
    """上天入地: the side rewarded when the last trick is won with a same-suit 5-10-K."""
    if mode == HeavenEarth.NONE or (defenders_only and not winner_defends):
        return None
    if mode == HeavenEarth.EXACT:
        hit = five_ten_king_of(trump, winning) is not None and len(winning) == 3
    else:
        hit = _holds_five_ten_king(trump, winning)
    if not hit:
        return None
    return Side.DEFENDERS if winner_defends else Side.DEALERS


def _red_fives(play: CardPlay, bonus: int) -> int:
    """逼红5/保红5 (000 暗炒): −bonus a red five forced out to the other side's trick, +bonus a
    red five saved as a seat's last play after its second-to-last play won; signed for the
    defenders."""
    if not bonus:
        return 0
    defenders = [s for s in range(4) if not play.is_dealer_side(s)]
    total = 0
    tricks = play.tricks
    for index, trick in enumerate(tricks):
        for seat, cards in trick.plays:
            fives = cards.count(RED_FIVE)
            if not fives:
                continue
            sign = 1 if seat in defenders else -1
            last = index == len(tricks) - 1
            if last and all(c == RED_FIVE for c in cards) and tricks[index - 1].winner == seat:
                total += sign * bonus * fives
            elif (trick.winner in defenders) != (seat in defenders):
                total -= sign * bonus * fives
    return total


def score_hand(
    play: CardPlay, kitty: Sequence[Card] | None, fry_penalty: int, rules: ScoreRules
) -> HandResult:
    """Score a finished card play: its tricks, the buried ``kitty``, the failed fries'
    ``fry_penalty`` (signed for the defenders), under ``rules``.

    ``kitty`` None: the hand has no kitty (the 扛旗 hand, 000 「而且不留底牌，全部抓光」), so
    the last trick digs nothing: no 抠底 multiplier and no 上天入地 (抠底 with 5-10-K)."""
    assert play.is_over and play.tricks
    last = play.tricks[-1]
    winner = last.winner
    winning = next(cards for seat, cards in last.plays if seat == winner)
    winner_defends = not play.is_dealer_side(winner)
    multiplier, heaven = 0, None
    if kitty is not None:
        if winner_defends:
            multiplier = kitty_multiplier(play.trump, winning, rules.kitty_by_unit)
        heaven = heaven_earth_side(
            play.trump,
            rules.heaven_earth,
            winning,
            winner_defends,
            rules.heaven_earth_defenders_only,
        )
    return HandResult(
        dealer=play.dealer,
        trick_points=play.defender_points,
        kitty_points=0 if kitty is None else points_of(kitty),
        kitty_multiplier=multiplier,
        throw_penalty=play.penalty_points,
        fry_penalty=fry_penalty,
        red_five=_red_fives(play, rules.red_five_bonus),
        heaven_earth=heaven,
        last_winner=winner,
        last_play=winning,
        floor_at_zero=rules.penalty_floor,
    )
