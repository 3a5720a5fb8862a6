"""Both action forms reach every legal action and nothing else (chaodipi.rl.cardwise,
chaodipi.rl.candidates).

On positions sampled from random matches of every preset (and the 扛旗 hand):

* card by card: walking every sequence the mask allows yields the legal set exactly, each
  action once, when it is small enough to walk (up to 3,000 actions); on larger ones (a bury,
  a free discard) every sampled legal action is spelled through the mask to itself, and every
  random walk of the mask ends in an action the engine's rules accept;
* the list form lists the legal set exactly when it has at most ``limit`` actions, else
  ``limit`` distinct legal ones; each row of features is its action's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tests.rl_support import KANGQI_HAND, need_rl

need_rl()

import numpy as np  # noqa: E402

from chaodipi.engine.actions import Action, LegalActions  # noqa: E402
from chaodipi.engine.match import Match  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.rl.candidates import candidates, features_of  # noqa: E402
from chaodipi.rl.cardwise import (  # noqa: E402
    BID_BASE,
    NUM_ACTIONS,
    CardBuilder,
    action_name,
    reachable,
    spell,
)

WALKABLE = 3_000


def positions(preset: str, seeds: range, every: int) -> Iterator[tuple[Match, LegalActions]]:
    """Decisions of random matches (two hands each), one in ``every``."""
    for seed in seeds:
        if preset == KANGQI_HAND:
            match = Match(PRESETS["kangqi"], seed=seed, max_hands=1, progress=[13, 0], dealer=0)
        else:
            match = Match(PRESETS[preset], seed=seed, max_hands=2)
        rng = random.Random(f"{preset}/{seed}")
        step = 0
        while not match.over:
            legal = match.legal_actions()
            if step % every == 0:
                yield match, legal
            match.apply(match.to_play, legal.sample(rng))
            step += 1


def _walk(builder: CardBuilder, rng: np.random.Generator) -> Action:
    while builder.chosen is None:
        allowed = np.flatnonzero(builder.mask())
        assert allowed.size, "a mask with nothing allowed before the choice is complete"
        builder.step(int(allowed[rng.integers(allowed.size)]))
    return builder.chosen


def _spelled(legal: LegalActions, action: Action) -> Action | None:
    builder = CardBuilder(legal)
    for action_id in spell(action):
        assert builder.mask()[action_id], (str(action), action_name(action_id))
        builder.step(action_id)
    return builder.chosen


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_card_by_card_reaches_every_legal_action_and_nothing_else(preset: str) -> None:
    rng = np.random.default_rng(0)
    pick = random.Random(preset)
    walked = large = bids = 0
    for match, legal in positions(preset, range(3), every=5):
        seat = legal.seat
        if legal.count() <= WALKABLE:
            found = list(reachable(legal))
            assert len(found) == len(set(found)) == legal.count()
            assert set(found) == set(legal)
            walked += 1
            bids += bool(legal.bids)
        else:
            large += 1
            for _ in range(20):
                action = legal.sample(pick)
                assert _spelled(legal, action) == action
            for _ in range(20):
                action = _walk(CardBuilder(legal), rng)
                match.hand.check(seat, action)  # the rules accept it (IllegalAction if not)
                assert action in legal
    assert walked > 50
    if preset != KANGQI_HAND:  # which has no bids and no bury
        assert bids > 0 and large > 0


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_the_list_form_lists_the_legal_set_or_a_sample_of_it(preset: str) -> None:
    rng = random.Random(preset)
    full = sampled = 0
    for _match, legal in positions(preset, range(3), every=7):
        actions, features = candidates(legal, rng, limit=64)
        assert features.shape == (len(actions), 70)
        for action, row in zip(actions, features, strict=True):
            np.testing.assert_array_equal(row, features_of(action))
        assert len(set(actions)) == len(actions) and all(a in legal for a in actions)
        if legal.count() <= 64:
            assert set(actions) == set(legal)
            full += 1
        else:
            assert len(actions) == 64
            sampled += 1
    assert full > 20
    assert sampled > 0 or preset == KANGQI_HAND  # no bury there, and no lead of 64 ways


def test_action_ids_name_every_bid_and_refuse_what_is_not_an_id() -> None:
    names = [action_name(i) for i in range(BID_BASE, NUM_ACTIONS)]
    assert names[:2] == ["bid SINGLE ♠", "bid SINGLE ♥"]
    assert "bid SMALL_JOKERS" in names and "bid RED_FIVES NT" in names
    assert len(set(names)) == len(names) == 19
    with pytest.raises(ValueError, match="75 is not an action id: they are 0 to 74"):
        action_name(NUM_ACTIONS)


def test_the_list_forms_draws_are_uniform_over_an_options_plays() -> None:
    from collections import Counter

    from scipy.stats import chisquare

    from chaodipi.engine.cards import parse_cards
    from chaodipi.engine.legal import Option
    from chaodipi.rl.candidates import _Sampler

    option = Option(tuple(parse_cards("♠A")), tuple(parse_cards("♠99 ♠88 ♠7 ♠3")), 2, 4)
    plays = set(option.plays())
    sampler = _Sampler(option)
    assert sampler.count == len(plays) == option.count()
    rng = random.Random(1)
    drawn = Counter(sampler.sample(rng) for _ in range(20 * len(plays) * 20))
    assert set(drawn) == plays
    assert chisquare([drawn[p] for p in sorted(plays)]).pvalue > 0.001


def test_a_limit_below_the_bids_lists_some_of_them_and_a_limit_of_0_is_refused() -> None:
    from chaodipi.engine.bidding import Bid, BidKind
    from chaodipi.engine.cards import Suit
    from chaodipi.engine.phase import Phase

    bids = tuple(Bid(BidKind.RED_FIVES, (), suit) for suit in (*Suit, None))
    legal = LegalActions(Phase.DECLARE, 0, can_pass=True, bids=bids)
    actions, features = candidates(legal, random.Random(0), limit=3)
    assert len(set(actions)) == 3 and all(a in legal for a in actions)
    assert features.shape == (3, 70)
    with pytest.raises(ValueError, match="limit 0: list at least one candidate"):
        candidates(legal, random.Random(0), limit=0)
