"""Deal seeds that no seat can guess: every shuffle comes from a secret key and a deal number.

A tournament (or an ``arena serve`` run) makes one :class:`DealKey` of 256 random bits. The
seed of deal ``n`` is ``HMAC-SHA256(key, "chaodipi deal n")`` in hex: the same key gives the
same deals, so both games of a duplicate pair and every pairing play the same cards, and
``--resume`` replays them; without the key, a seat's cards do not lead back to a deal number
(there are 2²⁵⁶ keys to try, not a handful of small seeds).

The key is kept in the tournament's database and never sent to a bot, a spectator or a log
line; a replay records the derived seed of its own deal only (enough to replay that game, not
to find any other deal).

>>> key = DealKey.from_hex("00" * 32)
>>> key.seed(1) == key.seed(1) != key.seed(2)
True
>>> len(key.seed(1))
64
>>> DealKey.new() == DealKey.new()
False
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Protocol

__all__ = ["KEY_BYTES", "DealKey", "DealSource"]

KEY_BYTES = 32
"""256 bits: at least the 128 a guess must not reach, and HMAC-SHA256's own block of security."""


class DealSource(Protocol):
    """What deals a run's games: a secret :class:`DealKey`, or a public deal set
    (:class:`chaodipi.arena.tournament.deal_sets.DealSet`); ``seed(n)`` is deal ``n``'s seed."""

    def seed(self, deal: int) -> str: ...


@dataclass(frozen=True, slots=True)
class DealKey:
    """A secret that deals: ``seed(n)`` is deal ``n``'s seed for
    :class:`chaodipi.engine.match.Match`."""

    secret: bytes

    def __post_init__(self) -> None:
        if len(self.secret) < 16:
            raise ValueError(f"a deal key needs at least 16 bytes, not {len(self.secret)}")

    @classmethod
    def new(cls) -> DealKey:
        """A fresh key from the operating system's random source."""
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def from_hex(cls, text: str) -> DealKey:
        """Read a key written by :meth:`hex` (a malformed one raises ``ValueError``)."""
        try:
            return cls(bytes.fromhex(text.strip()))
        except ValueError as err:
            raise ValueError(f"a deal key is {2 * KEY_BYTES} hex digits: {err}") from None

    def hex(self) -> str:
        return self.secret.hex()

    def seed(self, deal: int) -> str:
        """Deal ``deal``'s seed: 64 hex digits, a keyed hash of the deal number."""
        message = f"chaodipi deal {deal}".encode()
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def __repr__(self) -> str:  # never print the secret by accident
        return "DealKey(<secret>)"
