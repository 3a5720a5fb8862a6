"""What stops a bot that is no bug of its own: the arena refused it, could not be reached, or
was lost. Each is a :class:`BotError` whose message is one line saying what went wrong (the
address, the gRPC status and the server's words) and what to do about it::

    the arena at 127.0.0.1:50051 refused the ticket (UNAUTHENTICATED: unknown or wrong ticket):
    check the ticket in $ARENA_TICKET: each seat of each table has its own

(one line, wrapped here). :func:`chaodipi.bot.run_bot` exits with that line
(``SystemExit``) unless asked to raise (``exit_on_error=False``).
"""

from __future__ import annotations

from typing import TypeVar

import grpc

__all__ = ["BotError", "SeatError", "SessionError", "unreachable"]


class BotError(Exception):
    """The arena refused the bot, could not be reached, or was lost: ``str()`` is one line
    saying what and what to do; ``code`` is the gRPC status (``None``: the stream ended
    early without one).

    >>> error = SeatError("the arena at h:1 refused the ticket", grpc.StatusCode.NOT_FOUND)
    >>> isinstance(error, BotError), error.code.name
    (True, 'NOT_FOUND')
    """

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(" ".join(message.split()))  # one line, whatever the server said
        self.code = code


class SessionError(BotError):
    """The arena refused the session (its token), could not be reached, or the session was
    lost."""


class SeatError(BotError):
    """The arena refused the seat (its ticket), could not be reached, or the seat's stream
    failed past its retries."""


ADDRESS_HINT = (
    "start the arena first, or check the address (--address, $ARENA_ADDRESS); "
    "--wait-for-arena SECONDS waits longer for it"
)
"""What to do when nothing answers at the address."""


def status_text(error: grpc.RpcError) -> str:
    """``NAME: details``, as people read a gRPC status."""
    code: grpc.StatusCode = error.code()
    return f"{code.name}: {error.details() or 'no details'}"


_Error = TypeVar("_Error", bound="BotError")


def unreachable(kind: type[_Error], address: str, error: grpc.RpcError, waited_s: float) -> _Error:
    """Nothing answered at ``address`` in ``waited_s`` seconds of trying.

    >>> class Down(grpc.RpcError):
    ...     def code(self): return grpc.StatusCode.UNAVAILABLE
    ...     def details(self): return "failed to connect to all addresses"
    >>> print(unreachable(SeatError, "127.0.0.1:9", Down(), 30.0))  # doctest: +ELLIPSIS
    no arena answered at 127.0.0.1:9 in 30 s (UNAVAILABLE: failed to connect ...): start ...
    """
    waited = f" in {waited_s:.0f} s" if waited_s >= 1 else ""
    message = f"no arena answered at {address}{waited} ({status_text(error)}): {ADDRESS_HINT}"
    return kind(message, error.code())
