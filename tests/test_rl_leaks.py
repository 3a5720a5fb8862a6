"""Nothing a seat cannot see reaches its observation (chaodipi.rl.env, chaodipi.rl.encoding).

On whole random hands of every preset (and the 扛旗 hand; two hands of a match, hefei; the
list form, anchao), at every fourth step (every second in the list form) and for every seat,
a copy of the environment has every card that seat cannot see dealt anew: the other seats'
hands, the kitty (unless the seat knows it: it buried it last, or it was turned up), the
cards not yet dealt, and the cards in every event the seat is not shown. The copy's
observation of that seat, built afresh from ``observe`` (not carried forward like the
environment's), equals the environment's own, vector and mask alike (and the candidates); the
change is real (the true deal differs) in almost every trial."""

from __future__ import annotations

import dataclasses
import random

import pytest

from tests.rl_support import KANGQI_HAND, need_rl, random_steps, reset_options
from tests.support import copied

need_rl()

import numpy as np  # noqa: E402

from chaodipi.engine.cards import Card  # noqa: E402
from chaodipi.engine.knowledge import infer  # noqa: E402
from chaodipi.engine.phase import Phase  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.engine.view import observe  # noqa: E402
from chaodipi.rl.encoding import ViewEncoder  # noqa: E402
from chaodipi.rl.env import AGENTS, ChaoDipiEnv  # noqa: E402


def _knows_kitty(env: ChaoDipiEnv, seat: int) -> bool:
    """Whether ``seat`` knows the kitty now, by the engine's own inference (not the encoder's)."""
    return infer(observe(env.match, seat)).kitty is not None


def _redeal_hidden(env: ChaoDipiEnv, seat: int, rng: random.Random) -> bool:
    """Deal every card ``seat`` cannot see anew among the places that hold them (each keeps its
    number of cards) and scramble the cards of every event it is not shown. True when the
    deal changed."""
    hand = env.match.hand
    auction = hand.auction
    hands = hand.play.hands if hand.play is not None else auction.hands
    others = [s for s in range(4) if s != seat]
    pools: list[list[Card]] = [[c for c, n in sorted(hands[s].items()) for _ in range(n)]
                               for s in others]
    # while a seat buries, the kitty is in its hand
    kitty_hidden = (
        bool(auction.kitty) and hand.phase is not Phase.BURY and not _knows_kitty(env, seat)
    )
    if kitty_hidden:
        pools.append(list(auction.kitty))
    dealt = sum(len(d) for d in auction.dealt)
    end = len(auction._deck) - 8
    undealt = list(auction._deck[dealt:end]) if hand.phase is Phase.DECLARE else []
    pools.append(undealt)
    before = [sorted(p) for p in pools]
    cards = [c for p in pools for c in p]
    rng.shuffle(cards)
    start = 0
    fresh = []
    for pool in pools:
        fresh.append(cards[start : start + len(pool)])
        start += len(pool)
    for s, cards_now in zip(others, fresh, strict=False):
        counts: dict[Card, int] = {}
        for card in cards_now:
            counts[card] = counts.get(card, 0) + 1
        hands[s].clear()
        hands[s].update(counts)
    if kitty_hidden:
        auction.kitty[:] = fresh[3]
    if undealt:
        auction._deck[dealt:end] = fresh[-1]
    log = env.match.log
    for index, audience in enumerate(log._audiences):  # the events it is not shown
        payload = log._payloads[index]
        if seat in audience:
            continue
        if hasattr(payload, "cards"):  # a deal, a kitty taken or buried
            scrambled = tuple(Card(rng.randrange(54)) for _ in payload.cards)
            log._payloads[index] = dataclasses.replace(payload, cards=scrambled)
        elif getattr(payload, "bid", None) is not None:  # a bid hidden from it (暗炒)
            log._payloads[index] = dataclasses.replace(payload, bid=None)
    log._made = {}
    return [sorted(p) for p in fresh] != before


def _fresh_observation(env: ChaoDipiEnv, seat: int) -> dict[str, np.ndarray]:
    """The observation of ``seat`` built from scratch: a new view, a new encoder and, when it
    is to act in the card-by-card form, its decision opened anew (and the cards picked so far
    picked again; the list form's candidates, drawn from the environment's generator, are
    kept)."""
    picked = [] if env._builder is None else list(env._builder._cards)
    env._views[seat] = observe(env.match, seat)
    env._encoders[seat] = ViewEncoder(seat)
    env._cache[seat] = None
    if not env.match.over and env.agent_selection == AGENTS[seat] and env.action_form == "cards":
        env._decide()
        assert env._builder is not None
        for card in picked:
            env._builder.step(int(card))
    return env.observe(AGENTS[seat])


@pytest.mark.parametrize(
    ("preset", "hands", "form"),
    [
        *((p, 1, "cards") for p in [*sorted(PRESETS), KANGQI_HAND]),
        ("hefei", 2, "cards"),
        ("anchao", 1, "list"),
    ],
)
def test_cards_a_seat_cannot_see_never_change_its_observation(
    preset: str, hands: int, form: str
) -> None:
    name, start = reset_options(preset)
    rng = random.Random(preset)
    trials = changed = 0
    for seed in range(1):
        env = ChaoDipiEnv(name, max_hands=hands, action_form=form)  # type: ignore[arg-type]
        for step, _agent in enumerate(random_steps(env, seed=seed, options=start)):
            if step % (4 if form == "cards" else 2):  # a play is one step in the list form
                continue
            for seat in range(4):
                assert env.view(seat) == observe(env.match, seat)  # carried forward exactly
                mine = env.observe(AGENTS[seat])
                other = copied(env)
                changed += _redeal_hidden(other, seat, rng)
                theirs = _fresh_observation(other, seat)
                np.testing.assert_array_equal(mine["observation"], theirs["observation"])
                np.testing.assert_array_equal(mine["action_mask"], theirs["action_mask"])
                if form == "list":  # the candidates come from the seat's own legal set
                    np.testing.assert_array_equal(mine["candidates"], theirs["candidates"])
                trials += 1
    assert trials > 150 * hands and changed > 0.9 * trials
    assert len(env.match.records) == hands  # the second hand read afresh
