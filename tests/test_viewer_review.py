"""The game's review in the HTML viewer (``arena show --html --review``), in Debian's chromium
driven by playwright as tests/test_viewer.py does: each judged step's verdict, the better move
on the cards, the graph of the position's value, at 1280×800 and on a 390×844 touch screen."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chaodipi.arena.cli.main import main
from chaodipi.arena.files import write_record
from chaodipi.engine.cards import parse_cards
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import record_lines, write_html
from chaodipi.review import review_game, review_json
from tests import test_viewer
from tests.test_viewer import DESK, PHONE, _embedded, _shot

browser = test_viewer.browser  # Debian's chromium, headless (the fixture of tests/test_viewer.py)

SIMULATIONS = 8
UNJUDGED = ("hand", "step", "link", "seat", "bot", "phase")
"""What a review's JSON says of a decision it does not judge, besides ``"judged": false``."""
BOTS = ("alpha", "</script><b>beta</b>", "alpha", "</script><b>beta</b>")


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A 1-hand game of random moves (plenty of marks), its record file, its page written by
    ``arena show --html --review --simulations 8`` and the review that page should hold."""
    folder = tmp_path_factory.mktemp("review")
    match = Match(PRESETS["classic"], seed=5, max_hands=1)
    rng = random.Random(5)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    lines = list(record_lines(match, bots=BOTS))
    write_record(folder / "game.jsonl", lines)
    argv = ["show", str(folder / "game.jsonl"), "--html", str(folder / "game.html"), "--review"]
    assert main([*argv, "--simulations", str(SIMULATIONS), "-j", "2"]) == 0
    assert main(["show", str(folder / "game.jsonl"), "--html", str(folder / "plain.html")]) == 0
    review = review_json(review_game(lines, simulations=SIMULATIONS, seed=1))
    yield {"lines": lines, "folder": folder, "review": review}


def _viewer_step(lines: list[dict[str, Any]], decision: dict[str, Any]) -> int:
    """The viewer's step (from 0, over the whole game: ``document.body.dataset.step``) of a
    decision the review names by its hand (from 0) and its step in it (from 1)."""
    step, first = -1, None
    for line in lines[1:]:
        if line["type"] in ("action", "hand") or step < 0:
            step += 1
        if line["type"] == "hand" and line["hand"] == decision["hand"]:
            first = step
    assert first is not None
    return first + decision["step"] - 1


def _open(browser: Any, path: Path, context: dict[str, Any]) -> tuple[Any, list[str]]:
    page = browser.new_context(**context).new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    return page, problems


def _move(action: str) -> str:
    return action.removeprefix("play ")


def test_show_review_embeds_the_review_as_arena_review_makes_it(game: dict[str, Any]) -> None:
    """The page holds the review exactly as review_json makes it for the same budget and seed
    (whatever the workers), bot names that try to end the script included, and the record;
    a page without --review holds none."""
    page = (game["folder"] / "game.html").read_text(encoding="utf-8")
    assert _embedded(page, "review") == game["review"]
    assert _embedded(page, "record") == game["lines"]
    assert "</script><b>" not in page
    assert any(d["judged"] and d["mark"] for d in game["review"]["decisions"])
    plain = (game["folder"] / "plain.html").read_text(encoding="utf-8")
    assert _embedded(plain, "review") is None


def test_review_goes_with_html(game: dict[str, Any], capsys: Any) -> None:
    """--review without --html is one line and exit code 2."""
    assert main(["show", str(game["folder"] / "game.jsonl"), "--review"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert said == ["arena show: --review goes with --html (arena review prints a review as text)"]


READ_REVIEW = r"""() => ({
  step: Number(document.body.dataset.step),
  hidden: document.getElementById('step-review').hidden,
  text: document.getElementById('step-review').innerText,
  rows: Array.from(document.querySelectorAll('#step-review .candidates tr'),
    (r) => ({cells: Array.from(r.cells, (c) => c.innerText), chosen: r.classList.contains('chosen')})),
  raised: Array.from(document.querySelectorAll('.card.better:not(#step-review .card)'),
    (c) => Number(c.dataset.card)),
  logMark: (document.querySelector('#log li.current .mark') || {}).textContent || '',
  where: document.getElementById('where').textContent.replace(/\d+$/, ''),
  scrolled: (document.querySelector('#step-review .candidates') || {}).scrollTop || 0,
})"""


def test_a_judged_step_shows_its_mark_cost_and_better_move(
    browser: Any, game: dict[str, Any], tmp_path: Path
) -> None:
    """At each marked decision of the game: the panel beside the step says its mark and cost
    ("?? cost 0.62 ± 0.10"), the better move, the candidates best first with their values and
    the bot's choice highlighted, and the table raises the better move's cards; the step in
    the hand's steps carries the mark; the panel names the judge and its version. A step the
    review does not judge says so."""
    page, problems = _open(browser, game["folder"] / "game.html", DESK)
    marked = [d for d in game["review"]["decisions"] if d["judged"] and d["mark"]]
    for number, decision in enumerate(marked):
        page.goto((game["folder"] / "game.html").as_uri() + decision["link"])  # its link
        shown = page.evaluate(READ_REVIEW)
        assert shown["step"] == _viewer_step(game["lines"], decision)
        assert not shown["hidden"] and shown["where"] == f"step {decision['step']} / "
        assert shown["scrolled"] == 0  # every candidate in sight, the best first
        cost = f"{decision['mark']} cost {decision['cost']:.2f} ± {decision['error']:.2f}"
        assert cost in shown["text"], (cost, shown["text"])
        assert f"better: {_move(decision['best'])}" in shown["text"]
        judge = game["review"]["judge"]
        assert f"judge {judge['name']} {judge['version']}" in shown["text"]
        assert shown["logMark"] == decision["mark"]
        rows = shown["rows"][1:]
        assert [r["cells"][0].removesuffix(" ← chosen") for r in rows] == [
            _move(c["action"]) for c in decision["candidates"]
        ]
        values = [float(r["cells"][1].replace("−", "-")) for r in rows]
        assert values == [float(f"{c['value']:.2f}") for c in decision["candidates"]]
        assert values == sorted(values, reverse=True)
        assert [r["cells"][0] for r in rows if r["chosen"]] == [
            f"{_move(decision['chosen'])} ← chosen"
        ]
        better = sorted(int(c) for c in parse_cards(decision["best"].partition(" ")[2]))
        assert sorted(shown["raised"]) == better
        if number == 0:
            _shot(page, tmp_path, "review-desk-judged")
    assert problems == []
    # every decision of this game is judged: a review whose first one is not (one candidate:
    # nothing to weigh it against) says so at its step
    review = copy.deepcopy(game["review"])
    first = review["decisions"][0]
    review["decisions"][0] = {k: v for k, v in first.items() if k in UNJUDGED} | {"judged": False}
    write_html(game["lines"], game["folder"] / "unjudged.html", review=review)
    page, problems = _open(browser, game["folder"] / "unjudged.html", DESK)
    page.evaluate(f"chaodipiViewer.go({_viewer_step(game['lines'], first)})")
    shown = page.evaluate(READ_REVIEW)
    assert "Not judged" in shown["text"] and shown["rows"] == [] and shown["raised"] == []
    assert problems == []


def test_the_value_graph_has_a_point_per_judged_decision_and_its_dots_go_to_their_steps(
    browser: Any, game: dict[str, Any], tmp_path: Path
) -> None:
    """The graph of the hand: one point per judged decision (the best candidate's value for
    the acting seat's team, from team 0's side), a dot coloured by mark for each marked one;
    a click on a dot goes to its step."""
    page, problems = _open(browser, game["folder"] / "game.html", DESK)
    judged = [d for d in game["review"]["decisions"] if d["judged"]]
    teams = {bot["seat"]: bot["team"] for bot in game["lines"][0]["bots"]}
    expected = [(1 if teams[d["seat"]] == 0 else -1) * d["candidates"][0]["value"] for d in judged]
    assert json.loads(page.evaluate("document.getElementById('values').dataset.values")) == expected
    colours = {"??": "blunder", "?": "mistake", "?!": "inaccuracy"}
    dots = page.evaluate("""() => Array.from(document.querySelectorAll('#values .dot:not(.here)'),
      (d) => [Number(d.dataset.step), d.getAttribute('class')])""")
    assert dots == [
        [_viewer_step(game["lines"], d), f"dot {colours[d['mark']]}"] for d in judged if d["mark"]
    ]
    target = dots[-1][0]  # drawn last, so on top of any it overlaps
    page.locator(f'#values .dot[data-step="{target}"]').click()
    assert page.evaluate("document.body.dataset.step") == str(target)
    page.locator("#values-graph").scroll_into_view_if_needed()
    _shot(page, tmp_path, "review-desk-graph")
    assert problems == []


def test_on_a_phone_the_review_and_its_graph_come_right_after_the_table(
    browser: Any, game: dict[str, Any], tmp_path: Path
) -> None:
    """390×844, touch: at a marked step the page is no wider than the screen; the step's
    review begins within 1.2 screens of the top, the graph of the position's value
    right under it; a tap on a dot of the graph goes to its step with that step's review in
    sight."""
    page, problems = _open(browser, game["folder"] / "game.html", PHONE)
    judged = [d for d in game["review"]["decisions"] if d["judged"]]
    blunder = next(d for d in judged if d["mark"] == "??")
    page.evaluate(f"chaodipiViewer.go({_viewer_step(game['lines'], blunder)})")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert re.search(r"\?\? cost \d", page.inner_text("#step-review"))
    _shot(page, tmp_path, "review-phone", full=True)
    box = page.locator("#step-review").bounding_box()
    graph = page.locator("#values-graph").bounding_box()
    table = page.locator("#table").bounding_box()
    assert box is not None and graph is not None and table is not None
    assert table["y"] + table["height"] < box["y"] < 1.2 * 844
    assert 0 <= graph["y"] - (box["y"] + box["height"]) < 20
    last = page.locator("#values .dot:not(.here)").last
    last.scroll_into_view_if_needed()
    step = last.get_attribute("data-step")
    last.tap()
    assert page.evaluate("document.body.dataset.step") == step
    # in sight to the pixel: scrolled into view, its edge may lie a fraction of a pixel out
    seen = page.evaluate("""() => { const r = document.getElementById('step-review').getBoundingClientRect();
      return r.top > -1 && r.bottom < innerHeight + 1; }""")
    tapped = next(d for d in judged if str(_viewer_step(game["lines"], d)) == step)
    assert seen and f"cost {tapped['cost']:.2f}" in page.inner_text("#step-review")
    _shot(page, tmp_path, "review-phone-tapped")
    assert problems == []


def test_a_seats_view_shows_only_what_the_seat_saw_of_the_review(
    browser: Any, game: dict[str, Any], tmp_path: Path
) -> None:
    """In seat N's view: the graph has a point for each of seat N's decisions judged and no
    other (the others' values come from cards seat N never saw), and a decision's review
    says nothing of the move best with every card open, which the view of all hands says."""
    judged = [d for d in game["review"]["decisions"] if d["judged"]]
    teams = {bot["seat"]: bot["team"] for bot in game["lines"][0]["bots"]}
    for seat in (1, 2):
        mine = [d for d in judged if d["seat"] == seat]
        marked = next(d for d in mine if d["mark"])
        page, problems = _open(browser, game["folder"] / "game.html", DESK)
        page.goto((game["folder"] / "game.html").as_uri() + marked["link"] + f"&seat={seat}")
        values = json.loads(page.evaluate("document.getElementById('values').dataset.values"))
        sign = 1 if teams[seat] == 0 else -1
        assert values == [sign * d["candidates"][0]["value"] for d in mine]
        text = page.inner_text("#step-review")
        assert f"cost {marked['cost']:.2f}" in text and "all cards open" not in text
        assert f"seat {seat}" in page.inner_text("#values-graph figcaption")
        page.keyboard.press("a")  # all hands
        assert "all cards open: " in page.inner_text("#step-review")
        assert problems == []
    _shot(page, tmp_path, "review-desk-all")


def test_a_page_without_a_review_shows_no_review(browser: Any, game: dict[str, Any]) -> None:
    page, problems = _open(browser, game["folder"] / "plain.html", DESK)
    marked = next(d for d in game["review"]["decisions"] if d["judged"] and d["mark"])
    page.evaluate(f"chaodipiViewer.go({_viewer_step(game['lines'], marked)})")
    assert page.locator("#step-review").is_hidden() and page.locator("#values-graph").is_hidden()
    assert page.locator("#log .mark, .card.better").count() == 0
    assert problems == []
