"""The Python SDK for arena bots, in engine terms.

Write ``decide(view) -> Action`` and call :func:`run_bot`::

    from chaodipi.bot import run_bot

    run_bot(lambda view: view.legal.default())   # pass, or the first cards the rules allow

``view`` is the engine's :class:`SeatView` (your cards, the trick, the trump, the hand's
events, the score so far) with ``view.legal``, the engine's :class:`LegalActions` (iterate
it, test an action with ``in``). Answer with :class:`Pass`, :class:`Declare`, :class:`Fry`,
:class:`Bury` or :class:`Play`: ``card_action(view.legal.phase, cards)`` is the one of Bury and
Play the phase wants, ``bid_action(view.legal.phase, bid)`` the one of Declare and Fry. To note
why (kept in the game record, never shown to other seats), return ``Answer(action, note=…)``.

The same program plays however the arena starts it. Given a session token (``$ARENA_TOKEN``,
as the arena hands it, or ``--token-file``) it holds a session: it is offered seats game after
game, several at once, and ``decide`` is called for all of them (maybe from several threads;
pass ``new_game=`` instead of ``decide`` for a fresh ``decide`` per game); :func:`run_bot` returns a
:class:`SessionResult` once the arena wants no more games. Given a ticket (``$ARENA_TICKET``)
it plays that one seat and returns its :class:`MatchResult` (how the game ended, an
:class:`Outcome`, and the seat's last view). When the arena refuses it or cannot be reached,
it exits with one line saying why (a :class:`BotError`: a :class:`SessionError` or a
:class:`SeatError`). docs/writing-a-bot.md walks through it. The
messages are built and read by the contract's own conversion, :mod:`chaodipi.arena.v2.convert`
(the server uses the same). The streams are grpc.aio calls on one asyncio event loop, and
``decide`` runs inline on it once it has shown itself quick, else in a worker thread under the
deadline guard (:mod:`chaodipi.bot.thinking`). The SDK needs the engine, the contract and
grpcio only: nothing of the arena's server or tournaments.

A bot that is a Python callable may also be named ``MODULE:NAME`` (:func:`load_bot`): the arena
then calls it beside its table, trusted (``arena run -b mine=py:MODULE:NAME``), and ``python3 -m
chaodipi.bot.callables MODULE:NAME`` plays it over the streams as any command.
"""

from chaodipi.bot.answer import Answer as Answer
from chaodipi.bot.callables import load_bot as load_bot
from chaodipi.bot.callables import parse_bot as parse_bot
from chaodipi.bot.client import Decide as Decide
from chaodipi.bot.client import bot_arguments as bot_arguments
from chaodipi.bot.client import run_bot as run_bot
from chaodipi.bot.errors import BotError as BotError
from chaodipi.bot.errors import SeatError as SeatError
from chaodipi.bot.errors import SessionError as SessionError
from chaodipi.bot.seat import MatchResult as MatchResult
from chaodipi.bot.session import SessionResult as SessionResult
from chaodipi.bot.token_file import read_token_file as read_token_file
from chaodipi.engine import Action as Action
from chaodipi.engine import Bury as Bury
from chaodipi.engine import Card as Card
from chaodipi.engine import Declare as Declare
from chaodipi.engine import Ending as Ending
from chaodipi.engine import Fry as Fry
from chaodipi.engine import LegalActions as LegalActions
from chaodipi.engine import Outcome as Outcome
from chaodipi.engine import Pass as Pass
from chaodipi.engine import Play as Play
from chaodipi.engine import SeatView as SeatView
from chaodipi.engine import bid_action as bid_action
from chaodipi.engine import card_action as card_action

__all__ = [
    "Action",
    "Answer",
    "BotError",
    "Bury",
    "Card",
    "Decide",
    "Declare",
    "Ending",
    "Fry",
    "LegalActions",
    "MatchResult",
    "Outcome",
    "Pass",
    "Play",
    "SeatError",
    "SeatView",
    "SessionError",
    "SessionResult",
    "bid_action",
    "bot_arguments",
    "card_action",
    "load_bot",
    "parse_bot",
    "read_token_file",
    "run_bot",
]
