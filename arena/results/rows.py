"""The rows of the results database: a game's key (:class:`GameKey`) and name
(:func:`game_label`), what is stored of a finished game (:class:`GameRow`) and of a run
(:class:`StoredRun`).

A game is identified by (bot_a, bot_b, deal, swapped): ``deal`` is the deal number, played
twice, ``swapped`` false with bot_a's team in seats 0+2 and true with it in seats 1+3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["BOT_NAME", "BOT_NAME_RULE", "GameKey", "GameRow", "StoredRun", "game_label"]

BOT_NAME = re.compile(r"[A-Za-z0-9_.+-]+")
"""What a bot's name may hold, wherever it comes from (a config's ``[bots.NAME]``, ``arena run
--bot NAME=…``, ``arena bench --name``, a results database read): it names the bot's log files
(``NAME#3.stderr``) and its games (``NAME-other-d3-a``), and is printed as it is."""

BOT_NAME_RULE = "a bot's name is letters, digits and _.+- only (it names the bot's files and games)"
"""What :data:`BOT_NAME` allows, as the errors say it."""


@dataclass(frozen=True, slots=True)
class GameKey:
    bot_a: str
    bot_b: str
    deal: int
    """The deal number (its cards come from the tournament's deal key)."""
    swapped: bool
    """False: bot_a's team sits in seats 0 and 2; True: in seats 1 and 3."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "swapped", bool(self.swapped))  # SQLite gives 0 and 1


def game_label(key: GameKey) -> str:
    """A game's name in logs, replays and messages (``b``: seats swapped). Not the table's
    name, which no bot can guess.

    >>> game_label(GameKey("alpha", "beta", 3, False))
    'alpha-beta-d3-a'
    """
    return f"{key.bot_a}-{key.bot_b}-d{key.deal}-{'b' if key.swapped else 'a'}"


_FAULT_WORDS = (
    ("strikes", "strike", "strikes"),
    ("fallbacks", "fallback", "fallbacks"),
    ("illegal", "illegal", "illegal"),
    ("crashes", "crash", "crashes"),
)
"""A game's fault columns (``strikes_a``, …), each with its word for one and for more."""


@dataclass(frozen=True, slots=True)
class GameRow:
    key: GameKey
    score_a: float | None
    hands: int
    levels_a: int
    levels_b: int
    defended_a: int
    points_a: int
    defended_b: int
    points_b: int
    strikes_a: int
    strikes_b: int
    illegal_a: int
    illegal_b: int
    crashes_a: int
    crashes_b: int
    forfeit: str | None
    reason: str
    errors: str
    """What went wrong with the bots' processes (a crash, with its stderr's end), one line or
    more, but why the game is void (:attr:`void`); ``""`` if nothing."""
    seconds: float
    void: str | None = None
    """Why the game is not a result (a bot never took its seat), or None."""
    id: int | None = None
    """Its number in the results file, given as it is stored (:meth:`ResultsDB.add`)."""
    fallbacks_a: int = 0
    """Answers bot_a's kit chose for its seats (``Answer.fallback``: too late for the kit's
    guard, no action, or refused)."""
    fallbacks_b: int = 0

    @property
    def trouble(self) -> str:
        """All that went wrong in the game, for a person: why it is void, then :attr:`errors`
        (``""``: nothing).

        >>> row = GameRow(GameKey("a", "b", 1, False), None, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ...               0, None, "void: a (seat 1) did not connect", "", 10.0,
        ...               "a (seat 1, game a-b-d1-a) did not connect")
        >>> row.trouble
        'a (seat 1, game a-b-d1-a) did not connect'
        """
        return "\n".join(text for text in (self.void, self.errors) if text)

    @property
    def faults(self) -> str:
        """Each bot's faults in the game, ``""`` for none: the moves it did not choose
        (strikes, fallbacks), illegal answers and crashes, as ``arena games`` and ``arena
        run``'s line for the game say them.

        >>> row = GameRow(GameKey("a", "b", 1, False), 1.0, 1, 2, 0, 1, 80, 0, 0, 0, 1, 0, 0, 0,
        ...               0, None, "played to the end", "", 1.0, fallbacks_a=14)
        >>> row.faults
        'a: 14 fallbacks; b: 1 strike'
        """
        said = []
        for bot, side in ((self.key.bot_a, "a"), (self.key.bot_b, "b")):
            parts = [
                f"{n} {one if n == 1 else many}"
                for column, one, many in _FAULT_WORDS
                if (n := getattr(self, f"{column}_{side}"))
            ]
            if parts:
                said.append(f"{bot}: {', '.join(parts)}")
        return "; ".join(said)


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One ``arena run`` on a results file: when it started, the config it ran with (the
    JSON of :meth:`chaodipi.arena.tournament.config.TournamentConfig.record`) and its SPRT's
    hypotheses (``elo0``, ``elo1``, ``alpha``, ``beta``), if it had one."""

    started_at: str
    resumed: bool
    config: dict[str, Any]
    sprt: dict[str, float] | None
