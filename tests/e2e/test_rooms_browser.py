"""A class follows the lecturer in real browsers: the lecturer opens a room on PLAN step by step,
phones (375x812 contexts) join with the room's link, the lecturer sees them, steps to the next
slide, and every phone follows; a wrong code gets a clear message.

``make fit`` runs it with 4 phones and ``make classroom-browsers`` with 30
(``DPMEAN_ROOM_PHONES=30``), printing how long the lecturer's own slide and the phones took at
each step. The phones run in a second Chromium at idle CPU priority (see ``phone_browser``): on
this 2-core machine they stand for phones with processors of their own (docs/classroom.md).
"""

from __future__ import annotations

import os
import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import RUN_ENDED, WALK

pytestmark = pytest.mark.browser

PHONES = int(os.environ.get("DPMEAN_ROOM_PHONES", "4"))
PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}
MAIN_H1 = '[data-testid="stMain"] h1'


def _wait_text(pg, pattern: str, timeout: float = 120.0) -> float:
    """Seconds until the page's text matches ``pattern`` (fails after ``timeout``)."""
    start = time.monotonic()
    pg.wait_for_function(
        "p => new RegExp(p).test(document.body.innerText)", arg=pattern, timeout=timeout * 1000
    )
    return time.monotonic() - start


def _open_room(lecturer, url: str) -> str:
    lecturer.goto(f"{url}/plan_step_by_step")
    lecturer.wait_for_selector(MAIN_H1, timeout=180_000)
    lecturer.wait_for_function(RUN_ENDED, timeout=180_000)
    opener = lecturer.get_by_role("button", name="Open a room for the class")
    for tries_left in (2, 1, 0):  # a click during a redraw can be lost: click again
        opener.click(no_wait_after=True)
        try:
            _wait_text(lecturer, r"Room [A-Z0-9]{4}-[A-Z0-9]{4} ·", timeout=40)
            break
        except PlaywrightTimeout:
            if not tries_left:
                raise
    code = re.search(r"Room ([A-Z0-9]{4}-[A-Z0-9]{4}) ·", lecturer.inner_text("body"))
    assert code
    lecturer.get_by_role("button", name="Start ▶").click()  # the join slide gives way
    lecturer.locator(".st-key-dp-join").wait_for(state="detached", timeout=60_000)
    lecturer.get_by_text("Presenter mode").click(no_wait_after=True)
    _wait_text(lecturer, r"1 / \d+ ·")
    # presenter mode folds the sidebar away at once: the first slide is drawn at full width (it
    # was folded only at the first step, which then drew the chart again, wider)
    lecturer.wait_for_function(
        "() => document.querySelector('[data-testid=\"stSidebar\"]')"
        ".getBoundingClientRect().width < 50",
        timeout=30_000,
    )
    return code.group(1)


#: records, in the page, when its main area last changed (a redraw of the slide)
_WATCH = """() => {
  window.__dpLast = performance.now();
  if (!window.__dpWatch) {
    window.__dpWatch = new MutationObserver((records) => {
      window.__dpLast = performance.now();
      const el = records[records.length - 1].target;
      const box = el.closest && el.closest('[data-testid]');
      window.__dpWhat = box ? box.getAttribute('data-testid') : String(el.nodeName);
    });
    window.__dpWatch.observe(document.querySelector('[data-testid="stMain"]'),
      {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return performance.now();
}"""
#: how many slides the lecturer steps through (``make classroom-browsers``: every step of PLAN)
STEPS = int(os.environ.get("DPMEAN_ROOM_STEPS", "3"))


def _step(lecturer, k: int) -> tuple[float, float, str]:
    """The lecturer presses "Next ▶" to slide ``k``: seconds until the bar shows it, until the
    slide stops changing (its chart drawn: the main area's last change within 4 s), and what
    changed last."""
    clicked = lecturer.evaluate(_WATCH)
    lecturer.get_by_role("button", name="Next ▶").first.click(no_wait_after=True)
    bar = _wait_text(lecturer, rf"{k} / \d+ ·", timeout=max(60, 10 * PHONES))
    lecturer.wait_for_timeout(4000)
    last = (lecturer.evaluate("window.__dpLast") - clicked) / 1000
    return bar, max(bar, last), str(lecturer.evaluate("window.__dpWhat || ''"))


@pytest.mark.skipif(
    not WALK, reason="run by `make fit` (4 phones) and `make classroom-browsers` (30)"
)
def test_phones_follow_the_lecturers_slides(browser, phone_browser, app_url):
    lecturer = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    code = _open_room(lecturer, app_url)

    phones = []
    for _ in range(PHONES):
        pg = phone_browser.new_context(**PHONE).new_page()
        pg.goto(f"{app_url}/?room={code}", timeout=max(180, 20 * PHONES) * 1000)
        phones.append(pg)
    for pg in phones:  # each lands on the lecturer's page, at the lecturer's slide (30 phone
        # browsers starting at once share this machine's 2 cores with the server: minutes)
        _wait_text(pg, r"1 / \d+ ·", timeout=max(240, 20 * PHONES))
        assert pg.inner_text(MAIN_H1) == lecturer.inner_text(MAIN_H1)
    _wait_text(lecturer, rf"{PHONES} phones following", timeout=120)
    for pg in phones:  # and each phone's first page run has ended: a lecturer starts once the
        # class has joined (a phone shows the bar long before its page run ends, and thirty first
        # runs still going made the first step's chart wait 2.6-5.0 s for the server)
        pg.wait_for_function(RUN_ENDED, timeout=max(240, 10 * PHONES) * 1000)

    for k in range(2, 2 + STEPS):  # a slide at a time, the class caught up before the next
        start = time.monotonic()
        bar, view, what = _step(lecturer, k)
        for pg in phones:
            _wait_text(pg, rf"{k} / \d+ ·", timeout=max(240, 10 * PHONES))
        print(
            f"\n{PHONES} phones, slide {k}: the lecturer's bar {bar:.2f} s, slide drawn "
            f"{view:.2f} s (last change: {what}); every phone on it after "
            f"{time.monotonic() - start:.1f} s"
        )


def test_a_wrong_room_code_says_so(browser, app_url):
    pg = browser.new_context(**PHONE).new_page()
    pg.goto(f"{app_url}/?room=QQQQ")
    pg.wait_for_selector(MAIN_H1, timeout=180_000)
    pg.locator(
        '[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"]'
    ).first.click(no_wait_after=True, timeout=120_000)
    _wait_text(pg, "There is no room 'QQQQ'", timeout=120)


def test_the_sidebar_opens_in_presenter_mode_after_a_step(browser, app_url):
    """Presenter mode collapses the sidebar, and the lecturer (the room's code, its QR code) and a
    phone ("My own seed") must still be able to open it: its button stays on screen."""
    pg = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    pg.goto(f"{app_url}/plan_step_by_step?present=1")
    _wait_text(pg, r"1 / \d+ ·", timeout=180)
    pg.get_by_role("button", name="Next ▶").first.click()  # a rerun collapses the sidebar
    _wait_text(pg, r"2 / \d+ ·", timeout=120)
    opener = pg.locator('[data-testid="stExpandSidebarButton"]').first
    opener.click(timeout=60_000)
    pg.get_by_role("button", name="Open a room for the class").wait_for(timeout=60_000)
    # the sidebar slides open (a CSS transition): wait for its width rather than read it once
    pg.wait_for_function(
        """() => document.querySelector('[data-testid="stSidebar"]')
            .getBoundingClientRect().width > 200""",
        timeout=30_000,
    )
