"""The ladder's web pages (arena/ladder/web/, the leaderboard's data in arena/ladder/board.py)
through Starlette's TestClient: the leaderboard, a bot's page and a game's page, their JSON,
the event stream, the operator's API, and names that are markup printed as text."""

from __future__ import annotations

import json
import re
import socket
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
import sqlalchemy as sa
import structlog

from chaodipi.arena.errors import AddressError
from chaodipi.arena.ladder import board as board_module
from chaodipi.arena.ladder.board import RatingPoint, leaderboard
from chaodipi.arena.ladder.entries import BotKind, PairKind, PairState, VersionState
from chaodipi.arena.ladder.live import LadderEvent, Live, Playing
from chaodipi.arena.ladder.operator import LadderError
from chaodipi.arena.ladder.played import FaultCounts
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.store import Store
from chaodipi.arena.ladder.web import app as app_module
from chaodipi.arena.ladder.web import create_app, serve_web
from chaodipi.arena.ladder.web.chart import MOST_POINTS, rating_chart
from chaodipi.arena.ladder.web.operator_api import token_digest
from tests.ladder_web_support import HOSTILE, STDERR, Ladder, build_ladder, play_pair

with warnings.catch_warnings():
    # Starlette asks for httpx2 and still runs on httpx, which the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

OPERATOR_TOKEN = "operator-secret-7f3a"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


class FakeOperator:
    """The operator's actions as the running ladder takes them, recorded; a request about a
    bot it does not know is refused as the ladder refuses it."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def _known(self, name: str) -> None:
        if name not in ("alice", "bob", "dave"):
            raise LadderError(f"the ladder has no bot named {name!r}", 404)

    async def add_bot(
        self, name: str, *, max_sessions: int | None = None, max_tables: int | None = None
    ) -> str:
        if name == "alice":
            raise LadderError("the ladder has a bot named 'alice' already", 409)
        self.calls.append(("add", name, max_sessions, max_tables))
        return f"bot-token-of-{name}"

    async def pause(self, name: str, reason: str) -> None:
        self._known(name)
        self.calls.append(("pause", name, reason))

    async def resume(self, name: str) -> None:
        self._known(name)
        self.calls.append(("resume", name))

    async def retire(self, name: str) -> None:
        self._known(name)
        self.calls.append(("retire", name))

    async def freeze(self, final_pairs: int) -> None:
        self.calls.append(("freeze", final_pairs))


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ladder]:
    """The ladder the read-only tests share."""
    built = build_ladder(tmp_path_factory.mktemp("ladder") / "ladder.sqlite")
    yield built
    built.store.close()


@pytest.fixture
def own_ladder(tmp_path: Path) -> Iterator[Ladder]:
    """A ladder of the test's own, which it may change."""
    built = build_ladder(tmp_path / "ladder.sqlite")
    yield built
    built.store.close()


def _client(
    store: Store, live: Live | None = None, operator: FakeOperator | None = None
) -> TestClient:
    app = create_app(
        store,
        live or Live(),
        operator=operator,
        operator_digest=None if operator is None else token_digest(OPERATOR_TOKEN),
        title="Spring ladder",
        provisional_width=100.0,
    )
    return TestClient(app)


# -- the leaderboard ---------------------------------------------------------------------------


def test_the_leaderboard_ranks_by_the_refit_else_the_live_rating_and_pins_the_rungs(
    ladder: Ladder,
) -> None:
    with _client(ladder.store) as client:
        data = client.get("/api/leaderboard").json()
    rows = data["standings"]
    assert [r["version"] for r in rows] == ["alice@2", f"{HOSTILE}@1", "bob@1", "heuristic@1"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert [r["rating"]["source"] for r in rows] == ["refit", "live", "refit", "pinned"]
    alice, hostile, bob, rung = rows
    assert (alice["rating"]["elo"], alice["rating"]["low"], alice["rating"]["high"]) == (
        120.0,
        70.0,
        170.0,
    )
    # no refit rated it: its live rating (mu 25, sigma 8) and its 95 % interval, in Elo
    live = LiveRating(25.0, 8.0)
    assert hostile["rating"]["elo"] == live.elo
    assert hostile["rating"]["low"] == pytest.approx(live.elo - live.error)
    assert hostile["rating"]["high"] == pytest.approx(live.elo + live.error)
    assert rung["rating"] == {"elo": -300.0, "low": -300.0, "high": -300.0, "source": "pinned"}
    assert rung["pinned"] and not alice["pinned"]
    # provisional: an interval wider than ± 100 (alice ± 50, bob ± 120); a rung never is
    assert [r["provisional"] for r in rows] == [False, True, True, False]
    assert [r["pairs"] for r in rows] == [3, 1, 4, 1]
    assert [r["last_played"] for r in rows] == [
        ladder.store.pair(ladder.pairs[3]).finished_at,  # type: ignore[union-attr]
        ladder.store.pair(ladder.pairs[4]).finished_at,  # type: ignore[union-attr]
        ladder.store.pair(ladder.pairs[4]).finished_at,  # type: ignore[union-attr]
        ladder.store.pair(ladder.pairs[3]).finished_at,  # type: ignore[union-attr]
    ]
    # the share of its games with a fault of its team: hostile crashed in both of its two,
    # bob struck in two of its eight
    assert [r["faults"]["rate"] for r in rows] == [0.0, 1.0, 0.25, 0.0]
    assert bob["faults"]["strikes"] == 2 and hostile["faults"]["crashes"] == 2
    assert data["refit"]["pairs"] == 5


def test_versions_off_the_standings_are_listed_apart_with_their_reason(ladder: Ladder) -> None:
    with _client(ladder.store) as client:
        data = client.get("/api/leaderboard").json()
        page = client.get("/").text
    apart = {a["version"]: (a["state"], a["reason"]) for a in data["apart"]}
    assert apart == {
        "carol@1": ("failed", "its validation game failed: it crashed"),
        "dave@1": ("paused", "too many strikes: look at its logs"),
    }
    listed = {r["version"] for r in data["standings"]} | set(apart)
    assert "alice@1" not in listed  # superseded by alice@2: its history is on alice's page
    section = page.partition('id="apart"')[2].partition("</section>")[0]
    assert "carol@1" in section and "its validation game failed: it crashed" in section
    assert "dave@1" in section and "too many strikes" in section


def test_the_recent_pairs_link_both_games_and_give_the_pair_score(ladder: Ladder) -> None:
    with _client(ladder.store) as client:
        data = client.get("/api/leaderboard").json()
        page = client.get("/").text
    first = next(p for p in data["recent"] if p["pair"] == ladder.pairs[0])
    games = ladder.store.games(pair_id=ladder.pairs[0])
    assert first["version_a"] == "alice@1" and first["version_b"] == "bob@1"
    assert first["score_a"] == 0.75
    assert first["games"] == [
        {"id": games[0].id, "name": f"alice@1-bob@1-d{ladder.pairs[0]}-a"},
        {"id": games[1].id, "name": f"alice@1-bob@1-d{ladder.pairs[0]}-b"},
    ]
    assert [p["pair"] for p in data["recent"]] == sorted(ladder.pairs, reverse=True)
    row = page.partition(f'<tr data-pair="{ladder.pairs[0]}">')[2].partition("</tr>")[0]
    assert "¾–¼" in row
    assert f'href="/games/{games[0].id}"' in row and f'href="/games/{games[1].id}"' in row


def test_a_name_that_is_markup_prints_as_text(ladder: Ladder) -> None:
    with _client(ladder.store) as client:
        pages = {
            "/": client.get("/"),
            "/bots/<script>": client.get("/bots/" + _quoted(HOSTILE)),
            "/bots/bob": client.get("/bots/bob"),
        }
        data = client.get("/api/bots/" + _quoted(HOSTILE)).json()
    for where, response in pages.items():
        assert response.status_code == 200, where
        assert "<script>alert" not in response.text, where
        assert ESCAPED in response.text, where
        assert "script-src 'self'" in response.headers["content-security-policy"], where
    assert f'href="/bots/{_quoted(HOSTILE)}"' in pages["/"].text
    assert data["name"] == HOSTILE  # JSON carries it as it is


def _quoted(name: str) -> str:
    return quote(name, safe="")


def test_the_leaderboard_is_read_once_per_change_the_ladder_publishes(
    ladder: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many browsers ask, the store is read again only when the ladder published
    something (each open page asks once per event)."""
    reads: list[float] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(kwargs["now"])
        return leaderboard(*args, **kwargs)

    monkeypatch.setattr(app_module, "leaderboard", counted)
    live = Live()
    with _client(ladder.store, live) as client:
        for _ in range(10):
            assert client.get("/").status_code == 200
            assert client.get("/api/leaderboard").status_code == 200
        assert len(reads) == 1
        client.portal.call(live.publish, LadderEvent("refit", {"pairs": 5}))  # type: ignore[union-attr]
        for _ in range(5):
            client.get("/")
        assert len(reads) == 2


def test_the_store_reads_of_the_leaderboard_do_not_grow_with_the_ladder(own_ladder: Ladder) -> None:
    """No read per version or per pair: a ladder twice as big is read in as many queries."""
    store = own_ladder.store
    statements: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))

    def queries() -> int:
        statements.clear()
        leaderboard(store, provisional_width=100.0, now=time.time())
        return len(statements)

    before = queries()
    for index in range(4):
        bot = store.add_bot(f"extra{index}", BotKind.RESIDENT, at=0.0)
        version = store.version_of(bot, "v1", at=0.0)
        store.set_version_state(version.id, VersionState.ACTIVE)
        bob = own_ladder.versions["bob@1"]
        play_pair(
            store,
            version,
            bob,
            at=10.0,
            games=(1.0, 0.0),
            seed=index,
            rated={version.id: LiveRating(25.0, 6.0), bob.id: LiveRating(23.0, 3.0)},
        )
    assert queries() == before
    assert before <= 20


# -- a bot's page ------------------------------------------------------------------------------


def test_a_bots_page_charts_each_versions_rating_after_each_pair(ladder: Ladder) -> None:
    with _client(ladder.store) as client:
        page = client.get("/bots/alice").text
        data = client.get("/api/bots/alice").json()
    assert [v["name"] for v in data["versions"]] == ["alice@2", "alice@1"]
    assert [v["state"] for v in data["versions"]] == ["active", "superseded"]
    histories = {v["name"]: v["history"] for v in data["versions"]}
    assert [p["elo"] for p in histories["alice@1"]] == [LiveRating(26.0, 7.0).elo]
    assert [p["pair"] for p in histories["alice@2"]] == ladder.pairs[1:4]
    assert [p["error"] for p in histories["alice@2"]] == [
        LiveRating(28.0, s).error for s in (5.0, 4.0, 3.5)
    ]
    chart = page.partition('<figure class="chart">')[2].partition("</figure>")[0]
    series = re.findall(r'<g class="series series-\d" data-version="([^"]+)">', chart)
    assert series == ["alice@1", "alice@2"]
    lines = re.findall(r'<polyline class="line" points="([^"]+)"', chart)
    assert [len(points.split()) for points in lines] == [1, 3]
    # alice@2's ratings: 1620, 1620, 1580 Elo: its last point is lower on the chart (SVG y
    # grows downwards), the two before level
    ys = [float(p.split(",")[1]) for p in lines[1].split()]
    assert ys[0] == ys[1] < ys[2]
    # its x axis: the bot's four rated pairs in order, alice@1's first
    xs = [float(p.split(",")[0]) for points in lines for p in points.split()]
    assert xs == sorted(xs) and len(set(xs)) == 4


def test_a_bots_page_gives_its_results_against_each_opponent_and_its_games(
    ladder: Ladder,
) -> None:
    with _client(ladder.store) as client:
        data = client.get("/api/bots/alice").json()
        page = client.get("/bots/alice").text
    results = {(o["version"], o["opponent"]): o for o in data["opponents"]}
    assert set(results) == {
        ("alice@2", "bob@1"),
        ("alice@2", "heuristic@1"),
        ("alice@1", "bob@1"),
    }
    # alice@2 against bob: won 1–0 as A, drew ½–½ as B
    assert {k: results[("alice@2", "bob@1")][k] for k in ("pairs", "won", "drawn", "lost")} == {
        "pairs": 2,
        "won": 1,
        "drawn": 1,
        "lost": 0,
    }
    assert results[("alice@2", "bob@1")]["mean"] == 0.75
    assert results[("alice@2", "heuristic@1")]["lost"] == 1
    assert results[("alice@2", "heuristic@1")]["mean"] == 0.25
    games = data["games"]
    assert len(games) == 8 and [g["id"] for g in games] == sorted(
        (g["id"] for g in games), reverse=True
    )
    # a game of pair 3, where alice was B and scored ½ in each game
    third = [g for g in games if g["pair"] == ladder.pairs[2]]
    assert [(g["version"], g["opponent"], g["score"]) for g in third] == [
        ("alice@2", "bob@1", 0.5),
        ("alice@2", "bob@1", 0.5),
    ]
    for game in games:
        assert f'href="/games/{game["id"]}"' in page


def test_a_failed_versions_reason_and_stderr_show_as_text(ladder: Ladder) -> None:
    with _client(ladder.store) as client:
        page = client.get("/bots/carol").text
        data = client.get("/api/bots/carol").json()
    (version,) = data["versions"]
    assert (version["state"], version["reason"], version["detail"]) == (
        "failed",
        "its validation game failed: it crashed",
        STDERR,
    )
    pre = page.partition('<pre class="detail">')[2].partition("</pre>")[0]
    assert pre == STDERR.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
    assert "<b>boom" not in page
    # its validation game, four copies of it, is on its page with no score
    (game,) = data["games"]
    assert game["opponent"] is None and game["pair"] == ladder.validation
    assert "validation" in page


# -- a game's page and what is not there -------------------------------------------------------


def test_a_games_page_is_the_viewer_of_its_record_with_its_review(own_ladder: Ladder) -> None:
    store = own_ladder.store
    game = store.games(pair_id=own_ladder.pairs[0])[0]
    with _client(store) as client:
        plain = client.get(f"/games/{game.id}")
        store.set_review(game.id, {"decisions": [], "note": "review-of-this-game"})
        reviewed = client.get(f"/games/{game.id}")
    assert plain.status_code == 200
    assert plain.text.startswith("<!DOCTYPE html>")
    record = plain.text.partition('<script type="application/json" id="record">')[2]
    lines = json.loads(record.partition("</script>")[0])
    assert lines[0]["type"] == "header"
    assert [b["name"] if isinstance(b, dict) else b for b in lines[0]["bots"]] == [
        "alice@1",
        "bob@1",
        "alice@1",
        "bob@1",
    ]
    assert '<script type="application/json" id="review">null</script>' in plain.text
    assert "review-of-this-game" in reviewed.text
    assert "connect-src" not in plain.headers["content-security-policy"]  # it fetches nothing


def test_a_damaged_record_is_one_line_saying_so(own_ladder: Ladder) -> None:
    store = own_ladder.store
    alice, bob = own_ladder.versions["alice@2"], own_ladder.versions["bob@1"]
    pair = store.start_pair(PairKind.RATED, alice.id, bob.id, at=1.0)
    row = store.games(pair_id=own_ladder.pairs[1])[0].row
    store.finish_pair(pair, [(row, b"not a record")], at=2.0, state=PairState.VOID)
    (damaged,) = store.games(pair_id=pair.id)
    with _client(store) as client:
        response = client.get(f"/games/{damaged.id}")
    assert response.status_code == 500
    assert f"game {damaged.id}&#39;s stored record is damaged: " in response.text


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/bots/nobody", "the ladder has no bot named &#39;nobody&#39;"),
        ("/games/9999", "the ladder has no game 9999"),
        ("/games/first", "no page at /games/first"),
        ("/nowhere", "no page at /nowhere"),
    ],
)
def test_an_unknown_page_is_a_404_page_saying_what_is_missing(
    ladder: Ladder, path: str, says: str
) -> None:
    with _client(ladder.store) as client:
        response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert says in response.text


def test_an_unknown_bot_in_the_api_is_a_404_in_json(ladder: Ladder) -> None:
    with _client(ladder.store) as client:
        response = client.get("/api/bots/nobody")
    assert response.status_code == 404
    assert response.json() == {"error": "the ladder has no bot named 'nobody'"}


# -- what is playing, and the event stream ----------------------------------------------------


def test_a_playing_pair_shows_its_versions_and_progress_never_a_score(ladder: Ladder) -> None:
    live = Live()
    with _client(ladder.store, live) as client:
        started = time.time()
        client.portal.call(  # type: ignore[union-attr]
            live.started, Playing(9001, "rated", "alice@2", f"{HOSTILE}@1", started)
        )
        client.portal.call(live.game_over, 9001)  # type: ignore[union-attr]
        data = client.get("/api/leaderboard").json()
        page = client.get("/").text
    assert data["playing"] == [
        {
            "pair": 9001,
            "kind": "rated",
            "version_a": "alice@2",
            "version_b": f"{HOSTILE}@1",
            "started_at": started,
            "games_over": 1,
            "games": 2,
        }
    ]
    item = page.partition('<li data-pair="9001">')[2].partition("</li>")[0]
    assert "alice@2" in item and ESCAPED in item
    assert "1 of 2 games over" in item
    assert "/games/" not in item and "–" not in item  # no game, no score


def test_the_event_stream_carries_what_the_ladder_publishes_until_it_stops(
    ladder: Ladder,
) -> None:
    live = Live()
    with _client(ladder.store, live) as client, client.stream("GET", "/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        assert _event(lines) == {"event": "ready", "data": "{}", "retry": "3000"}
        assert client.portal.call(lambda: live.subscribers) == 1  # type: ignore[union-attr]
        client.portal.call(  # type: ignore[union-attr]
            live.started, Playing(7, "rated", "alice@2", "bob@1", 5.0)
        )
        client.portal.call(live.game_over, 7)  # type: ignore[union-attr]
        started, over = _event(lines), _event(lines)
        assert started["event"] == "pair_started"
        assert json.loads(started["data"]) == {
            "pair": 7,
            "kind": "rated",
            "version_a": "alice@2",
            "version_b": "bob@1",
            "started_at": 5.0,
            "games_over": 0,
        }
        assert over == {"event": "game_over", "data": '{"pair": 7, "games_over": 1}'}
        client.portal.call(live.close)  # type: ignore[union-attr]  # the ladder stops
        assert list(lines) == []  # the stream ends
        assert client.portal.call(lambda: live.subscribers) == 0  # type: ignore[union-attr]


def _event(lines: Iterator[str]) -> dict[str, str]:
    """The next event of a server-sent stream, its fields by name (pings skipped)."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            if fields:
                return fields
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(": ")
        fields[name] = value
    raise AssertionError("the stream ended")


# -- the operator's API ------------------------------------------------------------------------

OPERATOR_REQUESTS = [
    ("/api/operator/bots", {"name": "erin"}),
    ("/api/operator/bots/bob/pause", {"reason": "maintenance"}),
    ("/api/operator/bots/bob/resume", None),
    ("/api/operator/bots/bob/retire", None),
    ("/api/operator/freeze", {"final_pairs": 3}),
]


@pytest.mark.parametrize(("path", "body"), OPERATOR_REQUESTS)
def test_a_ladder_without_an_operator_answers_503(
    ladder: Ladder, path: str, body: dict[str, Any] | None
) -> None:
    with _client(ladder.store) as client:
        response = client.post(path, json=body, headers=_bearer(OPERATOR_TOKEN))
    assert response.status_code == 503
    assert response.json() == {"error": "this ladder takes no operator requests"}


@pytest.mark.parametrize(("path", "body"), OPERATOR_REQUESTS)
@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong-token", f"Basic {OPERATOR_TOKEN}", "Bearer "]
)
def test_a_missing_or_wrong_operator_token_is_a_401(
    ladder: Ladder, path: str, body: dict[str, Any] | None, authorization: str | None
) -> None:
    operator = FakeOperator()
    headers = {} if authorization is None else {"Authorization": authorization}
    with _client(ladder.store, operator=operator) as client:
        response = client.post(path, json=body, headers=headers)
    assert response.status_code == 401
    assert response.json() == {"error": "a wrong or missing operator token (Authorization: Bearer)"}
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert operator.calls == []


def test_the_operator_api_calls_the_ladder_and_never_logs_a_token(ladder: Ladder) -> None:
    operator = FakeOperator()
    with (
        structlog.testing.capture_logs() as logs,
        _client(ladder.store, operator=operator) as client,
    ):
        added = client.post(
            "/api/operator/bots",
            json={"name": "erin", "max_sessions": 2, "max_tables": 4},
            headers=_bearer(OPERATOR_TOKEN),
        )
        answers = [
            client.post(path, json=body, headers=_bearer(OPERATOR_TOKEN))
            for path, body in OPERATOR_REQUESTS[1:]
        ]
        refused = client.post(
            "/api/operator/bots", json={"name": "erin"}, headers=_bearer("not-it")
        )
    assert added.status_code == 200 and added.json() == {"token": "bot-token-of-erin"}
    assert [a.status_code for a in answers] == [200, 200, 200, 200]
    assert refused.status_code == 401
    assert operator.calls == [
        ("add", "erin", 2, 4),
        ("pause", "bob", "maintenance"),
        ("resume", "bob"),
        ("retire", "bob"),
        ("freeze", 3),
    ]
    assert [(e["event"], e["action"], e.get("bot")) for e in logs] == [
        ("operator_request", "add", "erin"),
        ("operator_request", "pause", "bob"),
        ("operator_request", "resume", "bob"),
        ("operator_request", "retire", "bob"),
        ("operator_request", "freeze", None),
        ("operator_refused", "add", None),
    ]
    logged = repr(logs)
    for secret in (OPERATOR_TOKEN, "not-it", "bot-token-of-erin"):
        assert secret not in logged


@pytest.mark.parametrize(
    ("path", "body", "status", "error"),
    [
        (
            "/api/operator/bots",
            {"name": "alice"},
            409,
            "the ladder has a bot named 'alice' already",
        ),
        ("/api/operator/bots/zed/pause", {"reason": "r"}, 404, "the ladder has no bot named 'zed'"),
        ("/api/operator/bots/zed/retire", None, 404, "the ladder has no bot named 'zed'"),
        (
            "/api/operator/bots",
            {"name": "erin", "max_tables": "4"},
            400,
            "'max_tables' must be a whole number of at least 1",
        ),
        (
            "/api/operator/bots",
            {"name": "erin", "max_sessions": 0},
            400,
            "'max_sessions' must be a whole number of at least 1",
        ),
        (
            "/api/operator/bots",
            {"nmae": "erin"},
            400,
            "unknown field 'nmae' (this request takes name, max_sessions, max_tables)",
        ),
        ("/api/operator/bots", {}, 400, "'name' must be a non-empty string"),
        ("/api/operator/bots/bob/pause", {}, 400, "'reason' must be a non-empty string"),
        (
            "/api/operator/bots/bob/resume",
            {"reason": "x"},
            400,
            "unknown field 'reason' (this request takes no field)",
        ),
        (
            "/api/operator/freeze",
            {"final_pairs": True},
            400,
            "'final_pairs' must be a whole number of at least 0",
        ),
        (
            "/api/operator/freeze",
            {},
            400,
            "'final_pairs' must be given: the pairs each version plays more",
        ),
        ("/api/operator/freeze", [3], 400, "the request's body is not a JSON object"),
    ],
)
def test_a_refused_operator_request_is_its_status_and_one_line(
    ladder: Ladder, path: str, body: Any, status: int, error: str
) -> None:
    operator = FakeOperator()
    with _client(ladder.store, operator=operator) as client:
        response = client.post(path, json=body, headers=_bearer(OPERATOR_TOKEN))
    assert (response.status_code, response.json()) == (status, {"error": error})
    assert operator.calls == []


def test_an_operator_body_that_is_not_json_or_too_long_is_refused(ladder: Ladder) -> None:
    with _client(ladder.store, operator=FakeOperator()) as client:
        garbled = client.post(
            "/api/operator/freeze", content=b"{final_pairs: 3", headers=_bearer(OPERATOR_TOKEN)
        )
        huge = client.post(
            "/api/operator/bots/bob/pause",
            content=json.dumps({"reason": "x" * 20_000}).encode(),
            headers=_bearer(OPERATOR_TOKEN),
        )
    assert (garbled.status_code, garbled.json()) == (
        400,
        {"error": "the request's body is not JSON"},
    )
    assert (huge.status_code, huge.json()) == (
        413,
        {"error": "the request's body is over 16384 bytes"},
    )


def test_an_operator_request_shows_on_the_next_leaderboard(
    ladder: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return leaderboard(*args, **kwargs)

    monkeypatch.setattr(app_module, "leaderboard", counted)
    with _client(ladder.store, operator=FakeOperator()) as client:
        client.get("/")
        client.post(
            "/api/operator/bots/bob/pause", json={"reason": "x"}, headers=_bearer(OPERATOR_TOKEN)
        )
        client.get("/")
    assert len(reads) == 2


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- the store's reads for the pages ----------------------------------------------------------


def test_the_grouped_reads_agree_with_each_versions_own(ladder: Ladder) -> None:
    store = ladder.store
    faults = store.all_faults()
    played = store.pairs_played()
    for version in store.versions():
        assert faults.get(version.id, FaultCounts()) == store.faults(version.id), version.name
        own = store.pairs(version=version.id)
        assert played.get(version.id, (0, None)) == (
            (len(own), max(p.finished_at for p in own if p.finished_at)) if own else (0, None)
        ), version.name
    pairs = [*ladder.pairs, ladder.validation]
    grouped = store.games_of_pairs(pairs)
    assert {p: [g.id for g in grouped[p]] for p in pairs} == {
        p: [g.id for g in store.games(pair_id=p)] for p in pairs
    }
    # its validation game (four copies of it) counts no fault of a team against another
    assert ladder.versions["carol@1"].id not in faults
    assert board_module.pair_score_text(0.25) == "¼"


# -- the chart, and serving --------------------------------------------------------------------


def test_a_long_history_is_charted_in_a_few_hundred_points_ending_at_the_last() -> None:
    points = [RatingPoint(pair, 0.0, 1500.0 + pair % 7, 30.0) for pair in range(1, 2002)]
    chart = rating_chart([("long@1", points)])
    assert chart is not None and chart.pairs == 2001
    (series,) = chart.series
    drawn = series.line.split()
    assert MOST_POINTS / 2 < len(drawn) <= MOST_POINTS + 1
    assert drawn[-1] == f"{series.last.x:.1f},{series.last.y:.1f}"
    assert float(drawn[-1].split(",")[0]) == chart.right  # the last pair, at the right edge
    assert rating_chart([("new@1", [])]) is None


def test_pages_on_an_address_in_use_are_one_line_saying_so(ladder: Ladder) -> None:
    app = create_app(
        ladder.store,
        Live(),
        operator=None,
        operator_digest=None,
        title="t",
        provisional_width=100.0,
    )
    with socket.create_server(("127.0.0.1", 0)) as taken:
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        with pytest.raises(AddressError, match=f"^cannot serve the pages on {address}: "):
            anyio.run(serve_web, app, address, backend="asyncio")
    with pytest.raises(AddressError, match="is not HOST:PORT"):
        anyio.run(serve_web, app, "no-port", backend="asyncio")
