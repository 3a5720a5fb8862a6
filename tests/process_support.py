"""Helpers of the tests that check no process outlives what started it: a process's children,
and waiting for a process to end (for the event, by a pidfd, not by polling the clock)."""

from __future__ import annotations

import os
import select
from pathlib import Path


def children(pid: int) -> set[int]:
    """The pids of ``pid``'s children now."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def ends(pid: int, within_s: float) -> bool:
    """Whether process ``pid`` ends (or has ended) within ``within_s`` seconds: waits on its
    pidfd, which becomes readable when it exits."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], within_s)[0])
    finally:
        os.close(fd)
