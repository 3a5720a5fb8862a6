"""Levels and the match: 003 得分規則, 001 §2 升级和降级, 000 rooms (三圈, 扛旗, J到底, 上天入地)."""

from __future__ import annotations

import pytest

from chaodipi.engine.cards import Card, Rank
from chaodipi.engine.levels import Settlement, climb, levels_for, settle
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.rules import Side
from chaodipi.engine.scoring import HandResult

from .support import cards


def result(
    trick_points: int = 0,
    *,
    last_winner: int = 1,
    last_play: str = "♦3",
    heaven_earth: str | None = None,
) -> HandResult:
    return HandResult(
        dealer=0,
        trick_points=trick_points,
        kitty_points=0,
        kitty_multiplier=0,
        throw_penalty=0,
        fry_penalty=0,
        red_five=0,
        heaven_earth=heaven_earth,
        last_winner=last_winner,
        last_play=tuple(sorted(cards(last_play))),
    )


def settle_at(
    preset: str,
    progress: tuple[int, int],
    total: int,
    *,
    level: Rank | None = None,
    first_hand: bool = False,
    kangqi_hand: bool = False,
    last_by_defenders: bool = False,
    last_play: str = "♦3",
    heaven_earth: Side | None = None,
) -> Settlement:
    """Team 0 deals; the defenders (team 1) took ``total``."""
    lvl = Rank(progress[0] % 13) if level is None and not kangqi_hand else level
    return settle(
        PRESETS[preset],
        progress,
        dealers=0,
        last_by_defenders=last_by_defenders,
        level=lvl,
        kangqi_hand=kangqi_hand,
        first_hand=first_hand,
        result=result(total, last_play=last_play, heaven_earth=heaven_earth),
        total=total,
    )


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        (60, (True, 0)),
        (75, (True, 0)),
        (80, (True, 1)),
        (95, (True, 1)),
        (100, (True, 2)),
        (120, (True, 3)),
        (145, (True, 3)),
        (150, (True, 4)),
        (180, (True, 5)),
        (200, (True, 6)),
        (230, (True, 6)),
    ],
)
def test_the_003_table(points: int, expected: tuple[bool, int]) -> None:
    """003 「抓分方獲得60分取得勝利資格，莊家下莊；獲得80分升1級，100分升2級，120分升3級，150分升4級，180分升5級，200分升6級」."""
    assert levels_for(points, PRESETS["classic"].score) == expected


@pytest.mark.parametrize(
    ("points", "shut_out", "expected"),
    [
        (55, False, (False, 1)),
        (30, False, (False, 1)),
        (25, False, (False, 2)),
        (5, False, (False, 2)),
        (0, True, (False, 3)),
        (0, False, (False, 2)),
        (-80, False, (False, 2)),
        (10, True, (False, 3)),
    ],
)
def test_dealers_below_the_mark(points: int, shut_out: bool, expected: tuple[bool, int]) -> None:
    """Seeds silent (docs/rules.md "dealers below 60"): 升级's custom scaled to the 60 mark, its
    +3 for 大光 (the defenders won no point card, whatever penalties did to their total: 0 after
    penalties is +2; 10 from the dealers' failed throw with no card won is still 大光)."""
    assert levels_for(points, PRESETS["classic"].score, shut_out=shut_out) == expected


def hand_result(
    tricks: int, *, throws: int = 0, kitty: int = 0, multiplier: int = 0, floor: bool = True
) -> HandResult:
    """A hand the dealers (team 0, seat 0) won the last trick of unless ``multiplier``."""
    return HandResult(
        dealer=0,
        trick_points=tricks,
        kitty_points=kitty,
        kitty_multiplier=multiplier,
        throw_penalty=throws,
        fry_penalty=0,
        red_five=0,
        heaven_earth=None,
        last_winner=1 if multiplier else 0,
        last_play=tuple(cards("♦3")),
        floor_at_zero=floor,
    )


def settle_result(
    preset: str, progress: tuple[int, int], hand: HandResult, *, first_hand: bool = False
) -> Settlement:
    """Team 0 deals at its level; the defenders (team 1) scored ``hand``."""
    return settle(
        PRESETS[preset],
        progress,
        dealers=0,
        last_by_defenders=hand.last_winner == 1,
        level=Rank(progress[0] % 13),
        kangqi_hand=False,
        first_hand=first_hand,
        result=hand,
        total=hand.total,
    )


def test_classic_da_guang_is_no_point_card_won() -> None:
    """The dealers' +3 is 升级's 大光 (docs/rules.md "what 打大光 is": the defenders won no point
    card), not a total of 0 or less.

    Positions (classic, team 0 deals at 5, team 1 at 3): (a) the defenders won 20 in tricks and
    failed a throw of three cards (-30): total -10, verdict +2 for the dealers (under half the
    mark), to 7; (b) they won no point card: +3, to 8."""
    took_20 = settle_result("classic", (Rank.FIVE, 1), hand_result(20, throws=-30, floor=False))
    assert took_20.progress == (Rank.SEVEN, 1) and not took_20.defenders_take
    took_none = settle_result("classic", (Rank.FIVE, 1), hand_result(0, floor=False))
    assert took_none.progress == (Rank.EIGHT, 1)


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        (80, (True, 0)),
        (95, (True, 1)),
        (120, (True, 4)),
        (75, (False, 0)),
        (70, (False, 1)),
        (40, (False, 4)),
    ],
)
def test_hefei_ten_points_a_level(points: int, expected: tuple[bool, int]) -> None:
    """001 §2.1 「升级时，10分为一级，零头5分不算分」 beyond the 80 mark (§2.2) either way."""
    assert levels_for(points, PRESETS["hefei"].score) == expected


def test_must_play_levels_stop_a_climb() -> None:
    """001 §2.1 「其中“2”、“J”、“A”为必打牌…如碰上“2”、“J”、“A”等必打牌，多余的分数作废」."""
    rules = PRESETS["hefei"].match
    nine, jack, king = Rank.NINE, Rank.JACK, Rank.KING
    assert climb(nine, 5, dealing=True, rules=rules) == jack
    assert climb(jack, 2, dealing=True, rules=rules) == king  # playing J now: passes it
    assert climb(jack, 2, dealing=False, rules=rules) == jack  # J not played yet
    assert climb(0, 3, dealing=False, rules=rules) == 0  # 2 must be played first


def test_hefei_must_play_levels_already_played_bind_no_more() -> None:
    """001 §2.1 「如“2”、“J”、“A”已打过，则不再为必打牌，也可以计分升级」: a must-play level the team has
    played (dealt a hand at, won or lost) no longer stops its climbs.

    Position 1: a team that dealt at J and lost defends and takes 120 (+4): it passes J and
    stops at the next must-play level, A (Q, K, A; the fourth level is lost). Without J
    played it stays at J (the old verdict, still right for a team that never dealt at J)."""
    rules = PRESETS["hefei"].match
    jack, ace = Rank.JACK, Rank.ACE
    assert climb(jack, 4, dealing=False, rules=rules, played=frozenset({0, jack})) == ace
    assert climb(jack, 4, dealing=False, rules=rules, played=frozenset({0})) == jack
    # in a preset without the clause J still binds until the team passes it as dealers
    mingchao = PRESETS["mingchao"].match
    assert climb(jack, 4, dealing=False, rules=mingchao, played=frozenset({jack})) == jack


def test_hefei_back_to_j_after_playing_j_climbs_past_it() -> None:
    """001 §2.2 「以单张“A” 抠底，且台面上拿满80分的，台上方则回到“J”」 with §2.1 「如“2”、“J”、“A”已打过，
    则不再为必打牌」.

    Position: team 0 (which dealt at 2, J and A on its way) deals at A; team 1 (at 4) wins the
    last trick with a single ♠A and 90 on the table: team 0 goes back to J. Next hand team 0
    defends and takes 110 (+3): it climbs J → Q → K → A (J was played already); with 120 (+4)
    it passes A, which it has played too, and wins the match."""
    played = (frozenset({0, Rank.JACK, Rank.ACE}), frozenset({0}))
    hefei = PRESETS["hefei"]
    back = settle(
        hefei,
        (Rank.ACE, 3),
        dealers=0,
        last_by_defenders=True,
        level=Rank.ACE,
        kangqi_hand=False,
        first_hand=False,
        result=result(90, last_play="♠A"),
        total=90,
        played=played,
    )
    assert back.progress == (Rank.JACK, 4) and back.defenders_take
    for total, expected, finished in ((110, Rank.ACE, False), (120, 13, True)):
        s = settle(
            hefei,
            back.progress,
            dealers=1,
            last_by_defenders=False,
            level=Rank.SIX,
            kangqi_hand=False,
            first_hand=False,
            result=result(total, last_winner=0),
            total=total,
            played=played,
        )
        assert s.defenders_take and s.progress[0] == expected and s.finished is finished, s
        if finished:
            assert s.winner == 0


def test_a_must_be_played_to_win() -> None:
    rules = PRESETS["classic"].match
    assert climb(Rank.QUEEN, 5, dealing=True, rules=rules) == Rank.ACE
    assert climb(Rank.ACE, 1, dealing=True, rules=rules) == 13


def test_three_circuits_and_only_the_last_circuits_a_must_be_played() -> None:
    """暗炒 「每轮比赛打三圈，其中第三圈的A必打」."""
    rules = PRESETS["anchao"].match
    assert climb(Rank.QUEEN, 3, dealing=True, rules=rules) == 13  # K, A, then circuit 2 at 2
    assert climb(26 + Rank.QUEEN, 3, dealing=True, rules=rules) == 26 + Rank.ACE
    won = settle_at("anchao", (26 + Rank.ACE, 5), 0)
    assert won.finished and won.winner == 0


def test_holding_the_deal_and_passing_a_wins_the_match() -> None:
    s = settle_at("classic", (Rank.ACE, 3), 20)
    assert s.finished and s.winner == 0 and not s.defenders_take


def test_defenders_take_the_deal_and_climb() -> None:
    s = settle_at("classic", (4, 3), 125)
    assert s.defenders_take and s.progress == (4, 6) and not s.finished


def test_kangqi_after_a_the_kangqi_hand() -> None:
    """扛旗 「当一家打牌通过A后，就要扛旗打无主…抓分方必须拿满 100 分才可以上台。通过扛旗，一局牌局就算结束」."""
    passed = settle_at("kangqi", (Rank.ACE, 3), 20)
    assert passed.progress == (13, 3) and not passed.finished
    held_off = settle_at("kangqi", (13, 3), 100, kangqi_hand=True)
    assert held_off.defenders_take and held_off.progress == (13, 3) and not held_off.finished
    won = settle_at("kangqi", (13, 3), 95, kangqi_hand=True)
    assert won.finished and won.winner == 0


def test_heaven_earth_sends_the_punished_side_to_2_and_the_other_to_a() -> None:
    """003 「上天入地後，被懲罰方會降級至第一局且級牌為2；另外一方升至第三局且級牌為A」."""
    s = settle_at("anchao", (20, 9), 40, heaven_earth=Side.DEFENDERS, last_by_defenders=True)
    assert s.progress == (0, 38) and s.defenders_take and s.heaven_earth_team == 1
    s = settle_at("classic", (5, 9), 40, heaven_earth=Side.DEALERS)
    assert s.progress == (12, 0) and not s.defenders_take


def test_mingchao_j_to_the_bottom() -> None:
    """明炒 「J到底:如果庄家打J，抓分方最后一张或一对是J(必须是最大的)抠底，如果抓到80分，则庄家降级打2」;
    「如果庄家打A，抓分方最后一对是A…则庄家降级打J」."""
    s = settle_at("mingchao", (Rank.JACK, 3), 85, last_by_defenders=True, last_play="♠J")
    assert s.progress == (0, 4) and s.defenders_take
    s = settle_at("mingchao", (Rank.ACE, 3), 85, last_by_defenders=True, last_play="♠A")
    assert s.progress[0] == Rank.ACE  # a single A is not enough at A
    s = settle_at("mingchao", (Rank.ACE, 3), 85, last_by_defenders=True, last_play="♠AA")
    assert s.progress[0] == Rank.JACK


def test_mingchao_j_to_the_bottom_needs_a_single_j_or_a_j_pair() -> None:
    """明炒 「J到底:如果庄家打J，抓分方最后一张或一对是J(必须是最大的)抠底，如果抓到80分，则庄家降级打2」:
    the defenders' last play must be one J or one pair of J, winning the trick; a throw
    holding a J is neither.

    Position: team 0 deals at J, team 1 (at 4) wins the last trick and took 90 in tricks.
    Verdicts: with the throw ♠J ♠A the dealers stay at J and the defenders take the deal, +1
    (003 table: 90 → +1); the same with ♠J ♥J (two singles, not a pair); with ♠JJ the
    dealers go back to 2."""
    s = settle_at("mingchao", (Rank.JACK, 3), 90, last_by_defenders=True, last_play="♠J ♠A")
    assert s.progress == (Rank.JACK, 4) and s.defenders_take and "kitty dug" not in s.note
    s = settle_at("mingchao", (Rank.JACK, 3), 90, last_by_defenders=True, last_play="♠J ♥J")
    assert s.progress == (Rank.JACK, 4)
    s = settle_at("mingchao", (Rank.JACK, 3), 90, last_by_defenders=True, last_play="♠JJ")
    assert s.progress == (0, 4)
    # at A: 「抓分方最后一对是A」: the pair alone, not a throw holding it
    s = settle_at("mingchao", (Rank.ACE, 3), 90, last_by_defenders=True, last_play="♠AA ♠K")
    assert s.progress == (Rank.ACE, 4)


def test_hefei_a_and_j_kitty_demotions() -> None:
    """001 §2.2 「以同花色的一对“A”抠底…台上方重新回到“2”；以单张“A”抠底…台上方则回到“J”；打J时，台下方以“J”抠底…台上方重新回到“2”」."""
    s = settle_at("hefei", (Rank.ACE, 3), 90, last_by_defenders=True, last_play="♠AA")
    assert s.progress == (0, 4)
    s = settle_at("hefei", (Rank.ACE, 3), 90, last_by_defenders=True, last_play="♠A")
    assert s.progress == (Rank.JACK, 4)
    s = settle_at("hefei", (Rank.JACK, 3), 80, last_by_defenders=True, last_play="♣J")
    assert s.progress == (0, 3)


def dug_with(
    last_play: str, tricks: int, *, throws: int = 0, kitty: int = 0, multiplier: int = 0
) -> HandResult:
    """A hand dealt by seat 0 whose last trick a defender (seat 1) won with ``last_play``."""
    return HandResult(
        dealer=0,
        trick_points=tricks,
        kitty_points=kitty,
        kitty_multiplier=multiplier,
        throw_penalty=throws,
        fry_penalty=0,
        red_five=0,
        heaven_earth=None,
        last_winner=1,
        last_play=tuple(cards(last_play)),
        floor_at_zero=True,
    )


@pytest.mark.parametrize(
    ("kitty", "throws", "defenders_after"),
    [
        (0, 0, Rank.FIVE),
        (0, -20, Rank.FIVE),
        (0, -80, Rank.FIVE),
        (5, 0, Rank.SEVEN),
        (5, -20, Rank.FIVE),
        (5, -80, Rank.FIVE),
    ],
)
def test_hefei_a_fine_never_adds_levels_after_a_dig_with_the_level_card(
    kitty: int, throws: int, defenders_after: Rank
) -> None:
    """001 §2.2 「打A时，台下方以最后一次脱手牌中带有同花色的一对“A”抠底，且台面上拿满80分的（不包含抠底中的
    分），台下方按分（台面上的分+扣底中的得分）升级，台上方重新回到“2”」 with §2.1 「10分为一级」 and §4.2
    「甩牌方要按照所甩牌的张数被罚分，每张罚10分」: the defenders climb by their points, a level per full 10
    beyond 80; a total the fines left below 80 earns them nothing (docs/rules.md "a fine never
    adds levels").

    Position: a later Hefei hand; team 0 deals at A, team 1 is at 5. The defenders take 80 on
    the table and seat 1 wins the last trick with ♠A♠A. Verdicts: the dealers go back to 2 and
    the defenders take the deal; with an empty kitty they stay at 5 (80: +0) whether they failed
    no throw, a ♣Q♣9 throw (-20) or throws for -80; with a 5-point kitty dug ×4 (100: +2) they
    go to 7, and a -20 or -80 fine leaves them at 5."""
    hand = dug_with("♠AA", 80, throws=throws, kitty=kitty, multiplier=4)
    s = settle(
        PRESETS["hefei"],
        (Rank.ACE, Rank.FIVE),
        dealers=0,
        last_by_defenders=True,
        level=Rank.ACE,
        kangqi_hand=False,
        first_hand=False,
        result=hand,
        total=hand.total,
        played=(frozenset({0, Rank.JACK, Rank.ACE}), frozenset({0})),
    )
    assert s.progress == (0, defenders_after) and s.defenders_take and not s.finished, s


@pytest.mark.parametrize(
    ("throws", "defenders_after"), [(0, Rank.SIX), (-40, Rank.FIVE), (-60, Rank.FIVE)]
)
def test_mingchao_j_to_the_bottom_a_fine_never_adds_levels(
    throws: int, defenders_after: Rank
) -> None:
    """明炒 「J到底:如果庄家打J，抓分方最后一张或一对是J(必须是最大的)抠底，如果抓到80分，则庄家降级打2」 with
    000 「抓分方甩错1张牌，扣10分」 and 003 「獲得80分升1級」: the defenders climb by the table their total
    reaches; below the 60 mark it earns them nothing (docs/rules.md "a fine never adds levels").

    Position: team 0 deals at J, team 1 is at 5; the defenders take 80 on the table, the kitty
    is empty and seat 1 wins the last trick with a single ♠J. Verdicts: the dealers go back to 2
    and the defenders take the deal; with no fine (80) they climb to 6; with throw fines of -40
    (40) or -60 (20) they stay at 5."""
    hand = dug_with("♠J", 80, throws=throws, multiplier=2)
    s = settle(
        PRESETS["mingchao"],
        (Rank.JACK, Rank.FIVE),
        dealers=0,
        last_by_defenders=True,
        level=Rank.JACK,
        kangqi_hand=False,
        first_hand=False,
        result=hand,
        total=hand.total,
    )
    assert s.progress == (0, defenders_after) and s.defenders_take, s


def test_hefei_defenders_who_climb_past_a_after_a_dig_win_the_match() -> None:
    """001 §2.2 「台下方按分（台面上的分+扣底中的得分）升级」 with §2.1 「如“2”、“J”、“A”已打过，则不再为必打牌，
    也可以计分升级」 and 「先通过“A”的一方为胜方」.

    Position: a later Hefei hand; team 0 deals at A; team 1, at K, has dealt at 2, J and A
    before. The defenders take 80 on the table and seat 1 wins the last trick with ♠A♠A over
    a 10-point kitty (×4): 120, +4. Verdict: team 0 goes back to 2; team 1 climbs K, A and past
    A (played already, it binds no more) and wins the match."""
    hand = dug_with("♠AA", 80, kitty=10, multiplier=4)
    s = settle(
        PRESETS["hefei"],
        (Rank.ACE, Rank.KING),
        dealers=0,
        last_by_defenders=True,
        level=Rank.ACE,
        kangqi_hand=False,
        first_hand=False,
        result=hand,
        total=hand.total,
        played=(frozenset({0, Rank.JACK, Rank.ACE}), frozenset({0, Rank.JACK, Rank.ACE})),
    )
    assert s.progress == (0, 13) and s.finished and s.winner == 1, s


def test_mingchao_j_to_the_bottom_the_defenders_take_the_deal() -> None:
    """明炒 「如果庄家打J，抓分方最后一张或一对是J(必须是最大的)抠底，如果抓到80分，则庄家降级打2，由坐庄方打2」:
    the dealers' level goes back to 2 and the defenders, who took 80, take the deal
    (docs/rules.md "明炒 「由坐庄方打2」": 坐庄方 is the side that was dealing, and 2 is its level
    when it deals again; it does not keep the deal).

    Position: seat 0 deals at J (team 0), team 1 is at 5; the defenders take 85 on the table
    and seat 1 wins the last trick with ♠JJ. Verdict: team 0 at 2, team 1 at 6 (85: +1), and
    seat 1, the seat after the dealer, deals the next hand, at team 1's 6."""
    hand = dug_with("♠JJ", 85, multiplier=4)
    s = settle(
        PRESETS["mingchao"],
        (Rank.JACK, Rank.FIVE),
        dealers=0,
        last_by_defenders=True,
        level=Rank.JACK,
        kangqi_hand=False,
        first_hand=False,
        result=hand,
        total=hand.total,
    )
    assert s.progress == (0, Rank.SIX) and s.defenders_take
    assert s.next_dealer(0) == 1


def test_hefei_first_hand_ends_the_match() -> None:
    """001 §2.3 「首局主叫方打大光或防守方台面抓80分及以上并抠底判胜，本局结束」."""
    s = settle_at("hefei", (0, 0), 0, first_hand=True)
    assert s.finished and s.winner == 0
    s = settle_at("hefei", (0, 0), 85, first_hand=True, last_by_defenders=True)
    assert s.finished and s.winner == 1
    s = settle_at("hefei", (0, 0), 85, first_hand=True, last_by_defenders=False)
    assert not s.finished


def test_hefei_no_jump_in_the_first_hand() -> None:
    """001 §2.4 「比赛中（首局除外）主叫方打大光则跳级或防守方抓200分及以上则跳级」: no 跳级 in the
    first hand, which §2.3 settles instead (the defenders win it only with 80 on the table
    and the kitty dug).

    Positions (first hand, team 0 deals at 2, both teams at 2), verdict for each: the defenders
    take the deal and stay at 2 (2 is a must-play level they have not played), no 跳级, the
    match goes on:
    - 150 in tricks + 60 from the dealers' failed throws = 210, the dealers won the last trick;
    - 40 in tricks + a 50-point kitty ×4 = 240, the defenders won the last trick."""
    hefei = PRESETS["hefei"]
    for tricks, kitty, multiplier, throws, last_by_defenders in (
        (150, 0, 0, 60, False),
        (40, 50, 4, 0, True),
    ):
        result = HandResult(
            dealer=0,
            trick_points=tricks,
            kitty_points=kitty,
            kitty_multiplier=multiplier,
            throw_penalty=throws,
            fry_penalty=0,
            red_five=0,
            heaven_earth=None,
            last_winner=1 if last_by_defenders else 0,
            last_play=tuple(cards("♦3")),
        )
        assert result.total in (210, 240)
        s = settle(
            hefei,
            (0, 0),
            dealers=0,
            last_by_defenders=last_by_defenders,
            level=Rank.TWO,
            kangqi_hand=False,
            first_hand=True,
            result=result,
            total=result.total,
        )
        assert s.defenders_take and s.progress == (0, 0) and not s.finished, s
        assert "跳级" not in s.note


def test_hefei_jump_from_j_wins_by_the_level_the_hand_is_played_at() -> None:
    """001 §2.4 「主叫方打“5”时（防守方打“J”） 防守方抓200分则防守方直接打“A”；若打“J\\Q\\K\\A”时遇到
    跳级则本局胜」: 打 is the level of the hand (the dealers'), as the example shows.

    Positions (a later hand, team 0 deals): (a) the text's example, dealers at 5, defenders at J,
    the defenders take 200: they go to A and the match goes on; (b) its mirror, the hand played
    at J, defenders at 5 take 200: the jump wins them the match; (c) the dealers' 打大光 reads
    the same way: at J it wins, at 5 with the defenders at K it goes to A."""
    example = settle_at("hefei", (Rank.FIVE, Rank.JACK), 200)
    assert example.progress == (Rank.FIVE, Rank.ACE) and example.defenders_take
    assert not example.finished
    mirror = settle_at("hefei", (Rank.JACK, Rank.FIVE), 200)
    assert mirror.finished and mirror.winner == 1
    dealers_at_j = settle_at("hefei", (Rank.JACK, Rank.FIVE), 0)
    assert dealers_at_j.finished and dealers_at_j.winner == 0
    dealers_at_5 = settle_at("hefei", (Rank.FIVE, Rank.KING), 0)
    assert dealers_at_5.progress == (Rank.ACE, Rank.KING) and not dealers_at_5.finished


def test_hefei_da_guang_is_no_point_card_won_not_a_total_of_zero() -> None:
    """001 §2.3 「首局主叫方打大光…判胜」, §2.4 「主叫方打大光则跳级」 with §4.1 「台下罚分罚至0分为止」:
    打大光 is the defenders winning no point card (docs/rules.md "what 打大光 is"), not their
    total floored at 0.

    Positions (team 0 deals at 5, team 1 at 3):
    - the defenders won 30 in tricks and failed throws for -40: the total is 0, not 大光; no
      跳级: the dealers climb 8 levels and stop at J, a must-play level (later hand); in the
      first hand (both at 2) they climb 8 levels to 10, and the match goes on;
    - they won 0 in tricks but dug a 10-point kitty with a single (×2): not 大光;
    - they won no point card and failed a throw (-20): 大光, the dealers jump to A; in the first
      hand they win the match."""
    penalised = hand_result(30, throws=-40)
    assert penalised.total == 0
    later = settle_result("hefei", (Rank.FIVE, 1), penalised)
    assert later.progress == (Rank.JACK, 1) and not later.finished and "跳级" not in later.note
    first = settle_result("hefei", (0, 0), penalised, first_hand=True)
    assert first.progress == (Rank.TEN, 0) and not first.finished
    dug = settle_result("hefei", (Rank.FIVE, 1), hand_result(0, kitty=10, multiplier=2))
    assert "跳级" not in dug.note and dug.progress == (Rank.JACK, 1)
    none = hand_result(0, throws=-20)
    assert settle_result("hefei", (Rank.FIVE, 1), none).progress == (Rank.ACE, 1)
    won = settle_result("hefei", (0, 0), none, first_hand=True)
    assert won.finished and won.winner == 0


def test_jump_to_ace() -> None:
    """001 §2.4 「主叫方打“5”时打大光则直接打“A”…若打“J\\Q\\K\\A”时遇到跳级则本局胜」."""
    s = settle_at("hefei", (Rank.FIVE, 2), 0)
    assert s.progress == (Rank.ACE, 2) and not s.finished
    s = settle_at("hefei", (Rank.QUEEN, 2), 0)
    assert s.finished and s.winner == 0
    s = settle_at("hefei", (Rank.FIVE, 2), 200)
    assert s.progress == (Rank.FIVE, Rank.ACE) and s.defenders_take


def test_level_card_demotion_needs_the_level_card() -> None:
    assert Card.parse("♠J").rank == Rank.JACK
    s = settle_at("mingchao", (Rank.JACK, 3), 85, last_by_defenders=True, last_play="♠Q")
    assert s.progress == (Rank.JACK, 4)


def test_hefei_a_dig_with_the_level_card_does_not_switch_jump_off() -> None:
    """001 §2.4 「比赛中（首局除外）…防守方抓200分及以上则跳级…若打“J\\Q\\K\\A”时遇到跳级则本局胜」 has no
    exception for §2.2 「以同花色的一对“A”抠底…台上方重新回到“2”」 / 「打J时，台下方以“J”抠底…台上方重新回到
    “2”」: both apply (docs/rules.md "a dig with the level card and 跳级").

    Positions (a later hand, team 0 deals, team 1 at 5; the defenders won the last trick and
    take 220, 100 on the table):
    - at A, a 30-point kitty dug with ♠KK (×4): 跳级 in a hand at A, team 1 wins the match
      (past A: 「不必再打“A”」), the dealers stay at A;
    - the same dug with ♠AA: team 1 wins the match and the dealers go back to 2;
    - at J, a 60-point kitty dug with a single ♠Q (×2): team 1 wins, the dealers stay at J;
    - the same dug with a single ♠J: team 1 wins, the dealers go back to 2."""
    hefei = PRESETS["hefei"]
    for level, kitty, last_play, dealers_after in (
        (Rank.ACE, 30, "♠KK", Rank.ACE),
        (Rank.ACE, 30, "♠AA", 0),
        (Rank.JACK, 60, "♠Q", Rank.JACK),
        (Rank.JACK, 60, "♠J", 0),
    ):
        hand = HandResult(
            dealer=0,
            trick_points=100,
            kitty_points=kitty,
            kitty_multiplier=4 if len(cards(last_play)) == 2 else 2,
            throw_penalty=0,
            fry_penalty=0,
            red_five=0,
            heaven_earth=None,
            last_winner=1,
            last_play=tuple(cards(last_play)),
            floor_at_zero=True,
        )
        assert hand.total == 220
        s = settle(
            hefei,
            (level, Rank.FIVE),
            dealers=0,
            last_by_defenders=True,
            level=level,
            kangqi_hand=False,
            first_hand=False,
            result=hand,
            total=hand.total,
            played=(frozenset({0, Rank.JACK}), frozenset({0})),
        )
        assert s.finished and s.winner == 1 and s.defenders_take, (last_play, s)
        assert s.progress == (dealers_after, 13), (last_play, s)
        assert "跳级" in s.note


def test_kangqi_heaven_earth_never_lowers_a_team_past_a() -> None:
    """扛旗 「抓分方用含有同花色的5、10、K的牌型抠底可以享受奖励“上天入地”。被惩罚方会级牌降为2;另外一方级牌升为A」:
    升 is a rise; a team that has passed A (扛旗 next) keeps its place (docs/rules.md "上天入地
    for a team past A").

    Position (kangqi): team 1 deals at 9 (progress 7); team 0, past A (progress 13, 扛旗
    next), defends and wins the last trick with ♣5 ♣10 ♣K. Verdict: team 1 back to 2, team 0
    stays at 13 and takes the deal: its next hand is the 扛旗 hand."""
    s = settle(
        PRESETS["kangqi"],
        (13, Rank.NINE),
        dealers=1,
        last_by_defenders=True,
        level=Rank.NINE,
        kangqi_hand=False,
        first_hand=False,
        result=HandResult(
            dealer=1,
            trick_points=40,
            kitty_points=10,
            kitty_multiplier=2,
            throw_penalty=0,
            fry_penalty=0,
            red_five=0,
            heaven_earth=Side.DEFENDERS,
            last_winner=0,
            last_play=tuple(cards("♣5 ♣10 ♣K")),
        ),
        total=60,
    )
    assert s.progress == (13, 0) and s.defenders_take and not s.finished
    assert s.heaven_earth_team == 0
    assert "to A" not in s.note
    # a team below A still rises to A
    s = settle_at("kangqi", (Rank.FIVE, Rank.SEVEN), 40, heaven_earth=Side.DEFENDERS)
    assert s.progress == (0, Rank.ACE)
