"""The HTML game viewer (``arena show --html``, chaodipi.records.viewer) in a real browser: Debian's
chromium, headless, driven by playwright. Each step of a whole hand is checked against the
engine playing the same actions: the four hands, the trick, the defenders' points."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chaodipi.arena.cli.main import main
from chaodipi.arena.files import write_record
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.engine import CARDS, Rank, Suit, Trump
from chaodipi.engine.actions import parse_action
from chaodipi.engine.cards import parse_cards
from chaodipi.engine.levels import level_name
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS, preset
from chaodipi.engine.view import observe
from chaodipi.records import (
    Turn,
    outcome_of,
    pack,
    record_lines,
    render_html,
    team_name,
    transcript,
    write_html,
)
from chaodipi.records.words import sentence, turn_words

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # the test extra brings it
    sync_playwright = None

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SETUP = "pip install -e '.[test]' (playwright) and apt-get install -y chromium"


def _note(seat: int, index: int) -> str:
    """A note no other text on the page has, and one that tries to end the page's script."""
    return f"note-of-seat-{seat} #{index}" if index % 5 else f"</script><b>seat {seat}</b>"


def _record(name: str, seed: int, hands: int) -> list[dict[str, Any]]:
    match = Match(PRESETS[name], seed=seed, max_hands=hands)
    rng = random.Random(seed)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    turns = [
        Turn(ms=10 + i, note=_note(seat, i)) for i, (seat, _) in enumerate(match.actions)
    ]
    bots = ("alpha", "beta", "alpha", "beta")
    return list(record_lines(match, turns, bots=bots, date="2026-12-01T14:00:00Z"))


def _steps(lines: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any] | None, bool]]:
    """The viewer's steps as the record defines them (docs/game-record.md): a step per action
    and per hand begun. Yields (the step's action line or None, whether it begins a hand)."""
    for line in lines[1:]:
        if line["type"] == "action":
            yield line, False
        elif line["type"] == "hand":
            yield None, True


def _lines_of_steps(lines: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The event lines of each step (as :func:`_steps` counts them)."""
    steps: list[list[dict[str, Any]]] = []
    for line in lines[1:]:
        if line["type"] in ("action", "hand") or not steps:
            steps.append([])
        if line["type"] != "action":
            steps[-1].append(line)
    return steps


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, driven by playwright. Without either the tests are skipped
    on a developer's machine but fail in CI (``CI`` set), where they must run."""
    missing = [name for name, there in (("playwright", sync_playwright), ("chromium", CHROMIUM))
               if there is None]
    if missing:
        message = f"{' and '.join(missing)} missing: {SETUP}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _open(browser: Any, lines: list[dict[str, Any]], path: Path) -> tuple[Page, list[str]]:
    write_html(lines, path)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)

    def only_the_file(route: Any) -> None:
        if route.request.url != path.as_uri():
            problems.append(f"the page asked for {route.request.url}")
            route.abort()
        else:
            route.continue_()

    page.route("**/*", only_the_file)
    page.goto(path.as_uri())
    return page, problems


READ_TABLE = """() => {
  const codes = (nodes) => Array.from(nodes, (n) => Number(n.dataset.card));
  const seats = [0, 1, 2, 3].map((s) => document.querySelector(`.seat[data-seat="${s}"]`));
  return {
    step: Number(document.body.dataset.step),
    hands: seats.map((s) => codes(s.querySelectorAll(".hand .card[data-card]"))),
    backs: seats.map((s) => s.querySelectorAll(".hand .card.back").length),
    dealt: seats.map((s) => codes(s.querySelectorAll(".dealt .card[data-card]"))),
    trick: [0, 1, 2, 3].map((s) => codes(document.querySelectorAll(`.spot[data-seat="${s}"] .card`))),
    kitty: codes(document.querySelectorAll("#kitty .card[data-card]")),
    winner: Array.from(document.querySelectorAll(".spot.winner"), (n) => Number(n.dataset.seat)),
    status: document.getElementById("status").innerText,
    text: document.body.innerText,
  };
}"""


def _defenders_points(status: str) -> int | None:
    found = re.search(r"team \d: (-?\d+) points", status)
    return None if found is None else int(found.group(1))


def test_stepping_through_a_whole_hand_shows_what_the_engine_holds_at_every_step(
    browser: Any, tmp_path: Path
) -> None:
    """Every step of the first hand and into the second, forward by the arrow key and the
    button: each seat's cards (in the engine's arrangement), the trick on the table and its
    winner, the defenders' points; then back to the start by ←. Screenshots are taken mid-hand
    and at the hand's end (pytest keeps them: its basetemp, test_stepping_through…/*.png)."""
    lines = _record("classic", seed=5, hands=2)
    page, problems = _open(browser, lines, tmp_path / "game.html")
    header = lines[0]
    match = Match(preset(header["preset"]), header["seed"], header["max_hands"])
    seen_at_start = page.evaluate(READ_TABLE)
    tricks_checked = 0
    for number, (action, begins_hand) in enumerate(_steps(lines)):
        if number > 0:
            (page.keyboard.press("ArrowRight") if number % 3 else page.click("#next"))
        shown = page.evaluate(READ_TABLE)
        assert shown["step"] == number
        ended_hand = False
        if action is not None:
            hand = match.number
            match.apply(action["seat"], parse_action(action["action"], match.hand.level))
            ended_hand = match.number != hand
        if ended_hand:  # the hand is scored: every card was played
            assert shown["hands"] == [[], [], [], []]
            assert f"the defenders have {match.records[-1].total}" in shown["text"]
            over = next(line for line in lines if line["type"] == "hand_over")
            assert [sorted(d) for d in shown["dealt"]] == [
                sorted(int(c) for c in parse_cards(cards)) for cards in over["dealt"]
            ]
            if match.number == 1 and begins_hand is False:
                page.screenshot(path=str(tmp_path / "hand-over.png"))
            continue
        if match.number == 1 and not begins_hand:
            break  # into the second hand: done
        assert shown["hands"] == [[int(c) for c in match.hand.hand(s)] for s in range(4)], number
        assert shown["backs"] == [0, 0, 0, 0] and shown["dealt"] == [[], [], [], []]
        play = match.hand.play
        if play is None:
            assert shown["trick"] == [[], [], [], []]
            continue
        view = observe(match, 0)
        assert _defenders_points(shown["status"]) == view.defenders_points + view.throw_penalties
        trick = play.trick if play.trick.plays else play.last_trick
        if trick is None:  # the trump is fixed, nobody has led
            assert shown["trick"] == [[], [], [], []]
            continue
        played = dict(trick.plays)
        assert [sorted(shown["trick"][s]) for s in range(4)] == [
            sorted(int(c) for c in played.get(s, ())) for s in range(4)
        ]
        assert shown["winner"] == ([] if trick is play.trick else [trick.winner])
        tricks_checked += trick is not play.trick
        if tricks_checked == 4 and trick is not play.trick:
            page.screenshot(path=str(tmp_path / "mid-hand.png"))
    assert tricks_checked >= 10
    assert (tmp_path / "mid-hand.png").stat().st_size > 10_000
    for _ in range(number):
        page.keyboard.press("ArrowLeft")
    assert page.evaluate(READ_TABLE)["hands"] == seen_at_start["hands"]
    assert page.evaluate(READ_TABLE)["step"] == 0
    assert problems == []


def test_a_seats_view_shows_its_own_cards_and_notes_and_nothing_of_the_others(
    browser: Any, tmp_path: Path
) -> None:
    """Seat 1's view of a hidden-bid (暗炒) game, step by step up to the card play and into
    it: its own cards face up, the others' as backs (as many as they hold), its own notes and
    never another seat's, and no other seat's hidden bid. The all-hands view then shows every
    note."""
    lines = _record("anchao", seed=3, hands=1)
    page, problems = _open(browser, lines, tmp_path / "game.html")
    page.keyboard.press("1")
    header = lines[0]
    match = Match(preset(header["preset"]), header["seed"], header["max_hands"])
    hidden_bids = [
        line["bid"] for line in lines if line["type"] == "declare" and line.get("to") == [line["seat"]]
    ]
    plays = 0
    kitty_seen = False  # seat 1 knows the kitty's cards: it buried them, or they were turned
    lines_of_step = _lines_of_steps(lines)
    for number, (action, _) in enumerate(_steps(lines)):
        kitty_seen = kitty_seen or any(
            (line["type"] == "bury" and line["seat"] == 1) or line["type"] == "kitty_turned"
            for line in lines_of_step[number]
        )
        if number > 0:
            page.keyboard.press("ArrowRight")
        if action is not None:
            match.apply(action["seat"], parse_action(action["action"], match.hand.level))
        shown = page.evaluate(READ_TABLE)
        assert shown["step"] == number
        held = [[int(c) for c in match.hand.hand(s)] for s in range(4)]
        assert shown["hands"] == [[], held[1], [], []]
        assert shown["backs"] == [len(held[0]), 0, len(held[2]), len(held[3])]
        if not kitty_seen:
            assert shown["kitty"] == [], number
        assert "note-of-seat-0" not in shown["text"] and "note-of-seat-2" not in shown["text"]
        assert "note-of-seat-3" not in shown["text"]
        for line in lines:
            if line["type"] == "declare" and line.get("to") == [line["seat"]] and line["seat"] != 1:
                assert f"declares {line['bid']}" not in shown["text"]
        if action is not None and action["seat"] == 1 and "note-of" in action.get("note", ""):
            assert action["note"] in shown["text"]
        plays += match.hand.play is not None
        if plays == 12:
            break
    assert plays == 12, "the card play was reached"
    assert "note-of-seat-1" in page.evaluate("document.body.innerText")
    assert hidden_bids, "the game has hidden bids to keep"
    page.keyboard.press("a")
    text = page.evaluate("document.body.innerText")
    assert "note-of-seat-0" in text and "note-of-seat-3" in text
    assert problems == []


def _whole_record(name: str, seed: int) -> list[dict[str, Any]]:
    match = Match(PRESETS[name], seed=seed)
    rng = random.Random(seed)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    return list(record_lines(match, bots=("alpha", "beta", "alpha", "beta")))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_whole_match_of_every_preset_opens_and_steps_to_its_end(
    browser: Any, tmp_path: Path, name: str
) -> None:
    """A whole match (every hand, 扛旗 and redeals where the preset has them): the page opens,
    its last step shows the teams' final levels (named as the engine names them) and the hand
    count, the hand keys move by
    whole hands, and no script error happens anywhere."""
    lines = _whole_record(name, seed=7)
    result = lines[0]["result"]
    hands = sum(line["type"] == "hand" for line in lines)
    page, problems = _open(browser, lines, tmp_path / "game.html")
    page.keyboard.press("End")
    shown = page.evaluate(READ_TABLE)
    assert f"hand\t{hands} of {hands}" in shown["status"]
    for team in (0, 1):  # as the engine names them: "扛旗" past A of a match of one circuit
        level = level_name(result["progress"][team], PRESETS[name].match.circuits)
        row = f"team {team} (seats {team}, {team + 2})\tlevel {level}\n"
        assert row in shown["status"] + "\n", (row, shown["status"])
    for _ in range(hands):  # the last hand's start first, then a hand back each
        page.keyboard.press("PageUp")
    assert page.evaluate(READ_TABLE)["step"] == 0
    page.keyboard.press("PageDown")
    assert "hand\t2 of" in page.evaluate(READ_TABLE)["status"]
    for view in "0123a":
        page.keyboard.press(view)
    assert problems == []


def test_a_game_cut_short_mid_trick_shows_how_far_it_went(browser: Any, tmp_path: Path) -> None:
    """A game stopped in its second hand, inside a trick: the last step shows that trick as far
    as it went and the cards still held, and the header says it was stopped."""
    match = Match(PRESETS["classic"], seed=5, max_hands=3)
    rng = random.Random(5)
    while match.number < 1 or match.hand.play is None or len(match.hand.play.tricks) < 3:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    while len(match.hand.play.trick.plays) < 2:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    lines = list(record_lines(match, bots=("alpha", "beta", "alpha", "beta")))
    page, problems = _open(browser, lines, tmp_path / "game.html")
    page.keyboard.press("End")
    shown = page.evaluate(READ_TABLE)
    assert shown["hands"] == [[int(c) for c in match.hand.hand(s)] for s in range(4)]
    played = dict(match.hand.play.trick.plays)
    assert [sorted(shown["trick"][s]) for s in range(4)] == [
        sorted(int(c) for c in played.get(s, ())) for s in range(4)
    ]
    assert "undecided (stopped) after 1 hand: not finished" in page.inner_text("#verdict")
    assert problems == []


def test_an_answer_the_bot_s_kit_chose_is_shown_as_a_fallback(browser: Any, tmp_path: Path) -> None:
    """An action line with ``fallback`` (its kit answered for the bot: docs/game-record.md)
    says so in the log and the seat's bubble; the others do not."""
    match = Match(PRESETS["classic"], seed=6, max_hands=1)
    rng = random.Random(6)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    turns = [Turn(ms=5, fallback=i == 3) for i in range(len(match.actions))]
    lines = list(record_lines(match, turns, bots=("alpha", "beta", "alpha", "beta")))
    page, problems = _open(browser, lines, tmp_path / "game.html")
    text = page.evaluate("document.body.innerText")
    assert text.count("fallback: its kit answered for it") == 1, text
    assert problems == []


def test_the_page_opens_at_the_hand_and_in_the_view_asked(browser: Any, tmp_path: Path) -> None:
    lines = _record("classic", seed=5, hands=2)
    path = tmp_path / "game.html"
    write_html(lines, path, seat=2, hand=2)
    page = browser.new_page()
    page.goto(path.as_uri())
    shown = page.evaluate(READ_TABLE)
    assert "hand\t2 of 2" in shown["status"] and page.evaluate("document.body.dataset.view") == "2"
    assert shown["hands"][0] == [] and shown["hands"][2] and shown["backs"][0] > 0


def _embedded(page: str, element: str) -> Any:
    start = page.index(f'<script type="application/json" id="{element}">') + len(
        f'<script type="application/json" id="{element}">'
    )
    return json.loads(page[start : page.index("</script>", start)])


def test_show_html_writes_the_page_of_a_record_file_or_a_stored_game(
    tmp_path: Path, capsys: Any
) -> None:
    """`arena show RECORD --html PATH` and `arena show DB GAME --html PATH --seat 2 --hand 2`:
    the page holds the record exactly (notes that try to end the script included) and opens
    where asked; a PATH in no folder is one line and exit code 2."""
    lines = _record("classic", seed=5, hands=2)
    record_file = tmp_path / "game.jsonl"
    write_record(record_file, lines)
    assert main(["show", str(record_file), "--html", str(tmp_path / "a.html")]) == 0
    assert f"wrote {tmp_path / 'a.html'}" in capsys.readouterr().err
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert _embedded(page, "record") == lines
    assert _embedded(page, "start") == {"view": "all", "hand": 0}
    review = {"decisions": [{"bot": "</script><b>x</b><!--", "candidates": []}]}
    page = render_html(lines, review=review)  # a review's bot names cannot end the script either
    assert _embedded(page, "review") == review and _embedded(page, "record") == lines
    assert "</script><b>" not in page

    database = tmp_path / "results.sqlite"
    key = GameKey("alpha", "beta", 1, False)
    db = ResultsDB(database)
    db.add(GameRow(key, score_a=1.0, hands=2, levels_a=3, levels_b=0, defended_a=1, points_a=80,
                   defended_b=1, points_b=40, strikes_a=0, strikes_b=0, illegal_a=0, illegal_b=0,
                   crashes_a=0, crashes_b=0, forfeit=None, reason="played to the end", errors="",
                   seconds=1.0, void=None))  # fmt: skip
    db.add_record(key, pack(lines))
    db.release_deal(1)
    db.close()
    argv = ["show", str(database), "alpha-beta-d1-a", "--html", str(tmp_path / "b.html")]
    assert main([*argv, "--seat", "2", "--hand", "2"]) == 0
    page = (tmp_path / "b.html").read_text(encoding="utf-8")
    assert _embedded(page, "record") == lines
    assert _embedded(page, "start") == {"view": 2, "hand": 1}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["show", str(record_file), "--html", str(tmp_path / "nope" / "c.html")])
    assert exit_.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "argument --html" in said[0] and "there is no folder" in said[0]


def test_the_page_needs_nothing_but_itself() -> None:
    """No address to fetch anything from: no src, href, url(), import or http in the page."""
    page = render_html(_record("hefei", seed=2, hands=1))
    assert not re.search(r"\b(src|href)=|url\(|@import|https?://|<link", page)
    # the record, its words, the arrangements, the trumps, the level names, the review, where
    # to start, the viewer
    assert page.count("<script") == 8


def test_a_floored_hefei_hand_says_so(browser: Any, tmp_path: Path) -> None:
    """001 §4.1 「台下罚分罚至0分为止」: the scored hand's parts end with "floored at 0" when they
    sum below 0 (docs/rules.md "the floor is told"), and not otherwise."""
    for seed in range(30):
        lines = _record("hefei", seed=seed, hands=1)
        over = next(line for line in lines if line["type"] == "hand_over")
        if over["score"]["floored"]:
            break
    else:
        raise AssertionError("no floored first hand in 30 Hefei matches")
    page, problems = _open(browser, lines, tmp_path / "game.html")
    page.keyboard.press("End")
    text = page.inner_text("#hand-over")
    assert "the defenders have 0" in text and "; floored at 0" in text, text
    assert f"throws {over['score']['throw_penalty']}" in text
    other = _record("hefei", seed=0, hands=1)
    assert not next(line for line in other if line["type"] == "hand_over")["score"]["floored"]
    page, problems = _open(browser, other, tmp_path / "other.html")
    page.keyboard.press("End")
    assert "floored" not in page.inner_text("#hand-over")
    assert problems == []


# -- a viewer people enjoy: a phone, the trumps, the seat to play, the score, playing through --

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
DESK = {"viewport": {"width": 1280, "height": 800}}
SHOTS = os.environ.get("VIEWER_SHOTS")  # a folder to keep the screenshots in, to look at


def _shot(page: Page, tmp_path: Path, name: str, *, full: bool = False) -> None:
    path = Path(SHOTS or tmp_path) / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    assert path.stat().st_size > 10_000


def _open_in(browser: Any, lines: list[dict[str, Any]], path: Path, context: dict[str, Any],
             hash_: str = "") -> tuple[Page, list[str]]:  # fmt: skip
    write_html(lines, path)
    page = browser.new_context(**context).new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.goto(path.as_uri() + hash_)
    return page, problems


def _step_of(lines: list[dict[str, Any]], wanted: Any) -> int:
    """The viewer's step number (from 0) holding the first line ``wanted(line)`` is true of."""
    step = -1
    for line in lines[1:]:
        if line["type"] in ("action", "hand"):
            step += 1
        if wanted(line):
            return step
    raise AssertionError("no such line")


def _trumps(lines: list[dict[str, Any]], hand: int) -> set[int]:
    """The engine's trump cards of hand ``hand`` of a record."""
    fixed = next(line for line in lines if line["type"] == "trump" and line["hand"] == hand)
    rules = preset(lines[0]["preset"]).card
    level = None if fixed["level"] is None else Rank.parse(fixed["level"])
    suit = None if fixed["suit"] is None else Suit.parse(fixed["suit"])
    trump = Trump(level, suit, rules)
    return {int(card) for card in CARDS if trump.is_trump(card)}


SEAT0_BOTTOMS = """() => {
  const bottoms = [];
  for (let i = 0; i < chaodipiViewer.steps; i++) {
    chaodipiViewer.go(i);
    bottoms.push(document.querySelector('.seat[data-seat="0"]').getBoundingClientRect().bottom);
  }
  return bottoms;
}"""


def test_a_phone_sees_the_page_at_its_width_and_a_desk_keeps_seat_0_in_sight(
    browser: Any, tmp_path: Path
) -> None:
    """At 390×844 (a phone, touch) the page is never wider than the screen, at any step of a
    hand; at 1280×800 seat 0 stays above the fold at every step of a whole hand, and a last
    trick of eight cards a seat (the record's four last plays made eight cards each: the page
    only shows them) stays on the table."""
    lines = _record("classic", seed=5, hands=1)
    page, problems = _open_in(browser, lines, tmp_path / "game.html", PHONE)
    widths = page.evaluate("""() => {
      const widths = [];
      for (let i = 0; i < chaodipiViewer.steps; i += 7) {
        chaodipiViewer.go(i);
        widths.push(document.documentElement.scrollWidth);
      }
      return widths;
    }""")
    assert max(widths) <= 390, widths
    page.evaluate("chaodipiViewer.go(60)")
    _shot(page, tmp_path, "phone-mid-hand")
    _shot(page, tmp_path, "phone-mid-hand-full", full=True)
    assert problems == []

    last = max(line["trick"] for line in lines if line["type"] == "play")
    eight = ["♠10 ♠10 ♠J ♠J ♠Q ♠Q ♠K ♠K", "♦3 ♦3 ♦4 ♦5 ♦6 ♦7 ♦8 ♦9",
             "♣10 ♣10 ♣J ♣J ♣Q ♣Q ♣K ♣K", "♥3 ♥3 ♥4 ♥6 ♥7 ♥8 ♥9 ♥10"]  # fmt: skip
    for line in lines:
        if line["type"] == "play" and line["trick"] == last:
            line["cards"] = eight[line["seat"]]
    page, problems = _open_in(browser, lines, tmp_path / "eight.html", DESK)
    bottoms = page.evaluate(SEAT0_BOTTOMS)
    assert max(bottoms) <= 800, max(bottoms)
    page.keyboard.press("End")
    placed = page.evaluate("""() => {
      const table = document.getElementById('table').getBoundingClientRect();
      const cards = Array.from(document.querySelectorAll('.spot .card'), (c) => c.getBoundingClientRect());
      return {cards: cards.length, outside: cards.filter((c) => c.left < table.left || c.right > table.right
        || c.top < table.top || c.bottom > table.bottom).length};
    }""")
    assert placed == {"cards": 32, "outside": 0}
    _shot(page, tmp_path, "desk-eight-card-trick")
    page, _ = _open_in(browser, lines, tmp_path / "eight.html", PHONE)
    page.keyboard.press("End")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(page, tmp_path, "phone-eight-card-trick", full=True)
    assert problems == []


def test_the_trumps_are_marked_and_named_and_a_trick_won_by_a_trump_says_so(
    browser: Any, tmp_path: Path
) -> None:
    """Classic, seed 5, hand 1: ♥ trump at level 2. In the card play the cards marked as
    trumps, in every hand, the trick and the kitty, are exactly the engine's trumps (♥5, the
    jokers, every 2, every ♥); the trump line names them; a trick in which a trump beat a
    side suit led says so ("♠2 (trump) beats ♦Q")."""
    lines = _record("classic", seed=5, hands=1)
    trumps = _trumps(lines, 0)
    page, problems = _open_in(browser, lines, tmp_path / "game.html", DESK)
    step = _step_of(lines, lambda line: line["type"] == "trick" and line["trick"] == 3)
    page.evaluate(f"chaodipiViewer.go({step})")
    marks = page.evaluate("""() => Array.from(document.querySelectorAll('.card[data-card]'),
      (c) => [Number(c.dataset.card), c.classList.contains('trump')])""")
    assert len(marks) > 60
    assert all(marked == (card in trumps) for card, marked in marks), marks
    assert any(marked for _, marked in marks) and not all(marked for _, marked in marks)
    assert ("trump\t♥, level 2: trumps are ♥5, the jokers, every 2 (the level) and every ♥ "
            "(the trump suit)") in page.inner_text("#status")  # fmt: skip
    _shot(page, tmp_path, "desk-trumps")

    plays: dict[int, list[tuple[int, list[int]]]] = {}
    trumped = None
    for line in lines:
        if line["type"] == "play" and line["hand"] == 0:
            plays.setdefault(line["trick"], []).append((line["seat"], parse_cards(line["cards"])))
        if line["type"] == "trick" and line["hand"] == 0:
            (_, led), won = plays[line["trick"]][0], dict(plays[line["trick"]])[line["seat"]]
            if not any(int(c) in trumps for c in led) and all(int(c) in trumps for c in won):
                trumped = (line, led, won)
                break
    assert trumped is not None, "a trick won by a trump over a side suit"
    line, led, won = trumped
    page.evaluate(f"chaodipiViewer.go({_step_of(lines, lambda x: x is line)})")
    caption = page.inner_text("#trick-caption")
    assert f"{' '.join(map(str, won))} (trump) beats {' '.join(map(str, led))}" in caption, caption
    _shot(page, tmp_path, "desk-trumped-trick")
    assert problems == []


def test_the_seat_to_play_is_marked_apart_from_the_seat_that_acted(
    browser: Any, tmp_path: Path
) -> None:
    """At each step the seat to act next (the engine's ``to_play``) has the to-play mark and
    its badge, and no other seat; the seat that acted last keeps its own mark; at a hand's end
    nobody is to play."""
    lines = _record("classic", seed=5, hands=1)
    header = lines[0]
    match = Match(preset(header["preset"]), header["seed"], header["max_hands"])
    page, problems = _open_in(browser, lines, tmp_path / "game.html", DESK)
    read = """() => ({
      toPlay: Array.from(document.querySelectorAll('.seat.to-play'), (s) => Number(s.dataset.seat)),
      badges: Array.from(document.querySelectorAll('.seat .turn:not([hidden])'),
        (b) => Number(b.closest('.seat').dataset.seat)),
      acting: Array.from(document.querySelectorAll('.seat.acting'), (s) => Number(s.dataset.seat)),
    })"""
    apart = 0
    for number, (action, _) in enumerate(_steps(lines)):
        if action is not None:
            match.apply(action["seat"], parse_action(action["action"], match.hand.level))
        page.evaluate(f"chaodipiViewer.go({number})")
        shown = page.evaluate(read)
        expected = [] if match.over else [match.to_play]
        assert shown["toPlay"] == expected and shown["badges"] == expected, (number, shown)
        assert shown["acting"] == ([] if action is None else [action["seat"]])
        apart += shown["acting"] != shown["toPlay"]
        if number == 40:
            _shot(page, tmp_path, "desk-to-play")
    assert apart > 50
    assert problems == []


def test_a_hands_score_adds_up_to_the_defenders_total(browser: Any, tmp_path: Path) -> None:
    """At each hand's end of whole matches the score's parts (tricks, the kitty × its
    multiplier when dug, throws, fries, red fives) sum to the defenders' total the page says
    beside it, and the status row says the same total; a floored sum says so."""
    sums = 0
    for name, seed in (("classic", 5), ("anchao", 4), ("hefei", 1)):
        lines = _whole_record(name, seed)
        page, problems = _open_in(browser, lines, tmp_path / f"{name}.html", DESK)
        for over in (line for line in lines if line["type"] == "hand_over"):
            page.evaluate(f"chaodipiViewer.go({_step_of(lines, lambda x, o=over: x is o)})")
            said = page.inner_text("#hand-over")
            assert f"the defenders have {over['total']}\n" in said
            found = re.search(r"^(tricks .*?) (=|<) (-?\d+)", said, re.M)
            assert found is not None, said
            parts = found.group(1).split(" + ")
            total = 0
            for part in parts:
                kitty = re.fullmatch(r"kitty (\d+) × (\d+)", part)
                total += int(kitty[1]) * int(kitty[2]) if kitty else int(part.rsplit(" ", 1)[1])
            if found.group(2) == "<":
                assert total < 0 and over["total"] == 0 and "; floored at 0" in said
            else:
                assert total == int(found.group(3)) == over["total"], said
            status = page.inner_text("#status")
            assert f": {over['total']} points, the hand's score" in status, status
            sums += 1
            if sums == 2:
                _shot(page, tmp_path, "desk-hand-over")
        assert problems == []
    assert sums >= 6


def test_the_address_holds_the_hand_step_and_seat(browser: Any, tmp_path: Path) -> None:
    """``#hand=2&step=31&seat=2`` opens hand 2's 31st step in seat 2's view; moving, and
    changing the view, rewrite the hash; a hash changed by hand is followed."""
    lines = _record("classic", seed=5, hands=2)
    second = _step_of(lines, lambda line: line["type"] == "hand" and line["hand"] == 1)
    page, problems = _open_in(browser, lines, tmp_path / "game.html", DESK, "#hand=2&step=31&seat=2")
    assert page.evaluate("document.body.dataset.step") == str(second + 30)
    assert page.evaluate("document.body.dataset.view") == "2"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("location.hash") == "#hand=2&step=32&seat=2"
    page.keyboard.press("a")
    assert page.evaluate("location.hash") == "#hand=2&step=32"
    page.keyboard.press("Home")
    assert page.evaluate("location.hash") == "#hand=1&step=1"
    page.evaluate("location.hash = '#hand=1&step=5&seat=1'")
    page.wait_for_function("document.body.dataset.step === '4'")
    assert page.evaluate("document.body.dataset.view") == "1"
    assert problems == []


def test_autoplay_the_scrubber_and_a_swipe_move_the_steps(browser: Any, tmp_path: Path) -> None:
    """Play advances a step per tick of the speed chosen (the page's clock driven by the test:
    no waiting on time), Space pauses it; the range input goes to any step by keyboard and by a
    tap; a swipe left across the table on a touch screen is the next step."""
    lines = _record("classic", seed=5, hands=1)
    write_html(lines, tmp_path / "game.html")
    page = browser.new_context(**DESK).new_page()
    page.clock.install(time=0)
    page.goto((tmp_path / "game.html").as_uri())
    page.clock.pause_at(60_000)  # the page's time moves only as the test runs it on
    step = lambda: int(page.evaluate("document.body.dataset.step"))  # noqa: E731
    page.click("#play")
    assert page.inner_text("#play") == "❚❚ pause"
    page.clock.run_for(3000)  # 1 s a step
    assert step() == 3
    page.select_option("#speed", "100")
    page.clock.run_for(1000)
    assert step() == 13
    page.keyboard.press("Escape")
    page.locator("body").focus()
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    assert page.inner_text("#play") == "▶ play"
    page.clock.run_for(5000)
    assert step() == 13
    page.focus("#scrub")
    page.keyboard.press("ArrowRight")
    assert step() == 14 and page.evaluate("document.getElementById('scrub').value") == "14"
    page.keyboard.press("End")  # the range input's own End: its last step
    assert step() == page.evaluate("chaodipiViewer.steps") - 1

    phone = browser.new_context(**PHONE).new_page()
    phone.goto((tmp_path / "game.html").as_uri())
    box = phone.locator("#scrub").bounding_box()
    phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    steps = phone.evaluate("chaodipiViewer.steps")
    assert abs(int(phone.evaluate("document.body.dataset.step")) - steps / 2) < steps / 10
    at = int(phone.evaluate("document.body.dataset.step"))
    table = phone.locator("#table").bounding_box()
    cdp = phone.context.new_cdp_session(phone)
    y = table["y"] + 100
    for kind, x in (("touchStart", 300), ("touchMove", 200), ("touchEnd", 100)):
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    phone.wait_for_function(f"document.body.dataset.step === '{at + 1}'")
    phone.tap("#next")
    assert int(phone.evaluate("document.body.dataset.step")) == at + 2


def test_this_hands_tricks_and_the_graph_of_the_defenders_points(
    browser: Any, tmp_path: Path
) -> None:
    """The table of this hand's tricks has a row per trick completed so far (its cards, the
    winner, the points: the record's); a click on one goes to it. The graph's points are the
    defenders' points the record states, ending at the hand's total."""
    lines = _record("classic", seed=5, hands=1)
    page, problems = _open_in(browser, lines, tmp_path / "game.html", DESK)
    tricks = [line for line in lines if line["type"] == "trick"]
    page.evaluate(f"chaodipiViewer.go({_step_of(lines, lambda x: x is tricks[5])})")
    rows = page.locator("#tricks tbody tr")
    assert rows.count() == 6
    cells = rows.nth(5).locator("td").all_inner_texts()
    assert cells[0] == "6" and f"seat {tricks[5]['seat']} (" in cells[5]
    assert cells[6:] == [str(tricks[5]["points"]), str(tricks[5]["defenders"])]
    page.keyboard.press("End")
    assert rows.count() == len(tricks)
    _shot(page, tmp_path, "desk-tricks-and-graph", full=True)
    rows.nth(2).click()
    assert page.evaluate("document.body.dataset.step") == str(_step_of(lines, lambda x: x is tricks[2]))
    page.keyboard.press("End")
    points = json.loads(page.evaluate("document.getElementById('points').dataset.points"))
    over = next(line for line in lines if line["type"] == "hand_over")
    stated = [line["defenders"] for line in lines if line["type"] in ("trick", "play") and "defenders" in line]
    assert points[-1] == over["total"] and set(stated) <= set(points)
    assert page.locator("#points polyline").count() == 1
    assert problems == []


def test_the_status_names_stand_apart_from_their_values(browser: Any, tmp_path: Path) -> None:
    """Beside the table, each row's name ("team 0 (seats 0, 2)") and its value ("level 2")
    have a space between them, on a wide screen and on a phone, at the hand's end (when the
    trump's row is long)."""
    lines = _record("classic", seed=5, hands=1)
    for context in (DESK, PHONE):
        page, problems = _open_in(browser, lines, tmp_path / "game.html", context)
        page.keyboard.press("End")
        gaps = page.evaluate("""() => Array.from(document.querySelectorAll('#status tr'), (row) => {
          const text = document.createRange();
          text.selectNodeContents(row.cells[0]);
          return row.cells[1].getBoundingClientRect().left - text.getBoundingClientRect().right; })""")
        assert len(gaps) >= 7 and min(gaps) >= 4, gaps
        assert problems == []


def test_the_games_index_links_every_game_one_click_away(browser: Any, tmp_path: Path) -> None:
    """``arena games DB --html DIR``: a click on a game in DIR/index.html opens its page."""
    database = tmp_path / "results.sqlite"
    db = ResultsDB(database)
    for deal in (1, 2):
        key = GameKey("alpha", "beta", deal, False)
        db.add(GameRow(key, score_a=1.0, hands=1, levels_a=3, levels_b=0, defended_a=1,
                       points_a=80, defended_b=1, points_b=40, strikes_a=0, strikes_b=0,
                       illegal_a=0, illegal_b=0, crashes_a=0, crashes_b=0, forfeit=None,
                       reason="played to the end", errors="", seconds=1.0, void=None))  # fmt: skip
        db.add_record(key, pack(_record("classic", seed=deal, hands=1)))
        db.release_deal(deal)
    db.close()
    assert main(["games", str(database), "--html", str(tmp_path / "pages")]) == 0
    for context, name in ((DESK, "desk"), (PHONE, "phone")):
        page = browser.new_context(**context).new_page()
        page.goto((tmp_path / "pages" / "index.html").as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= context["viewport"]["width"]
        _shot(page, tmp_path, f"{name}-index")
        cells = page.evaluate("""() => Array.from(document.querySelectorAll('tbody td'), (td) => {
          const r = td.getBoundingClientRect(), box = td.closest('.box').getBoundingClientRect();
          const said = getComputedStyle(td, '::before').content;
          return [r.left >= box.left && r.right <= box.right && r.width > 0, said]; })""")
        assert all(inside for inside, _ in cells), cells  # every column in sight, none scrolled
        if name == "phone":  # a game a block: each value after its column's name
            said = {label for _, label in cells if label != "none"}
            assert said == {'"0+2 v 1+3: "', '"result: "', '"ending: "', '"hands: "'}, cells
        assert page.locator("a").all_inner_texts() == ["alpha-beta-d1-a", "alpha-beta-d2-a"]
        page.click("text=alpha-beta-d2-a")
        page.wait_for_function("document.body.dataset.step === '0'")
        assert page.url.endswith("/pages/2.html#hand=1&step=1")
        assert "alpha vs beta" in page.inner_text("#title")


# -- the words: the page says each line as arena show does, and knows every kind -------------


def _shown(line: dict[str, Any], view: str) -> bool:
    """Whether the page's log shows an event line in ``view`` ("a": all hands, or a seat):
    all hands leaves out the public copies of private facts, a seat sees what it saw."""
    if line["type"] in ("header", "hand", "action"):
        return False
    if view == "a":
        hidden_bid = line["type"] in ("declare", "fry") and line["bid"] is None
        return "to" not in line or not (line["type"] in ("took_kitty", "buried") or hidden_bid)
    return line["type"] != "dealt" and ("to" not in line or int(view) in line["to"])


def test_the_page_says_each_step_in_the_words_of_arena_show(browser: Any, tmp_path: Path) -> None:
    """A hidden-bid (暗炒) hand, in seat 1's view (the others' hidden bids, "takes the kitty",
    "buries 8 cards") and in all hands: each line of the log is the sentence
    ``chaodipi.records.words`` makes of it, the words ``arena show`` prints (its transcript
    holds the same sentence, a seat named its own way); beside each step its turn's words;
    the header says how the game ended in the words of the transcript's result line."""
    lines = _record("anchao", seed=3, hands=1)
    page, problems = _open(browser, lines, tmp_path / "game.html")
    names = ["alpha", "beta", "alpha", "beta"]
    on_page = lambda seat: f"seat {seat} ({names[seat]})"  # noqa: E731
    in_terminal = lambda seat: f"{seat} {names[seat]}"  # noqa: E731
    told = {"a": _flat_text(transcript(lines)), "1": _flat_text(transcript(lines, seat=1))}
    auction = {"declare", "fry", "dealer", "kitty", "took_kitty", "bury", "buried", "reveal",
               "redeal", "kitty_turned", "trump", "hand_over"}  # fmt: skip
    shown: dict[str, list[str]] = {}
    for view in ("1", "a"):
        page.keyboard.press(view)
        shown[view] = page.eval_on_selector_all("#log .line", "(ns) => ns.map((n) => n.innerText)")
        expected = [sentence(line, on_page) for line in lines if _shown(line, view)]
        assert shown[view] == expected, view
        kinds = {line["type"] for line in lines if _shown(line, view)}
        assert kinds >= {"declare", "pass", "dealer", "trump", "play", "trick", "hand_over"}
        for line in lines:
            if _shown(line, view) and line["type"] in auction:
                assert _flat_text([sentence(line, in_terminal)]) in told[view], (view, line)
    assert "2 alpha buries 8 cards" in told["1"] and "seat 2 (alpha) buries 8 cards" in shown["1"]
    clocks = page.eval_on_selector_all("#log .clock", "(nodes) => nodes.map((n) => n.innerText)")
    actions = [line for line in lines if line["type"] == "action"]
    assert clocks == [turn_words(action) for action in actions]  # type: ignore[arg-type]
    assert clocks[0] == "10 ms"
    ended = outcome_of(lines[0]["result"]).said(lambda team: team_name(team, names))
    assert page.inner_text("#verdict") == ended
    assert f"result: {ended}" in told["a"]
    assert problems == []


def _flat_text(text: list[str]) -> str:
    return " ".join(" ".join(text).split())


def test_a_line_of_a_kind_the_viewer_does_not_know_is_an_error_not_passed(
    browser: Any, tmp_path: Path
) -> None:
    """A record line of a kind the schema does not have: the page's words are not made for it
    (Python names the kind), and a page holding one anyway (its embedded record changed) stops
    with an error naming the kind rather than show the game without it."""
    lines = _record("classic", seed=5, hands=1)
    stranger = {"type": "future", "seq": 10**6, "hand": 0}
    with pytest.raises(AssertionError, match="'future'"):
        render_html([*lines, stranger])
    html = render_html(lines)
    record, words = _embedded(html, "record"), _embedded(html, "words")
    at = next(i for i, line in enumerate(record) if line["type"] == "play")
    record.insert(at, stranger)
    words["lines"].insert(at, {})
    for element, value in (("record", record), ("words", words)):
        tag = f'<script type="application/json" id="{element}">'
        start = html.index(tag) + len(tag)
        end = html.index("</script>", start)
        html = html[:start] + json.dumps(value, ensure_ascii=False).replace("<", "\\u003c") + html[end:]
    path = tmp_path / "stranger.html"
    path.write_text(html, encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    assert any("a record line of a kind this viewer does not know: future" in e for e in errors)
