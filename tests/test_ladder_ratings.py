"""The ladder's live rating and refit (arena/ladder/ratings.py) on simulated pairs.

Eight versions 150 Elo apart, three of them pinned rungs, play pairs between couples drawn at
random from a seeded numpy Generator; each pair's score is drawn from the pentanomial
distribution of the arena's pair shape (benchmarks/sprt_errors.py's, the montecarlo vs
heuristic ladder's pairs) tilted to the logistic score of the two versions' true Elo
difference (``pentanomial_with_score``).
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from chaodipi.arena.ladder import (
    PROVISIONAL_WIDTH,
    LiveRating,
    provisional,
    rate_pair,
    refit,
)
from chaodipi.arena.results import PAIR_SCORES, logistic, pentanomial_with_score

SHAPE = [c / 150 for c in (11, 19, 73, 24, 23)]
TRUTH = {f"v{i}": 150.0 * (i - 3) for i in range(8)}
"""True Elo: v0 −450 … v7 +600."""
PINNED = {name: TRUTH[name] for name in ("v1", "v4", "v6")}
"""The rungs, at their true Elo: −300, +150, +450."""
CENTRE = sum(PINNED.values()) / len(PINNED)

Pair = tuple[str, str, float]


def simulate(seed: int, per_version: int) -> list[Pair]:
    """``per_version`` pairs a version on average, between couples drawn at random."""
    rng = np.random.default_rng(seed)
    couples = list(itertools.combinations(TRUTH, 2))
    odds = {
        (a, b): pentanomial_with_score(SHAPE, logistic(TRUTH[a] - TRUTH[b])) for a, b in couples
    }
    pairs = []
    for _ in range(per_version * len(TRUTH) // 2):
        a, b = couples[rng.integers(len(couples))]
        pairs.append((a, b, PAIR_SCORES[rng.choice(5, p=odds[a, b])]))
    return pairs


def start() -> dict[str, LiveRating]:
    """The rungs pinned, the others newcomers at the rungs' mean."""
    return {
        name: LiveRating.pinned_at(PINNED[name]) if name in PINNED else LiveRating.newcomer(CENTRE)
        for name in TRUTH
    }


def live_board(
    pairs: list[Pair], board: dict[str, LiveRating] | None = None
) -> dict[str, LiveRating]:
    """The live ratings after ``pairs``, in their order, from ``board`` (by default ``start()``)."""
    board = dict(board or start())
    for a, b, score in pairs:
        board[a], board[b] = rate_pair(board[a], board[b], score)
    return board


def order(elo: dict[str, float]) -> list[str]:
    return sorted(elo, key=elo.__getitem__)


def test_the_refit_is_order_free() -> None:
    pairs = simulate(seed=1, per_version=30)
    shuffled = list(pairs)
    np.random.default_rng(2).shuffle(shuffled)
    assert shuffled != pairs
    once, again = refit(list(TRUTH), pairs, PINNED), refit(list(TRUTH), shuffled, PINNED)
    for name in TRUTH:
        assert again[name].elo == pytest.approx(once[name].elo, rel=1e-9, abs=1e-9)
        assert again[name].error == pytest.approx(once[name].error, rel=1e-9, abs=1e-9)
    # the live board is not: it moved in another order
    assert live_board(pairs) != live_board(shuffled)


# Measured over seeds 0-999: the live order is wrong for 0.7 % of them, the refit's for 0.2 %,
# the two differ for 0.5 %, a refit is two errors off for 0.3 %: the test fails for 0.9 % of
# seeds (at 60 pairs a version, for 6.2 %).
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_with_enough_pairs_live_refit_and_truth_agree(seed: int) -> None:
    """100 pairs a version (400 pairs in all, 14 on each of the 28 couples on average): the
    live board, the refit and the truth order the eight versions alike, and each unpinned
    version's refit is within its 95 % interval's width of the truth."""
    pairs = simulate(seed, per_version=100)
    live = {name: r.elo for name, r in live_board(pairs).items()}
    fitted = refit(list(TRUTH), pairs, PINNED)
    assert order(live) == order({name: r.elo for name, r in fitted.items()}) == order(TRUTH)
    for name in TRUTH.keys() - PINNED.keys():
        assert abs(fitted[name].elo - TRUTH[name]) < 2 * fitted[name].error


def test_pinned_rungs_never_move() -> None:
    pairs = simulate(seed=3, per_version=40)
    board = live_board(pairs)
    fitted = refit(list(TRUTH), pairs, PINNED)
    for name, elo in PINNED.items():
        assert board[name] == LiveRating.pinned_at(elo)
        assert (fitted[name].elo, fitted[name].error) == (elo, 0.0)
        assert not provisional(fitted[name])
    # the rungs played, and their opponents moved
    assert all(any(name in (a, b) for a, b, _ in pairs) for name in PINNED)
    assert all(board[name] != start()[name] for name in TRUTH.keys() - PINNED.keys())


def test_an_unbeaten_version_is_finite_and_provisional() -> None:
    """A version "new" won all its 12 pairs (4 against each rung): the refit puts it above the
    rungs, at a finite Elo with a wide interval, as one virtual draw against the rungs' mean
    (+100) keeps it; the live rating too is finite and still provisional."""
    pairs = simulate(seed=4, per_version=20)
    pairs += [("new", rung, 1.0) for rung in PINNED for _ in range(4)]
    fitted = refit([*TRUTH, "new"], pairs, PINNED)
    new = fitted["new"]
    assert math.isfinite(new.elo) and math.isfinite(new.error)
    assert new.elo > max(PINNED.values())
    assert provisional(new) and new.error > 2 * PROVISIONAL_WIDTH
    board = live_board(pairs[-12:], {**start(), "new": LiveRating.newcomer(CENTRE)})
    assert math.isfinite(board["new"].elo) and provisional(board["new"])
    # more pairs won narrow its interval, and keep it finite
    more = refit([*TRUTH, "new"], pairs + pairs[-12:] * 4, PINNED)["new"]
    assert new.elo < more.elo < math.inf and more.error < new.error


def test_a_version_with_no_pairs_sits_at_the_rungs_mean() -> None:
    fitted = refit([*TRUTH, "idle"], simulate(seed=5, per_version=10), PINNED)
    assert fitted["idle"].elo == pytest.approx(CENTRE, abs=1e-6)
    assert provisional(fitted["idle"])


def test_restoring_mu_and_sigma_gives_the_same_next_update() -> None:
    """The service stores each version's (μ, σ) after its pair; a restart rebuilds the board
    from them (through JSON, as a database would hand them back), never from the pairs."""
    pairs = simulate(seed=6, per_version=30)
    before, after = pairs[:100], pairs[100:]
    uninterrupted = live_board(pairs)
    stored = json.dumps({name: [r.mu, r.sigma] for name, r in live_board(before).items()})
    restored = {
        name: LiveRating.pinned_at(PINNED[name]) if name in PINNED else LiveRating(mu, sigma)
        for name, (mu, sigma) in json.loads(stored).items()
    }
    a, b, score = after[0]
    assert rate_pair(restored[a], restored[b], score) == rate_pair(
        live_board(before)[a], live_board(before)[b], score
    )
    assert live_board(after, restored) == uninterrupted


def test_a_pair_moves_the_winner_up_and_both_sigmas_down() -> None:
    a, b = LiveRating.newcomer(), LiveRating.newcomer(50.0)
    a2, b2 = rate_pair(a, b, 0.75)
    assert a2.mu > a.mu and b2.mu < b.mu
    assert a2.sigma < a.sigma and b2.sigma < b.sigma
    # a score of ½ against a stronger version is a gain, against an equal one nothing
    assert rate_pair(a, b, 0.5)[0].mu > a.mu
    assert rate_pair(a, a, 0.5)[0].mu == a.mu


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match=r"between 0 and 1, not 1\.5"):
        rate_pair(LiveRating.newcomer(), LiveRating.newcomer(), 1.5)
    with pytest.raises(ValueError, match="σ > 0"):
        LiveRating(25.0, 0.0)
    with pytest.raises(ValueError, match="rung is pinned but is not among"):
        refit(["a"], [], {"rung": 0.0})
    with pytest.raises(ValueError, match="ghost played but is not among"):
        refit(["a"], [("a", "ghost", 1.0)], {})
    with pytest.raises(ValueError, match="a's score against b is 2"):
        refit(["a", "b"], [("a", "b", 2.0)], {})
