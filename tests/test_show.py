"""``arena games`` and ``arena show`` (arena/cli/games.py, arena/cli/show.py) and the transcript
(records/transcript.py): what a person reads of a stored game, at 80 columns."""

from __future__ import annotations

import random
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from chaodipi.arena.cli.main import main
from chaodipi.arena.files import write_record
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import Turn, pack, record_lines, seat_view, spaced, transcript

TRICK = re.compile(r"^ *(\d+)\. (.*)")


def _record(preset: str, seed: int, max_hands: int | None = 2) -> list[dict[str, Any]]:
    match = Match(PRESETS[preset], seed=seed, max_hands=max_hands)
    rng = random.Random(seed)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    turns = [
        Turn(ms=40 + i, note=f"note {i} of seat {seat}" if i % 25 == 0 else "")
        for i, (seat, _) in enumerate(match.actions)
    ]
    bots = ("alpha-with-a-long-name", "beta", "alpha-with-a-long-name", "beta")
    return list(record_lines(match, turns, bots=bots, date="2026-12-01T14:00:00Z"))


def _tricks(text: list[str]) -> list[str]:
    """Each trick's text, its wrapped lines joined."""
    tricks: list[str] = []
    inside = False
    for line in text:
        if TRICK.match(line):
            tricks.append(line)
            inside = True
        elif inside and line.startswith("    ") and not line.lstrip().startswith("»"):
            tricks[-1] += " " + line.strip()
        else:
            inside = False
    return tricks


def _flat(text: list[str]) -> str:
    """The transcript as one line, its wrapping undone."""
    return " ".join(" ".join(text).split())


def test_cards_read_as_a_person_writes_them() -> None:
    assert spaced("♠AK10 ♥5 LJ BJ") == "♠A K 10  ♥5  LJ BJ"
    assert spaced("♦3 ♠2 ♦A") == "♠2  ♦A 3"
    assert spaced("") == "—"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_transcript_fits_80_columns_and_tells_every_trick(preset: str) -> None:
    lines = _record(preset, seed=3, max_hands=None)
    text = transcript(lines)
    assert max(cell_len(line) for line in text) <= 80  # columns: 扛旗 takes four
    tricks = [line for line in lines if line["type"] == "trick"]
    told = _tricks(text)
    assert len(told) == len(tricks)
    for line, trick in zip(tricks, told, strict=True):
        assert f"→ {line['seat']} +{line['points']} (defenders " in trick
    for hand in (line for line in lines if line["type"] == "dealt"):
        for seat, cards in enumerate(hand["hands"]):
            assert any(spaced(cards) in row for row in text), f"seat {seat}'s hand"
    assert (
        sum(1 for row in text if row.startswith("hand ") and " over: the defenders have " in row)
        == (lines[0]["result"]["hands"])
    )


def test_the_running_total_ends_at_the_hands_trick_points_and_penalties() -> None:
    lines = _record("classic", seed=6, max_hands=1)
    score = next(line for line in lines if line["type"] == "hand_over")["score"]
    last = _tricks(transcript(lines))[-1]
    total = int(re.search(r"\(defenders (-?\d+)\)", last).group(1))  # type: ignore[union-attr]
    assert total == score["trick_points"] + score["throw_penalty"]


def test_a_seat_is_told_only_what_it_knew() -> None:
    lines = _record("anchao", seed=3)
    dealer = next(line for line in lines if line["type"] == "trump")["dealer"]
    seat = (dealer + 1) % 4
    kitty = next(line for line in lines if line["type"] == "kitty")["cards"]
    hidden = [line for line in lines if line["type"] == "declare" and line["seat"] != seat]
    text = _flat(transcript(lines, seat=seat, hand=1))
    everything = _flat(transcript(lines, hand=1))
    shown = _flat([spaced(kitty)])
    assert f"takes the kitty: {shown}" in everything and shown not in text
    assert "dealt:" in transcript(lines, hand=1)
    assert "dealt:" not in transcript(lines, seat=seat, hand=1)
    assert f"dealt to {seat} beta:" in text
    assert hidden and "a hidden bid" in text and "a hidden bid" not in everything  # 暗炒
    own = [a["note"] for a in seat_view(lines, seat) if a["type"] == "action" and "note" in a]
    others = [
        a["note"] for a in lines if a["type"] == "action" and "note" in a and a["seat"] != seat
    ]
    whole = _flat(transcript(lines, seat=seat))
    assert own and all(note in whole for note in own)
    assert others and not any(note in whole for note in others)


def test_one_hand_only() -> None:
    lines = _record("mingchao", seed=2)
    text = transcript(lines, hand=2)
    assert [row for row in text if row.startswith("── hand")] == [
        next(row for row in transcript(lines) if row.startswith("── hand 2 "))
    ]


# -- the commands -------------------------------------------------------------------------------


def _row(key: GameKey, **changes: Any) -> GameRow:
    values: dict[str, Any] = dict(
        score_a=1.0, hands=2, levels_a=3, levels_b=0, defended_a=1, points_a=80,
        defended_b=1, points_b=20, strikes_a=0, strikes_b=0, illegal_a=0, illegal_b=0,
        crashes_a=0, crashes_b=0, forfeit=None, reason="played to the end", errors="",
        seconds=12.0, void=None,
    )  # fmt: skip
    values.update(changes)
    return GameRow(key, **values)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """Four stored games: deal 1 played both ways and released, a forfeit on deal 2 (released),
    and a void game on deal 3 whose record is held back."""
    path = tmp_path / "results.sqlite"
    db = ResultsDB(path)
    games = [
        (GameKey("alpha", "beta", 1, False), {}),
        (GameKey("alpha", "beta", 1, True), {"score_a": 0.5}),
        (GameKey("alpha", "gamma", 2, False), {"score_a": 0.0, "forfeit": "alpha"}),
        (GameKey("alpha", "gamma", 3, False), {"score_a": None, "void": "gamma never played"}),
    ]
    for key, changes in games:
        db.add(_row(key, **changes))
        db.add_record(key, pack(_record("hefei", seed=key.deal + 10 * key.swapped)))
    db.release_deal(1)
    db.release_deal(2)
    db.close()
    return path


def test_games_lists_every_stored_game_at_80_columns(database: Path, capsys: Any) -> None:
    assert main(["games", str(database)]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if re.match(r"^ ?\d+ +\S+-d\d+-[ab] ", line)]
    assert len(rows) == 4 and max(len(line) for line in out) <= 80
    assert rows[0].split() == [
        "1", "alpha-beta-d1-a", "1", "alpha", "v", "beta", "alpha", "won", "played",
        "2", "12s", "yes",
    ]  # fmt: skip
    assert "beta v alpha" in rows[1] and "draw" in rows[1]
    assert "forfeit" in rows[2] and "gamma won" in rows[2]
    assert "void" in rows[3] and rows[3].split()[-1] == "no"


def test_games_names_each_bot_s_faults_fallbacks_among_them(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a listed game has faults, a ``faults`` column names each bot with its counts
    (answers its kit chose for it, ``fallbacks``, beside strikes), ``—`` for a game without;
    it still fits 80 columns."""
    path = tmp_path / "results.sqlite"
    db = ResultsDB(path)
    db.add(_row(GameKey("slow", "quick", 1, False), fallbacks_a=3, strikes_a=1))
    db.add(_row(GameKey("slow", "quick", 1, True), fallbacks_b=1))
    db.add(_row(GameKey("slow", "quick", 2, False)))
    db.close()
    assert main(["games", str(path)]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 80
    monkeypatch.setenv("COLUMNS", "200")  # each cell on one line
    assert main(["games", str(path)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "faults" in next(line for line in rows if line.split()[:2] == ["#", "game"])
    assert "slow: 1 strike, 3 fallbacks" in next(r for r in rows if "slow-quick-d1-a" in r)
    assert "quick: 1 fallback " in next(r for r in rows if "slow-quick-d1-b" in r)
    assert " — " in next(r for r in rows if "slow-quick-d2-a" in r)


def test_games_wraps_long_bot_names_between_words_at_80_columns(
    tmp_path: Path, capsys: Any
) -> None:
    """The README's main job's bots: at 80 columns their names wrap at a space, none is cut
    or split, and every column (to ``rec``) is still there."""
    path = tmp_path / "results.sqlite"
    db = ResultsDB(path)
    db.add(_row(GameKey("heuristic", "montecarlo", 1, False), score_a=0.0))
    db.add(_row(GameKey("random", "heuristic", 1, True), score_a=0.0))
    db.close()
    assert main(["games", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in out) <= 80
    (header,) = [number for number, line in enumerate(out) if line.split()[:2] == ["#", "game"]]
    assert out[header].split() == [
        "#", "game", "deal", "0+2", "v", "1+3", "result", "ending", "hands", "time", "rec",
    ]  # fmt: skip
    words = {word for line in out[header + 2 :] for word in line.split()}
    assert {"heuristic", "montecarlo", "random", "won", "played", "no"} <= words
    assert all(
        word in {"heuristic", "montecarlo", "random", "v", "won", "played", "2", "12s", "no"}
        or word.isdigit()
        or word.endswith(("-a", "-b"))
        for word in words
    ), words


@pytest.mark.parametrize(
    ("options", "numbers"),
    [
        (["--bot", "gamma"], ["3", "4"]),
        (["--pairing", "beta,alpha"], ["1", "2"]),
        (["--forfeits"], ["3"]),
        (["--voids"], ["4"]),
        (["--bot", "beta", "--voids"], []),
    ],
)
def test_games_filters(database: Path, capsys: Any, options: list[str], numbers: list[str]) -> None:
    assert main(["games", str(database), *options]) == 0
    captured = capsys.readouterr()
    listed = [
        line.split()[0]
        for line in captured.out.splitlines()
        if re.match(r"^ ?\d+ +\S+-d\d+-[ab] ", line)
    ]
    assert listed == numbers
    assert f"{len(numbers)} of 4 games" in captured.out + captured.err


def test_show_prints_a_stored_game_by_number_or_name(database: Path, capsys: Any) -> None:
    assert main(["show", str(database), "2"]) == 0
    by_number = capsys.readouterr().out
    assert main(["show", str(database), "alpha-beta-d1-b"]) == 0
    assert capsys.readouterr().out == by_number
    assert by_number.startswith("game · preset hefei · 2026-12-01T14:00:00Z\n")
    assert "── hand 1 " in by_number and "── hand 2 " in by_number
    assert main(["show", str(database), "1", "--seat", "2", "--hand", "2"]) == 0
    seat = capsys.readouterr().out
    assert "as seat 2 saw it" in seat and "── hand 1 " not in seat


def test_show_reads_a_record_file(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "game.jsonl"
    lines = _record("kangqi", seed=4, max_hands=1)
    write_record(path, lines)
    assert main(["show", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == transcript(lines)



def test_a_reader_that_goes_away_is_no_error(tmp_path: Path) -> None:
    """`arena show GAME | head`: stdout's reader is gone before the transcript is written;
    the command ends quietly with status 0, no traceback."""
    path = tmp_path / "game.jsonl"
    write_record(path, _record("classic", seed=4, max_hands=1))
    command = subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", "show", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert command.stdout is not None and command.stderr is not None
    command.stdout.close()  # before the interpreter has even started: every write fails
    stderr = command.stderr.read().decode()
    command.stderr.close()
    assert command.wait(timeout=120) == 0, stderr
    assert stderr == ""

@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["4"], "has no record to show: its deal is still being played"),
        (["9"], "holds no game '9' (see arena games"),
        (["alpha-beta-d7-a"], "holds no game 'alpha-beta-d7-a'"),
        ([], "is a results database: name the GAME"),
        (["1", "--hand", "3"], "the game has no hand 3 (it has 2, 2 finished)"),
    ],
)
def test_show_says_what_is_wrong_in_one_line(
    database: Path, capsys: Any, args: list[str], message: str
) -> None:
    assert main(["show", str(database), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_show_refuses_a_file_that_is_no_record(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n", encoding="utf-8")
    assert main(["show", str(path)]) == 2
    assert "is not a game record: line 1 is not JSON" in capsys.readouterr().err
    assert main(["show", str(tmp_path / "absent.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["games", str(tmp_path / "absent.sqlite")]) == 2
    assert "no database at" in capsys.readouterr().err


def test_a_game_cut_short_tells_its_last_trick_as_far_as_it_went() -> None:
    match = Match(PRESETS["classic"], seed=4, max_hands=1)
    rng = random.Random(4)
    while not (match.hand.play is not None and len(match.log) and _mid_trick(match)):
        match.apply(match.to_play, match.legal_actions().sample(rng))
    lines = list(record_lines(match))
    last = [line for line in lines if line["type"] == "play"][-1]
    tricks = _tricks(transcript(lines))
    assert tricks[-1].startswith(f"{last['trick']:>3}. ")
    told = " ".join(tricks[-1].split())
    assert f" {last['seat']} {' '.join(spaced(last['cards']).split())}" in told
    assert told.endswith("│ (the game ended here)")


def _mid_trick(match: Match) -> bool:
    """The last event is a play that did not end its trick, some tricks in."""
    events = list(match.log)
    return events[-1].kind.value == "play" and sum(e.kind.value == "trick" for e in events) >= 3


def test_event_lines_alone_are_told_hand_by_hand() -> None:
    """Public event lines alone, with no header, hand or action lines, make a transcript too:
    each hand begins at its first event, each trick on its line."""
    lines = _record("classic", seed=5)
    events = [line for line in lines if "seq" in line and "to" not in line and line["type"] != "hand"]
    text = transcript(events)
    assert [row for row in text if row.startswith("── hand")] == ["── hand 1 ──", "── hand 2 ──"]
    assert len(_tricks(text)) == sum(1 for line in events if line["type"] == "trick")


def _floored_hefei_record() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A random Hefei match whose hand's parts sum below 0 (the defenders' failed throws), and
    that hand's ``hand_over`` line."""
    for seed in range(30):
        lines = _record("hefei", seed=seed)
        for line in lines:
            if line["type"] == "hand_over" and line["score"]["floored"]:
                return lines, line
    raise AssertionError("no floored hand in 30 Hefei matches")


def test_a_floored_hefei_hand_says_so() -> None:
    """001 §4.1 「台下罚分罚至0分为止」: a hand whose parts (tricks, kitty, failed throws) sum below 0
    scores 0; its line says the floor was applied, or its parts would seem to sum to 0."""
    lines, over = _floored_hefei_record()
    score = over["score"]
    parts = score["trick_points"] + score["kitty_points"] * score["kitty_multiplier"]
    assert parts + score["throw_penalty"] < 0 and over["total"] == 0
    told = _flat(transcript(lines))
    line = re.search(rf"hand {over['hand'] + 1} over: the defenders have 0 \(([^)]*)\)", told)
    assert line is not None and " < 0; floored at 0" in line.group(1), told
    unfloored = [
        row
        for row in lines
        if row["type"] == "hand_over" and not row["score"]["floored"]
    ]
    assert all("floored" not in _flat(transcript(lines, hand=row["hand"] + 1)) for row in unfloored)


@pytest.mark.parametrize(
    ("ending", "told"),
    [("played out", "won (reward 3) after"), ("forfeit", "won (reward 3) on a forfeit after")],
)
def test_the_result_line_names_the_reward_as_the_viewer_does(ending: str, told: str) -> None:
    """The number a game's winner earns is its reward (docs/architecture.md's glossary), in the
    transcript's result line as in the viewer's "won (reward 3)"."""
    lines = _record("classic", 5)
    result = lines[0]["result"]
    result.update(winner=1, reward=3, ending=ending)
    head = _flat(transcript(lines))
    assert f"result: team 1 (beta) {told}" in head
    assert "won by" not in head


def test_a_struck_action_says_strike_as_the_report_does() -> None:
    """An action whose clock ran out is a strike (docs/architecture.md's glossary): the
    transcript says ``strike 1`` beside it, as the report's faults table says ``strikes``."""
    match = Match(PRESETS["classic"], seed=5, max_hands=1)
    rng = random.Random(5)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    turns = [Turn(ms=40) for _ in match.actions]
    first_play = next(i for i, (_, action) in enumerate(match.actions) if str(action).startswith("play"))
    turns[first_play] = Turn(ms=1050, struck=True, strikes=1)
    text = _flat(transcript(list(record_lines(match, turns))))
    assert "(strike 1)" in text
    assert "timeout" not in text


def test_games_html_writes_an_index_linking_a_page_per_game(
    database: Path, tmp_path: Path, capsys: Any
) -> None:
    """``arena games DB --html DIR``: DIR/index.html lists every game as ``arena games`` does
    (number, name, bots, result), each game with a record linked to its own page beside it,
    DIR/N.html by its number (the page ``arena show --html`` writes); the game whose record is
    held back is listed, unlinked. Every file and the folder are their owner's only."""
    folder = tmp_path / "pages" / "t1"
    assert main(["games", str(database), "--html", str(folder)]) == 0
    assert f"wrote {folder / 'index.html'} (4 games, 3 pages)" in capsys.readouterr().err
    index = (folder / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', index)
    names = ["alpha-beta-d1-a", "alpha-beta-d1-b", "alpha-gamma-d2-a"]
    assert links == [(f"{n}.html", name) for n, name in enumerate(names, start=1)]
    for n in (1, 2, 3):
        page = (folder / f"{n}.html").read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") and "chaodipi arena show --html" in page
    assert "alpha-gamma-d3-a (no record)" in index and not (folder / "4.html").exists()
    assert "being written" not in index
    assert sorted(p.name for p in folder.iterdir()) == ["1.html", "2.html", "3.html", "index.html"]
    for path in (folder, folder.parent, *folder.iterdir()):
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    rows = re.findall(r"<tr><td>(\d+)</td><td>.*?</td><td>([^<]*)</td><td>([^<]*)</td>", index)
    assert rows == [("1", "alpha v beta", "alpha won"), ("2", "beta v alpha", "draw"),
                    ("3", "alpha v gamma", "gamma won"), ("4", "alpha v gamma", "—")]  # fmt: skip


def test_games_html_cut_short_leaves_an_index_of_every_game(
    database: Path, tmp_path: Path, capsys: Any
) -> None:
    """The index is written before the pages: a run that stops at its second page (a folder
    is where it goes) leaves an index listing every game, saying that the pages are being
    written, and the first page."""
    folder = tmp_path / "pages"
    (folder / "2.html").mkdir(parents=True)
    assert main(["games", str(database), "--html", str(folder)]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [f"arena games: cannot write {folder / '2.html'}: Is a directory"], said
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert len(re.findall(r"<tr><td>\d+</td>", index)) == 4
    assert "The pages are being written" in index
    assert (folder / "1.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not (folder / "3.html").exists()


def test_games_html_into_a_folder_it_cannot_write_is_one_line(
    database: Path, tmp_path: Path, capsys: Any
) -> None:
    """A DIR inside a file is refused by the argument; a DIR that cannot be made (under
    /proc) is one line naming it; exit 2 for both."""
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit) as exit_:
        main(["games", str(database), "--html", str(tmp_path / "file" / "pages")])
    assert exit_.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "argument --html" in said[0] and "is a file" in said[0], said
    assert main(["games", str(database), "--html", "/proc/chaodipi-pages"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("arena games: cannot write /proc/chaodipi-pages")


def test_report_tells_how_to_browse_the_games(database: Path, capsys: Any) -> None:
    """``arena report`` (text) ends with one line naming ``arena games DB --html DIR``."""
    assert main(["report", str(database)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == (f"To browse the games: arena games {database} --html DIR writes "
                       "DIR/index.html, linking a page per game")  # fmt: skip
