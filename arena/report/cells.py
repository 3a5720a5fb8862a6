"""How the report writes a number in a table's cell: a real minus sign, ±∞ and "unbounded" for
an infinite value, a dash (with why, where it is known) for one that is not given, and a
percentage that never rounds to a certainty it is not. ``arena report`` and ``arena bench``
share them."""

from __future__ import annotations

import math

__all__ = [
    "elo_text",
    "fixed_text",
    "los_text",
    "score_text",
    "signed_text",
    "unestimated_text",
    "unmeasured_text",
]


def signed_text(value: float, spec: str) -> str:
    """A signed number with a real minus sign; ±∞ as such; NaN as a dash."""
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    if float(format(value, spec)) == 0:
        value = 0.0  # no "−0.0"
    return format(value, "+" + spec).replace("-", "−")


def elo_text(value: float, error: float, interval: tuple[float, float]) -> str:
    """Elo ± its error; with ``interval``, the score's 95 % interval the error comes from, an
    error that cannot be measured says why: the interval reaches a score of 0 % or 100 % (where
    Elo is infinite), or the results show no spread (every one alike)."""
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return f"{signed_text(value, '.1f')} (unbounded)"
    if math.isinf(error):
        return f"{signed_text(value, '.1f')} ± ?\n({unmeasured_text(*interval)})"
    return f"{signed_text(value, '.1f')} ± {error:.1f}"


def unmeasured_text(low: float, high: float) -> str:
    """Why an Elo error is unknown, from the score interval it was to come from.

    >>> unmeasured_text(0.0, 0.4), unmeasured_text(0.7, 1.0), unmeasured_text(0.0, 1.0)
    ('interval reaches 0 %', 'interval reaches 100 %', 'interval reaches 0 % and 100 %')
    >>> unmeasured_text(0.2, 0.8)
    'no spread'
    """
    reached = [bound for bound, hit in (("0 %", low <= 0), ("100 %", high >= 1)) if hit]
    return f"interval reaches {' and '.join(reached)}" if reached else "no spread"


def los_text(value: float) -> str:
    """A likelihood of superiority as a percentage that never rounds to a certainty it is
    not: 0.99971 is ``>99.9%``, only an unbounded one (no loss at all) is ``100.0%``.

    >>> [los_text(v) for v in (0.5, 0.98613, 0.99971, 1.0, 0.0004)]
    ['50.0%', '98.6%', '>99.9%', '100.0%', '<0.1%']
    """
    if math.isnan(value):
        return "—"
    if 0.999 < value < 1:
        return ">99.9%"
    if 0 < value < 0.001:
        return "<0.1%"
    return format(value, ".1%")


def score_text(score: float, low: float, high: float) -> str:
    """A score with its 95 % interval (``[—]``: too few pairs to give one)."""
    if math.isnan(score):
        return "—"
    if math.isnan(low):
        return f"{score:.1%} [—]"
    return f"{score:.1%} [{low:.1%}, {high:.1%}]"


def unestimated_text(why: str | None, text: str) -> str:
    """``text``, or a dash that says why there is no such figure (``needs ≥ 10 pairs``)."""
    return text if why is None else f"— ({why})"


def fixed_text(value: float, spec: str) -> str:
    return "—" if math.isnan(value) else format(value, spec).replace("-", "−")
