"""The operator's API (``/api/operator/…``): what ``arena ladder`` asks a running ladder.

Each request bears ``Authorization: Bearer TOKEN``, the operator's token; the ladder keeps
only its SHA-256 hex digest and compares digests in constant time. Every answer is JSON: a
refusal is ``{"error": "one line"}`` with its status (401 no or a wrong token, 400 a bad
body, the :class:`LadderError`'s own status, 503 a ladder that takes no operator requests).

=====================================  ========================================  ===========
request                                body                                      answer
=====================================  ========================================  ===========
``POST /api/operator/bots``            ``{name, max_sessions?, max_tables?}``    ``{token}``
``POST /api/operator/bots/NAME/pause`` ``{reason}``                              ``{}``
``POST /api/operator/bots/NAME/resume``                                          ``{}``
``POST /api/operator/bots/NAME/retire``                                          ``{}``
``POST /api/operator/freeze``          ``{final_pairs}``                         ``{}``
=====================================  ========================================  ===========

No token is ever logged: the log says which action was asked, of which bot.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from chaodipi.arena.errors import LadderError
from chaodipi.arena.ladder.operator import Operator
from chaodipi.arena.logs import get_logger

__all__ = ["MAX_BODY", "operator_routes", "token_digest"]

MAX_BODY = 16 * 1024
"""The largest body an operator request may have (bytes)."""

NO_OPERATOR = "this ladder takes no operator requests"


def token_digest(token: str) -> str:
    """What the ladder keeps of a token: its SHA-256, in hex.

    >>> token_digest("secret")[:16]
    '2bb80d537b1da3e3'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()



def _error(status: int, message: str) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Bearer realm="ladder"'} if status == 401 else None
    return JSONResponse({"error": message}, status, headers=headers)


def _authorized(request: Request, digest: str) -> bool:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return False
    return secrets.compare_digest(token_digest(token), digest)


async def _body(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
    """The request's JSON object, with no field but ``fields``."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise LadderError(f"the request's body is over {MAX_BODY} bytes", 413)
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        raise LadderError("the request's body is not JSON") from None
    if not isinstance(value, dict):
        raise LadderError("the request's body is not a JSON object")
    unknown = sorted(set(value) - set(fields))
    if unknown:
        takes = ", ".join(fields) if fields else "no field"
        raise LadderError(f"unknown field {unknown[0]!r} (this request takes {takes})")
    return value


def _text(body: dict[str, Any], field: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value.strip():
        raise LadderError(f"{field!r} must be a non-empty string")
    return value.strip()


def _whole(body: dict[str, Any], field: str, *, least: int) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise LadderError(f"{field!r} must be a whole number of at least {least}")
    return value


Action = Callable[[Operator, Request], Awaitable[dict[str, Any]]]


async def _add(operator: Operator, request: Request) -> dict[str, Any]:
    body = await _body(request, ("name", "max_sessions", "max_tables"))
    name = _text(body, "name")
    request.state.bot = name  # for the log line
    token = await operator.add_bot(
        name,
        max_sessions=_whole(body, "max_sessions", least=1),
        max_tables=_whole(body, "max_tables", least=1),
    )
    return {"token": token}


async def _pause(operator: Operator, request: Request) -> dict[str, Any]:
    body = await _body(request, ("reason",))
    await operator.pause(request.path_params["name"], _text(body, "reason"))
    return {}


async def _resume(operator: Operator, request: Request) -> dict[str, Any]:
    await _body(request, ())
    await operator.resume(request.path_params["name"])
    return {}


async def _retire(operator: Operator, request: Request) -> dict[str, Any]:
    await _body(request, ())
    await operator.retire(request.path_params["name"])
    return {}


async def _freeze(operator: Operator, request: Request) -> dict[str, Any]:
    body = await _body(request, ("final_pairs",))
    final_pairs = _whole(body, "final_pairs", least=0)
    if final_pairs is None:
        raise LadderError("'final_pairs' must be given: the pairs each version plays more")
    await operator.freeze(final_pairs)
    return {}


def _bot(request: Request) -> str | None:
    """The bot a request is about, for its log line."""
    name = request.path_params.get("name")
    return getattr(request.state, "bot", None) if name is None else str(name)


def operator_routes(
    operator: Operator | None, digest: str | None, *, changed: Callable[[], None]
) -> list[Route]:
    """The operator API's routes: each checks the token against ``digest`` and calls
    ``operator``, then ``changed`` (the pages read the ladder again)."""
    log = get_logger(part="operator_api")

    def endpoint(name: str, action: Action) -> Callable[[Request], Awaitable[Response]]:
        async def answer(request: Request) -> Response:
            if operator is None or digest is None:
                return _error(503, NO_OPERATOR)
            if not _authorized(request, digest.lower()):
                log.warning("operator_refused", action=name, why="no or a wrong token")
                return _error(401, "a wrong or missing operator token (Authorization: Bearer)")
            try:
                result = await action(operator, request)
            except LadderError as err:
                log.info("operator_refused", action=name, bot=_bot(request), why=str(err))
                return _error(err.status, str(err))
            changed()
            log.info("operator_request", action=name, bot=_bot(request))
            return JSONResponse(result)

        return answer

    return [
        Route("/api/operator/bots", endpoint("add", _add), methods=["POST"]),
        Route("/api/operator/bots/{name:path}/pause", endpoint("pause", _pause), methods=["POST"]),
        Route(
            "/api/operator/bots/{name:path}/resume", endpoint("resume", _resume), methods=["POST"]
        ),
        Route(
            "/api/operator/bots/{name:path}/retire", endpoint("retire", _retire), methods=["POST"]
        ),
        Route("/api/operator/freeze", endpoint("freeze", _freeze), methods=["POST"]),
    ]
