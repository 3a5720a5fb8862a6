"""The ladder's pages as a Starlette app (:func:`create_app`): the leaderboard, a bot's page, a
game's page, their data as JSON, the live events, and the operator's API
(:mod:`.operator_api`).

Every store read runs off the event loop, in a thread of the pages' own (a capacity limiter
of :data:`READERS`), so the ladder's tables never wait for a page. The leaderboard is read
and drawn once per change the ladder publishes (:attr:`Live.changes`), or after
:data:`BOARD_MAX_AGE` seconds, whatever the number of browsers asking: each open leaderboard
reads the page again when its event stream says something happened.

Names come from the database and may be anyone's: every page is a Jinja2 template with
autoescaping, and the pages allow no script or style but their own files
(:data:`PAGE_POLICY`).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar
from urllib.parse import quote

import anyio
import anyio.to_thread
import jinja2
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from chaodipi.arena.errors import DatabaseError
from chaodipi.arena.ladder.board import (
    Board,
    BotSummary,
    bot_summary,
    leaderboard,
    pair_score_text,
)
from chaodipi.arena.ladder.live import Live
from chaodipi.arena.ladder.operator import Operator
from chaodipi.arena.ladder.store import Store
from chaodipi.arena.ladder.web.chart import rating_chart
from chaodipi.arena.ladder.web.operator_api import operator_routes
from chaodipi.engine import ReplayError
from chaodipi.records import check_lines, render_html, unpack

__all__ = ["BOARD_MAX_AGE", "PAGE_POLICY", "READERS", "create_app"]

READERS = 4
"""Store reads the pages run at once (threads)."""

BOARD_MAX_AGE = 10.0
"""Seconds a leaderboard is served without a change published before it is read again (a
change the ladder did not publish shows within this)."""

PING_SECONDS = 15
"""A comment on an idle event stream this often keeps proxies from closing it."""

RECONNECT_MS = 3000
"""How long a browser waits to connect again when its event stream ends."""

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The ladder's own pages run their script file and nothing else."""

GAME_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""A game's page is the record viewer, one file with its script inline, which fetches
nothing."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Drawn:
    """The leaderboard as read and drawn, and the count of changes it saw."""

    changes: int
    read_at: float
    board: Board
    html: bytes
    json: bytes


class _Pages:
    def __init__(
        self,
        store: Store,
        live: Live,
        *,
        title: str,
        provisional_width: float,
    ) -> None:
        self.store = store
        self.live = live
        self.title = title
        self.provisional_width = provisional_width
        self.readers = anyio.CapacityLimiter(READERS)
        self.templates = _templates()
        self._drawn: _Drawn | None = None
        self._drawing: anyio.Lock | None = None

    async def read(self, call: Callable[[], T]) -> T:
        """A store read, off the event loop."""
        return await anyio.to_thread.run_sync(call, limiter=self.readers)

    def forget(self) -> None:
        """Read the leaderboard again at the next request (an operator changed something)."""
        self._drawn = None

    def page(self, request: Request, name: str, code: int = 200, **values: Any) -> HTMLResponse:
        html = self.templates.get_template(name).render(
            title=self.title, root=request.scope.get("root_path", ""), **values
        )
        return HTMLResponse(html, code, headers={"Content-Security-Policy": PAGE_POLICY})

    # -- the leaderboard -------------------------------------------------------------------

    async def drawn(self, request: Request) -> _Drawn:
        """The leaderboard, read again only when the ladder published a change since (or it
        is :data:`BOARD_MAX_AGE` old); one read at a time, which the others wait for."""
        if self._drawing is None:
            self._drawing = anyio.Lock()
        async with self._drawing:
            drawn, changes = self._drawn, self.live.changes
            if (
                drawn is not None
                and drawn.changes == changes
                and time.time() - drawn.read_at < BOARD_MAX_AGE
            ):
                return drawn
            now = time.time()
            board = await self.read(
                partial(
                    leaderboard,
                    self.store,
                    provisional_width=self.provisional_width,
                    now=now,
                )
            )
            playing = self.live.playing()
            html = self.templates.get_template("leaderboard.html").render(
                title=self.title,
                root=request.scope.get("root_path", ""),
                board=board,
                playing=playing,
                provisional_width=self.provisional_width,
            )
            data = {
                **board.as_json(),
                "playing": [
                    {
                        "pair": p.pair,
                        "kind": p.kind,
                        "version_a": p.version_a,
                        "version_b": p.version_b,
                        "started_at": p.started_at,
                        "games_over": p.games_over,
                        "games": _games_of(p.kind),
                    }
                    for p in playing
                ],
            }
            self._drawn = _Drawn(
                changes,
                now,
                board,
                html.encode("utf-8"),
                json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8"),
            )
            return self._drawn

    async def leaderboard_page(self, request: Request) -> Response:
        drawn = await self.drawn(request)
        return HTMLResponse(drawn.html, headers={"Content-Security-Policy": PAGE_POLICY})

    async def leaderboard_json(self, request: Request) -> Response:
        return Response((await self.drawn(request)).json, media_type="application/json")

    # -- a bot -----------------------------------------------------------------------------

    async def summary(self, request: Request) -> BotSummary:
        name = request.path_params["name"]
        found = await self.read(
            partial(
                bot_summary,
                self.store,
                name,
                provisional_width=self.provisional_width,
            )
        )
        if found is None:
            raise HTTPException(404, f"the ladder has no bot named {name!r}")
        return found

    async def bot_page(self, request: Request) -> Response:
        summary = await self.summary(request)
        chart = rating_chart([(v.name, v.history) for v in reversed(summary.versions)])
        return self.page(request, "bot.html", bot=summary, chart=chart)

    async def bot_json(self, request: Request) -> Response:
        return JSONResponse((await self.summary(request)).as_json())

    # -- a game ----------------------------------------------------------------------------

    async def game_page(self, request: Request) -> Response:
        game_id = int(request.path_params["id"])
        html = await self.read(partial(self._game_html, game_id))
        return HTMLResponse(html, headers={"Content-Security-Policy": GAME_POLICY})

    def _game_html(self, game_id: int) -> str:
        """The viewer's page of a stored game, with its review when it has one (in a
        thread)."""
        game = self.store.game(game_id)
        if game is None:
            raise HTTPException(404, f"the ladder has no game {game_id}")
        blob = self.store.record(game_id)
        if blob is None:
            raise HTTPException(404, f"game {game_id} has no stored record")
        try:
            lines = unpack(blob)
            check_lines(lines)
        except ReplayError as err:
            raise HTTPException(500, f"game {game_id}'s stored record is damaged: {err}") from None
        return render_html(lines, review=self.store.review(game_id))

    # -- what happens ----------------------------------------------------------------------

    async def events(self, request: Request) -> Response:
        """What the ladder publishes, as server-sent events (each event's name is its kind,
        its data the event's JSON), after a ``ready`` event once the stream is subscribed."""

        async def stream() -> AsyncIterator[ServerSentEvent]:
            async with self.live.subscribe() as received:
                yield ServerSentEvent("{}", event="ready", retry=RECONNECT_MS)
                async for event in received:
                    yield ServerSentEvent(json.dumps(event.data), event=event.kind)

        return EventSourceResponse(stream(), ping=PING_SECONDS)

    # -- errors ----------------------------------------------------------------------------

    async def http_error(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        status = error.status_code
        message = str(error.detail) if status != 404 or error.detail != "Not Found" else ""
        if status == 404 and not message:
            message = f"no page at {request.url.path}"
        return self.error(request, status, message)

    async def database_error(self, request: Request, error: Exception) -> Response:
        return self.error(request, 503, str(error))

    def error(self, request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status)
        return self.page(request, "error.html", status, status=status, message=message)


async def _favicon(request: Request) -> Response:
    """Where a browser looks for a page's icon (the game viewer's page names none)."""
    return RedirectResponse(request.scope.get("root_path", "") + "/static/favicon.svg", 301)


def _games_of(kind: str) -> int:
    """How many games a pair of this kind plays (a validation game is one)."""
    return 1 if kind == "validation" else 2


def _templates() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("chaodipi.arena.ladder.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["version_url"] = _version_url
    environment.filters["score"] = pair_score_text
    environment.filters["utc"] = _utc
    environment.filters["iso"] = _iso
    environment.filters["percent"] = _percent
    environment.globals["games_of"] = _games_of
    return environment


def _version_url(version: str) -> str:
    """The path of the page of a version's bot (``alice@2``: alice's).

    >>> _version_url("a/b c@2")
    '/bots/a%2Fb%20c'
    """
    return "/bots/" + quote(version.rpartition("@")[0], safe="")


def _utc(at: float) -> str:
    """A time as the pages print it before their script says how long ago it was.

    >>> _utc(0.0), _iso(0.0)
    ('1970-01-01 00:00 UTC', '1970-01-01T00:00:00Z')
    """
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _percent(share: float) -> str:
    return f"{100 * share:.0f} %" if share >= 0.01 or share == 0 else f"{100 * share:.1f} %"


def create_app(
    store: Store,
    live: Live,
    *,
    operator: Operator | None,
    operator_digest: str | None,
    title: str,
    provisional_width: float,
) -> Starlette:
    """The ladder's web app: its pages read ``store`` and ``live``; its operator API calls
    ``operator`` for a request bearing the token whose SHA-256 hex digest is
    ``operator_digest`` (with either None, the API answers 503); a version is provisional while
    its interval's half-width is more than ``provisional_width`` Elo."""
    pages = _Pages(store, live, title=title, provisional_width=provisional_width)
    routes = [
        Route("/", pages.leaderboard_page, name="leaderboard"),
        Route("/bots/{name:path}", pages.bot_page, name="bot"),
        Route("/games/{id:int}", pages.game_page, name="game"),
        Route("/events", pages.events, name="events"),
        Route("/favicon.ico", _favicon),
        Route("/api/leaderboard", pages.leaderboard_json),
        Route("/api/bots/{name:path}", pages.bot_json),
        *operator_routes(operator, operator_digest, changed=pages.forget),
        Mount(
            "/static",
            StaticFiles(packages=[("chaodipi.arena.ladder.web", "static")]),
            name="static",
        ),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: pages.http_error, DatabaseError: pages.database_error},
    )
    app.state.end_streams = live.close
    return app
