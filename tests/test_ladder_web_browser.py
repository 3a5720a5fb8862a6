"""The ladder's pages in a real browser (Debian's chromium, headless, driven by playwright),
served by ``serve_web`` (Hypercorn on an asyncio loop) on a free port: the leaderboard on a
desktop and on a phone with nothing wider than the screen, a pair starting after the page
loaded showing up over the event stream (and after the stream dropped), a bot's chart, and
a game's page under its content policy."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.from_thread
import pytest

from chaodipi.arena.ladder.live import Live, Playing
from chaodipi.arena.ladder.web import create_app, serve_web
from tests import test_viewer
from tests.ladder_web_support import HOSTILE, Ladder, build_ladder

try:
    from playwright.sync_api import expect
except ImportError:  # the test extra brings it; without it the browser fixture skips
    expect = None

browser = test_viewer.browser
"""Debian's chromium driven by playwright (skipped without them, failed in CI)."""

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

OVERFLOW = """() => {
  const root = document.documentElement;
  const wide = Array.from(document.querySelectorAll("body *"))
    .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5
                   && !e.closest(".scroll"))
    .map((e) => e.tagName + "." + e.className);
  return {scroll: root.scrollWidth, client: root.clientWidth, wide: wide.slice(0, 5)};
}"""
"""How wide the page is against the window, and what sticks out (a table that scrolls in its
own box does not)."""


@dataclass
class Served:
    url: str
    portal: anyio.from_thread.BlockingPortal
    live: Live
    ladder: Ladder


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The ladder's pages on 127.0.0.1 and a free port, on an asyncio loop in a thread."""
    ladder = build_ladder(
        tmp_path_factory.mktemp("ladder") / "ladder.sqlite", t0=time.time() - 9000
    )
    live = Live()
    app = create_app(
        ladder.store,
        live,
        operator=None,
        operator_digest=None,
        title="Spring ladder",
        provisional_width=100.0,
    )
    with anyio.from_thread.start_blocking_portal(backend="asyncio") as portal:
        task, address = portal.start_task(serve_web, app, "127.0.0.1:0")
        host, port = address.rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0
        yield Served(f"http://{address}", portal, live, ladder)
        task.cancel()  # the pages stop: the open event streams end first
        with pytest.raises(CancelledError):
            task.result()
        assert portal.call(lambda: live.subscribers) == 0
    ladder.store.close()


def _page(chromium: Any, size: dict[str, int]) -> tuple[Any, list[str]]:
    page = chromium.new_page(viewport=size)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    return page, problems


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_leaderboard_fits_the_screen(
    browser: Any,
    served: Served,
    size: dict[str, int],
    tmp_path: Path,
) -> None:
    page, problems = _page(browser, size)
    page.goto(served.url + "/")
    expect(page.locator("#live-state")).to_have_text("live")
    assert page.locator("table.standings tbody tr").count() == 4
    assert page.locator("#apart li").count() == 2
    assert page.locator("#recent tbody tr").count() == 5
    # the script said how long ago each time was
    when = page.locator("table.standings td.when time").first.inner_text()
    assert when.endswith(" ago"), when
    assert page.locator("table.standings td.name a").nth(1).inner_text() == f"{HOSTILE}@1"
    width = page.evaluate(OVERFLOW)
    assert width["scroll"] <= width["client"], width
    assert width["wide"] == [], width
    page.screenshot(path=str(tmp_path / f"leaderboard-{size['width']}.png"), full_page=True)
    assert problems == []
    page.close()


def test_a_pair_that_starts_shows_up_live_and_after_the_stream_drops(
    browser: Any,
    served: Served,
    tmp_path: Path,
) -> None:
    page, problems = _page(browser, PHONE)
    page.goto(served.url + "/")
    expect(page.locator("#live-state")).to_have_text("live")  # subscribed
    live, portal = served.live, served.portal
    portal.call(live.started, Playing(901, "rated", "alice@2", "bob@1", time.time() - 75))
    item = page.locator('#playing-list li[data-pair="901"]')
    item.wait_for()
    text = item.inner_text()
    assert "alice@2" in text and "bob@1" in text and "0 of 2 games over" in text
    assert "for 1 min" in text
    portal.call(live.game_over, 901)
    expect(item).to_contain_text("1 of 2 games over")
    page.screenshot(path=str(tmp_path / "playing-390.png"), full_page=True)
    portal.call(live.finished, 901, {"score_a": 0.75})
    item.wait_for(state="detached")

    # the stream drops (its subscriber fell behind, or the ladder restarted): the browser
    # connects again, and what it missed meanwhile shows once it is back
    reads = int(page.evaluate("document.body.dataset.read || 0"))
    portal.call(live.close)
    expect(page.locator("#live-state")).to_have_text("reconnecting…")
    portal.call(live.started, Playing(902, "validation", "carol@1", "carol@1", time.time()))
    page.locator('#playing-list li[data-pair="902"]').wait_for(timeout=20_000)
    assert int(page.evaluate("document.body.dataset.read")) > reads
    assert page.locator("#live-state").inner_text() == "live"
    assert "validating" in page.locator('#playing-list li[data-pair="902"]').inner_text()
    portal.call(live.finished, 902, {})
    assert problems == []
    page.close()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_bots_page_draws_its_rating_chart(
    browser: Any,
    served: Served,
    size: dict[str, int],
    tmp_path: Path,
) -> None:
    page, problems = _page(browser, size)
    page.goto(served.url + "/bots/alice")
    chart = page.locator("figure.chart svg")
    assert chart.locator("g.series").count() == 2
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100
    lines = chart.locator("polyline.line")
    assert lines.nth(1).get_attribute("points").count(",") == 3  # alice@2's three pairs
    assert page.locator("pre.detail").count() == 0
    width = page.evaluate(OVERFLOW)
    assert width["scroll"] <= width["client"] and width["wide"] == [], width
    page.screenshot(path=str(tmp_path / f"bot-{size['width']}.png"), full_page=True)
    page.goto(served.url + "/bots/carol")
    assert "ValueError: <b>boom</b>" in page.locator("pre.detail").inner_text()
    assert problems == []
    page.close()


def test_a_games_page_shows_the_viewer_under_its_policy(
    browser: Any,
    served: Served,
) -> None:
    page, problems = _page(browser, DESKTOP)
    game = served.ladder.store.games(pair_id=served.ladder.pairs[0])[0]
    page.goto(f"{served.url}/games/{game.id}")
    expect(page.locator("#title")).not_to_be_empty()
    assert "alice@1" in page.locator("body").inner_text()
    assert problems == []  # no script or style refused by the content policy
    missing = page.goto(served.url + "/games/9999")
    assert missing is not None and missing.status == 404
    assert "the ladder has no game 9999" in page.locator("main").inner_text()
    page.close()
