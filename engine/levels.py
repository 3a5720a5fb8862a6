"""Levels: what a hand's points are worth, and how a team climbs (must-play levels, circuits).

A team's place in the match is its *progress*: ``circuit * 13 + level`` where level 0 is 2 and
12 is A. In the 扛旗 room, progress 13 means "passed A: plays the 扛旗 hand next".

>>> from engine.rules import ScoreRules
>>> [levels_for(p, ScoreRules()) for p in (0, 20, 40, 60, 80, 120, 200)]
[(False, 3), (False, 2), (False, 1), (True, 0), (True, 1), (True, 3), (True, 6)]
"""

from __future__ import annotations

from engine.rules import MatchRules, ScoreRules

__all__ = ["climb", "levels_for", "progress_end"]

# 003 「抓分方獲得60分取得勝利資格，莊家下莊；獲得80分升1級，100分升2級，120分升3級，150分升4級，
# 180分升5級，200分升6級」: (defenders' points at least, levels they gain).
_TAKE_TABLE = ((200, 6), (180, 5), (150, 4), (120, 3), (100, 2), (80, 1))


def levels_for(points: int, rules: ScoreRules) -> tuple[bool, int]:
    """(do the defenders take the deal, levels gained by the side that climbs).

    Below the take-over mark the dealers climb: 0 or less +3, under half the mark +2, else +1
    (docs/rules.md: the seeds are silent; this is 升级's custom scaled to the mark). With a
    ``level_step`` (001 §2.1) every full step beyond the mark, either way, is a level.
    """
    mark = rules.take_over
    if rules.level_step:
        if points >= mark:
            return True, (points - mark) // rules.level_step
        return False, (mark - points) // rules.level_step
    if points >= mark:
        return True, next((gain for floor, gain in _TAKE_TABLE if points >= floor), 0)
    if points <= 0:
        return False, 3
    return False, 2 if points < mark // 2 else 1


def progress_end(rules: MatchRules) -> int:
    """Progress at which a climb stops for good: past A of the last circuit."""
    return rules.circuits * 13


def climb(progress: int, gain: int, *, dealing: bool, rules: MatchRules) -> int:
    """Climb ``gain`` levels from ``progress``, stopping at a must-play level the team has not
    played; a team that just won a hand as dealers has played its own level.
    (001 §2.1 「如碰上“2”、“J”、“A”等必打牌，多余的分数作废」; 000 「第三圈的A必打」.)"""
    start = progress
    end = progress_end(rules)
    for _ in range(gain):
        circuit, level = divmod(progress, 13)
        binding = level in rules.must_play and (
            not rules.must_play_last_circuit_only or circuit == rules.circuits - 1
        )
        if binding and not (dealing and progress == start):
            break
        progress += 1
        if progress >= end:
            return end
    return progress
