"""A ladder whose hosted pairs are played on a Ray cluster (the config's ``ray``): a cluster
started here for the test (``ray = "local"``), two hosted rungs; every pair is played on the
cluster, and stored and rated by the ladder as one played here. Run with ``pytest -m ray``
(the ray extra; ``.ci/run`` runs it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs

from chaodipi.arena.ladder import PairState, Store, ray_tables
from tests.ladder_support import ladder_config, run_ladder

pytestmark = pytest.mark.ray


def test_a_ladders_hosted_pairs_are_played_on_ray(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    config = ladder_config(
        tmp_path, rungs=["random", "heuristic"], ray="local", fault_games=1000, connect_timeout=120
    )
    log_dir = tmp_path / "logs"
    with ray_tables(config, log_dir) as cluster:
        assert cluster is not None

        def enough(store: Store) -> bool:
            return len(store.pairs()) >= 3

        with capture_logs() as logs:
            running = run_ladder(config, enough, ray=cluster)
    store = running.store
    pairs = store.pairs()
    assert len(pairs) >= 3 and all(p.state is PairState.DONE for p in pairs)
    for pair in pairs:
        games = store.games(pair_id=pair.id)
        assert sorted(g.row.key.swapped for g in games) == [False, True]
        assert all(g.row.void is None for g in games)
    on_ray = {e["pair"] for e in logs if e["event"] == "pair_on_ray"}
    assert {p.id for p in pairs} <= on_ray  # every pair was played on the cluster
    assert store.live_ratings()  # the unpinned rung moved
    store.close()
