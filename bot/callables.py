"""A bot given as a Python callable, ``MODULE:NAME``: found, checked, and made into each game's
``decide``; and the program that plays such a bot over the arena's streams::

    python3 -m chaodipi.bot.callables package.module:decide [--address …]

``NAME`` (``decide``, or a dotted path in the module: ``Bots.careful``) is either a class, made
once per seat and game, whose instances are that seat's ``decide`` (so one keeps what it saw
in its game, as ``run_bot(new_game=…)`` makes it), or any other callable, which is the
``decide`` of every seat of every game. :func:`load_bot` gives either as a maker of a game's
``decide``, and says in one line what is wrong with a spec that names no such thing: no module
by that name, none of that name in it, or nothing callable.

The arena calls such a bot beside its table (``arena run -b mine=py:package.module:decide``,
docs/architecture.md, "In-process bots"), with no process or stream of its own; this program
plays the very same bot as any command bot is played, over the local link or gRPC (a pairing
with a bot that is not a callable, ``--workers 0``, a standing ladder). The module is imported
as ``python3 -m`` imports: from the current folder first (the arena runs a bot in its config
file's folder), then the installed packages.

>>> maker = load_bot("chaodipi.engine:observe")
>>> maker() is maker()   # a function: the one decide of every seat
True
>>> load_bot("chaodipi.engine:nowhere")
Traceback (most recent call last):
...
ValueError: chaodipi.engine:nowhere: the module chaodipi.engine has no nowhere
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Sequence

from chaodipi.bot.client import bot_arguments, run_bot
from chaodipi.bot.thinking import Decide

__all__ = ["NewGame", "load_bot", "main", "parse_bot"]

NewGame = Callable[[], Decide]
"""What makes a seat's ``decide`` for one game (a class, or a callable giving the one
``decide``)."""

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_SPEC = re.compile(f"(?P<module>{_DOTTED}):(?P<name>{_DOTTED})")


def parse_bot(spec: str) -> tuple[str, str]:
    """The module and the name a ``MODULE:NAME`` spec gives; ``ValueError`` in one line when
    it is not of that form.

    >>> parse_bot("mybots.careful:Careful")
    ('mybots.careful', 'Careful')
    >>> parse_bot("my-bot.py")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: my-bot.py: not MODULE:NAME (a module's dotted name, a colon, a callable in ...
    """
    found = _SPEC.fullmatch(spec)
    if found is None:
        raise ValueError(
            f"{spec}: not MODULE:NAME (a module's dotted name, a colon, a callable in it: "
            "package.module:decide)"
        )
    return found["module"], found["name"]


def load_bot(spec: str) -> NewGame:
    """The bot ``spec`` (``MODULE:NAME``) names, as the maker of each seat's ``decide`` for a
    game: the class itself, or a maker giving the one callable every time. ``ValueError``,
    one line naming the spec and what is wrong, when the module cannot be imported (not there,
    or it raised), has no such name, or what it has is not callable."""
    module_name, name = parse_bot(spec)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name is not None and (module_name + ".").startswith(err.name + "."):
            raise ValueError(
                f"{spec}: no module named {err.name} (from the current folder or the installed "
                "packages)"
            ) from None
        raise ValueError(f"{spec}: importing {module_name} failed: {_said(err)}") from None
    except Exception as err:  # the bot's own module failed as it was imported
        raise ValueError(f"{spec}: importing {module_name} failed: {_said(err)}") from None
    found: object = module
    for part in name.split("."):
        if not hasattr(found, part):
            raise ValueError(f"{spec}: the module {module_name} has no {name}")
        found = getattr(found, part)
    if not callable(found):
        raise ValueError(
            f"{spec}: {module_name}.{name} is a {type(found).__name__}, not callable: name a "
            "decide(view) function or a class whose instances decide"
        )
    if isinstance(found, type):
        maker: NewGame = found
        return maker
    decide: Decide = found  # a callable, trusted to take a view
    return lambda: decide


def _said(err: BaseException) -> str:
    """An exception in one line: ``KeyError: 'x'``."""
    return " ".join(f"{type(err).__name__}: {err}".split())


def main(argv: Sequence[str] | None = None) -> int:
    """Play the bot named on the command line (``MODULE:NAME``) over the arena's streams, as
    :func:`chaodipi.bot.run_bot` plays any bot: its other arguments are the SDK's."""
    given = list(sys.argv[1:] if argv is None else argv)
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("bot", metavar="MODULE:NAME", help="the bot: a callable in a module")
    args = parser.parse_args(given)
    try:
        new_game = load_bot(args.bot)
    except ValueError as err:
        print(f"{parser.prog}: {err}", file=sys.stderr)
        return 2
    name = args.name if args.name != "python-bot" else args.bot.rpartition(":")[0]
    print(run_bot(new_game=new_game, argv=given, name=name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
