"""``arena init DIR``: a starter tournament for a pip install, which has no ``examples/``.

It writes ``DIR/arena.toml`` (a round-robin of your bot against the random and the heuristic
sample bots) and ``DIR/my_bot.py`` (the highest-card bot of docs/writing-a-bot.md, to change),
copied from the package data in ``chaodipi/sample_bots/starter/``. Both run as they are:
``arena run DIR/arena.toml``. It never overwrites a file: if either exists, it writes nothing.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from importlib.resources import files
from pathlib import Path

from chaodipi.arena.errors import SetupError, UsageError
from chaodipi.arena.files import make_private_folder, write_private

__all__ = ["STARTER", "add_command", "starter_text", "write_starter"]

STARTER = ("arena.toml", "my_bot.py")
"""The files ``arena init`` writes, as named in the package data and in ``DIR``."""

INIT_EXIT_CODES = """\
exit codes:
  0    written
  2    DIR is a file, a starter file is already there (nothing is overwritten), or DIR cannot
       be written"""


def starter_text(name: str) -> str:
    """A starter file's text, from the installed package's data."""
    return (files("chaodipi.sample_bots") / "starter" / name).read_text(encoding="utf-8")


def write_starter(folder: Path) -> list[Path]:
    """Write the starter files into ``folder`` (made if missing) and return their paths;
    :class:`UsageError` if one is already there, before writing anything."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} is a file, not a folder")
    targets = [folder / name for name in STARTER]
    present = [str(t) for t in targets if t.exists()]
    if present:
        raise UsageError(f"{', '.join(present)} already there: nothing written (use another DIR)")
    texts = [starter_text(name) for name in STARTER]
    try:
        make_private_folder(folder)
        for target, text in zip(targets, texts, strict=True):
            write_private(target, text)
    except FileExistsError as err:  # made meanwhile, or a link planted there
        raise UsageError(f"{err.filename} already there: nothing overwritten") from err
    except OSError as err:
        raise SetupError(f"cannot write {folder}: {err.strerror or err}") from err
    return targets


def _init(args: argparse.Namespace) -> int:
    try:
        config, bot = write_starter(args.folder)
    except (UsageError, SetupError) as err:
        print(f"arena init: {err}", file=sys.stderr)
        return err.exit_code
    print(f"wrote {config} and {bot}; play them with:\n  arena run {shlex.quote(str(config))}")
    return 0


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    init = commands.add_parser(
        "init",
        help="write a starter tournament config and bot into a folder",
        description="Write DIR/arena.toml, a round-robin of your bot against two sample bots, "
        "and DIR/my_bot.py, a bot to change (the highest-card bot of docs/writing-a-bot.md). "
        "Both run as they are: arena run DIR/arena.toml.",
        epilog=INIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    init.add_argument("folder", type=Path, metavar="DIR", help="where to write (made if missing)")
    init.set_defaults(run=_init)
