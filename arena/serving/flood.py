"""A seat's allowance of messages the table did not ask for, and when a bot floods.

Answers to open decisions cost nothing, so a bot answering at any speed is never cut off.
Every message that gets a Refused takes a token from the seat's bucket; tokens come back at
``refill_per_s`` up to ``burst``. A bot that runs out has sent ``burst`` unasked messages
faster than the refill: it floods, and the table cuts its stream off. The table makes a fresh
guard each time a stream attaches to the seat.

>>> guard = FloodGuard(burst=2, refill_per_s=1.0)
>>> [guard.take(now=0.0) for _ in range(3)]
[True, True, False]
>>> guard.take(now=1.0)  # a second later, one token is back
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FLOOD_BURST", "FLOOD_REFILL_PER_S", "FloodGuard"]

FLOOD_BURST = 1000
"""Unasked messages (ones that get a Refused) a bot may send at once before it is cut off."""
FLOOD_REFILL_PER_S = 100.0
"""...and how many more per second it may send over time. Answers never count."""


@dataclass(slots=True)
class FloodGuard:
    """A token bucket for what a bot sends unasked (messages that get a Refused)."""

    burst: float = FLOOD_BURST
    refill_per_s: float = FLOOD_REFILL_PER_S
    tokens: float = -1.0
    last: float = 0.0
    tripped: bool = False
    """The bot ran out and was cut off: what it still sends on this stream is ignored."""

    def take(self, now: float) -> bool:
        """Spend one token at time ``now``; False once the bucket is empty (cut the bot off)."""
        if self.tokens < 0:
            self.tokens, self.last = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.refill_per_s)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
