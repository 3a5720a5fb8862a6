"""Seats and teams, in one place: four seats in the order of play, 0 to 3; the seat after ``s``
is ``next_seat(s)``; seats ``s`` and ``s + 2`` are partners and form team ``s % 2``.

>>> [team_of(s) for s in SEATS], partner(1), next_seat(3), opponents(0)
([0, 1, 0, 1], 3, 0, (1, 3))
>>> same_team(0, 2), same_team(1, 2), other_team(0), team_seats(1)
(True, False, 1, (1, 3))
"""

from __future__ import annotations

__all__ = [
    "SEATS",
    "next_seat",
    "opponents",
    "other_team",
    "partner",
    "same_team",
    "team_of",
    "team_seats",
]

SEATS = range(4)
"""Every seat, in the order of play."""


def team_of(seat: int) -> int:
    """The team (0 or 1) ``seat`` plays for."""
    return seat % 2


def partner(seat: int) -> int:
    """The seat across the table: ``seat``'s partner."""
    return (seat + 2) % 4


def next_seat(seat: int, steps: int = 1) -> int:
    """The seat ``steps`` turns after ``seat`` in the order of play."""
    return (seat + steps) % 4


def opponents(seat: int) -> tuple[int, int]:
    """The two seats of the other team, the next one first."""
    return next_seat(seat), next_seat(seat, 3)


def same_team(a: int, b: int) -> bool:
    """Do seats ``a`` and ``b`` play for the same team (a seat is on its own team)?"""
    return (a - b) % 2 == 0


def other_team(team: int) -> int:
    """The team that is not ``team``."""
    return 1 - team


def team_seats(team: int) -> tuple[int, int]:
    """The two seats of ``team``."""
    return team, team + 2
