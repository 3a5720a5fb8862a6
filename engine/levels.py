"""Levels: what a hand's points are worth, and how a team climbs (must-play levels, circuits).

A team's place in the match is its *progress*: ``circuit * 13 + level`` where level 0 is 2 and
12 is A. In the 扛旗 room, progress 13 means "passed A: plays the 扛旗 hand next".

>>> from chaodipi.engine.rules import ScoreRules
>>> [levels_for(p, ScoreRules()) for p in (0, 20, 40, 60, 80, 120, 200)]
[(False, 2), (False, 2), (False, 1), (True, 0), (True, 1), (True, 3), (True, 6)]
>>> levels_for(0, ScoreRules(), shut_out=True)  # 大光: the defenders won no point card
(False, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

from chaodipi.engine.cards import Card, Rank
from chaodipi.engine.presets import Preset
from chaodipi.engine.rules import MatchRules, ScoreRules, Side
from chaodipi.engine.scoring import HandResult
from chaodipi.engine.seats import next_seat, partner

__all__ = [
    "Settlement",
    "climb",
    "is_must_play",
    "level_name",
    "levels_for",
    "progress_end",
    "settle",
]

# 003 「抓分方獲得60分取得勝利資格，莊家下莊；獲得80分升1級，100分升2級，120分升3級，150分升4級，
# 180分升5級，200分升6級」: (defenders' points at least, levels they gain).
_TAKE_TABLE = ((200, 6), (180, 5), (150, 4), (120, 3), (100, 2), (80, 1))


def levels_for(points: int, rules: ScoreRules, *, shut_out: bool = False) -> tuple[bool, int]:
    """(do the defenders take the deal, levels gained by the side that climbs).

    ``points`` is the defenders' total; ``shut_out`` says they won no point card (大光,
    :attr:`HandResult.shut_out`). Below the take-over mark the dealers climb: 大光 +3, under
    half the mark +2, else +1 (docs/rules.md: the seeds are silent; this is 升级's custom scaled
    to the mark). With a ``level_step`` (001 §2.1) every full step beyond the mark, either way,
    is a level.
    """
    mark = rules.take_over
    if rules.level_step:
        if points >= mark:
            return True, (points - mark) // rules.level_step
        return False, (mark - points) // rules.level_step
    if points >= mark:
        return True, next((gain for floor, gain in _TAKE_TABLE if points >= floor), 0)
    if shut_out:
        return False, 3
    return False, 2 if points < mark // 2 else 1


def level_name(progress: int, circuits: int) -> str:
    """A team's place as players say it: ``"7"``, ``"A (circuit 2)"``, ``"扛旗"``, ``"done"``.

    >>> [level_name(p, 1) for p in (0, 5, 12, 13)], level_name(14, 3)
    (['2', '7', 'A', '扛旗'], '3 (circuit 2)')
    """
    circuit, level = divmod(progress, 13)
    if circuit >= circuits:
        return "扛旗" if circuits == 1 and progress == 13 else "done"
    name = str(Rank(level))
    return name if circuits == 1 else f"{name} (circuit {circuit + 1})"


def progress_end(rules: MatchRules) -> int:
    """Progress at which a climb stops for good: past A of the last circuit."""
    return rules.circuits * 13


def is_must_play(progress: int, rules: MatchRules) -> bool:
    """Is the level at this progress a must-play level (in its circuit)?

    >>> from chaodipi.engine.presets import PRESETS
    >>> [is_must_play(p, PRESETS["hefei"].match) for p in (0, 1, Rank.JACK, Rank.ACE)]
    [True, False, True, True]
    >>> anchao = PRESETS["anchao"].match  # only the third circuit's A
    >>> is_must_play(Rank.ACE, anchao), is_must_play(26 + Rank.ACE, anchao)
    (False, True)
    """
    circuit, level = divmod(progress, 13)
    return level in rules.must_play and (
        not rules.must_play_last_circuit_only or circuit == rules.circuits - 1
    )


def climb(
    progress: int,
    gain: int,
    *,
    dealing: bool,
    rules: MatchRules,
    played: frozenset[int] = frozenset(),
) -> int:
    """Climb ``gain`` levels from ``progress``, stopping at a must-play level the team has not
    played; a team that just won a hand as dealers has played its own level.
    (001 §2.1 「如碰上“2”、“J”、“A”等必打牌，多余的分数作废」; 000 「第三圈的A必打」.)

    ``played``: the must-play levels (as progress) the team has dealt a hand at; with
    ``rules.must_play_once`` they bind no more (001 §2.1 「如“2”、“J”、“A”已打过，则不再为必打牌」).

    >>> from chaodipi.engine.presets import PRESETS
    >>> hefei = PRESETS["hefei"].match
    >>> jack = 9  # progress of level J (0 is level 2)
    >>> climb(jack, 4, dealing=False, rules=hefei)  # J not played yet: stays
    9
    >>> climb(jack, 4, dealing=False, rules=hefei, played=frozenset({jack}))  # on to A
    12
    """
    start = progress
    end = progress_end(rules)
    for _ in range(gain):
        binding = is_must_play(progress, rules) and not (
            rules.must_play_once and progress in played
        )
        if binding and not (dealing and progress == start):
            break
        progress += 1
        if progress >= end:
            return end
    return progress


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a finished hand does to the match."""

    progress: tuple[int, int]
    defenders_take: bool
    """The defenders deal next (the seat after the dealer); else the dealer's partner does."""
    note: str
    finished: bool = False
    winner: int | None = None
    """The team that won the match with this hand (when ``finished``); its progress is past
    A."""
    heaven_earth_team: int | None = None
    """The team 上天入地 rewarded, if any."""

    def next_dealer(self, dealer: int) -> int:
        """Who deals after ``dealer``'s hand: the seat after it when the defenders take the
        deal, else the dealer's partner (docs/rules.md "who deals next").

        >>> took = Settlement((0, 4), defenders_take=True, note="")
        >>> took.next_dealer(0), Settlement((5, 3), False, "").next_dealer(0)
        (1, 2)
        """
        return next_seat(dealer) if self.defenders_take else partner(dealer)


def settle(
    preset: Preset,
    progress: tuple[int, int],
    *,
    dealers: int,
    last_by_defenders: bool,
    level: Rank | None,
    kangqi_hand: bool,
    first_hand: bool,
    result: HandResult,
    total: int,
    played: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset()),
) -> Settlement:
    """Move the teams' levels for a finished hand (``dealers`` is the dealing team, 0 or 1;
    ``level`` the hand's level, the dealers'; ``total`` the defenders' points after floors;
    ``played`` each team's must-play levels played, this hand's included). 打大光 is read from
    ``result`` (:attr:`HandResult.shut_out`: no point card won), not from ``total``. The rules
    applied, in order: the 扛旗 hand, 上天入地, Hefei's first hand, the demotion for a kitty dug
    with the level card, 跳级 (after that demotion, when both apply), and the ordinary table (or,
    after the demotion alone, the defenders' climb by their points). A hand that wins the match
    leaves the winner past A, however it was won (by passing A, 跳级, Hefei's first hand), so
    the winner's margin, its 积分, reads every win alike."""
    rules = preset.match
    end = progress_end(rules)
    defenders = 1 - dealers
    new = list(progress)
    shut_out = result.shut_out

    def done(
        take: bool, note: str, winner: int | None = None, heaven_earth: int | None = None
    ) -> Settlement:
        return Settlement((new[0], new[1]), take, note, winner is not None, winner, heaven_earth)

    if kangqi_hand:
        if total >= rules.kangqi_take_over:
            return done(True, f"扛旗 held off: the defenders took {total}")
        new[dealers] = end + 1
        return done(False, "扛旗 passed: the match is won", dealers)
    if result.heaven_earth is not None:
        rewarded = defenders if result.heaven_earth == Side.DEFENDERS else dealers
        new[1 - rewarded] = 0
        # 「另外一方级牌升为A」: 升 is a rise; a team past A (扛旗 next) keeps its place
        rises = new[rewarded] < end - 1
        new[rewarded] = max(new[rewarded], end - 1)
        place = level_name(new[rewarded], rules.circuits)
        return done(
            rewarded == defenders,
            f"上天入地: team {rewarded} {'to' if rises else 'stays at'} {place}, "
            "the other back to 2",
            heaven_earth=rewarded,
        )
    if rules.jump_to_ace and first_hand:
        # 001 §2.3 「…判胜，本局结束」: the 局 runs from 2 to A (§2.1), so the winner has passed A
        if shut_out:
            new[dealers] = end
            return done(False, "first hand 打大光: the dealers win", dealers)
        if result.trick_points >= 80 and last_by_defenders:
            new[defenders] = end
            return done(True, "first hand: 80 and the kitty dug: the defenders win", defenders)
    demotion = next(
        (
            d
            for d in rules.demotions
            if level == d.level
            and last_by_defenders
            and result.trick_points >= d.points
            and _shows_level_card(result.last_play, level, pair=d.pair, exact=d.exact)
        ),
        None,
    )
    dug = ""
    if demotion is not None:
        new[dealers] -= new[dealers] % 13 - demotion.to
        dug = f"kitty dug with the level card: dealers back to {Rank(demotion.to)}"
    if rules.jump_to_ace and not first_hand and (shut_out or total >= 200):
        # 001 §2.4 「比赛中（首局除外）…跳级」: never in the first hand, and with no exception
        # for a kitty dug with the level card (§2.2 applies too: docs/rules.md). 「若打“J\Q\K\A”
        # 时遇到跳级则本局胜」: 打 is the hand's level (the dealers'), not the jumping team's own:
        # the text's example has the defenders at J jump to A when the hand is played at 5.
        team = dealers if shut_out else defenders
        then = f"{dug}; " if dug else ""
        if level is not None and level >= Rank.JACK:
            new[team] = end  # 「不必再打“A”」: the jump wins as passing A does
            return done(
                team == defenders, f"{then}跳级 in a hand at {level}: the match is won", team
            )
        new[team] += Rank.ACE - new[team] % 13
        return done(team == defenders, f"{then}跳级 to A")
    if demotion is not None:
        # 001 §2.2 「台下方按分…升级」: the defenders take the deal and climb by what their total
        # earns the side that takes it; a total the fines left below the mark earns them none
        # (there the table counts the dealers' levels), so a fine never adds levels.
        take, gain = levels_for(total, preset.score, shut_out=shut_out)
        gain = gain if take else 0
        new[defenders] = climb(
            new[defenders], gain, dealing=False, rules=rules, played=played[defenders]
        )
        if new[defenders] >= end and not rules.kangqi:
            return done(True, f"{dug}; the defenders pass A: the match is won", defenders)
        return done(True, f"{dug}; the defenders take the deal, +{gain}")
    take, gain = levels_for(total, preset.score, shut_out=shut_out)
    team = defenders if take else dealers
    new[team] = climb(new[team], gain, dealing=not take, rules=rules, played=played[team])
    if new[team] >= end and not rules.kangqi:
        return done(take, "passed A: the match is won", team)
    return done(take, f"{'defenders take the deal' if take else 'dealers hold'}, +{gain}")


def _shows_level_card(
    cards: tuple[Card, ...], level: Rank | None, *, pair: bool, exact: bool = False
) -> bool:
    """Does the play hold a level card (``pair``: two of one suit)? ``exact``: is the play
    that single card or that pair and nothing else (a single or a pair, when not ``pair``)?

    >>> from chaodipi.engine.cards import parse_cards
    >>> jack = Rank.JACK
    >>> _shows_level_card(tuple(parse_cards("♠J ♠A")), jack, pair=False)
    True
    >>> [_shows_level_card(tuple(parse_cards(t)), jack, pair=False, exact=True)
    ...  for t in ("♠J", "♠JJ", "♠J ♠A", "♠J ♥J")]
    [True, True, False, False]
    """
    levels = [c for c in cards if not c.is_joker and c.rank == level]
    if exact:
        if len(levels) != len(cards) or len(set(cards)) != 1:
            return False
        return len(cards) == 2 if pair else len(cards) in (1, 2)
    if not pair:
        return bool(levels)
    return any(levels.count(c) >= 2 for c in levels)
