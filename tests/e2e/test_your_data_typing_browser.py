"""Your data's bounds in Debian's Chromium, typed as fast as a keyboard goes: four values typed
with Tab between them and no wait for the app are all kept, before and after "Use these bounds",
and a reload (F5) keeps them, sent or not.

The bounds table this replaced lost values typed quickly (each commit reran the app while the
next value was being typed), and a reload lost the values the last rerun had not yet written to
the address bar (each rerun rewrites the query string)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = pytest.mark.browser
WAIT = 120_000
CSV = b"id,income,hours\n" + b"".join(
    f"{i},{30000 + i * 97 % 50000},{20 + i % 40}\n".encode() for i in range(200)
)
BOXES = ("income: lower bound", "income: upper bound", "hours: lower bound", "hours: upper bound")
TYPED = ["1", "99", "2", "88"]
RUN_ENDED = (
    "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
    " && !document.querySelector('[data-stale=\"true\"]')"
)


def _settle(page) -> None:
    page.wait_for_timeout(300)  # a run the last action started has begun
    page.wait_for_function(RUN_ENDED, timeout=WAIT)


def _upload(page) -> None:
    page.wait_for_selector("input[type=file]", state="attached", timeout=WAIT)
    _settle(page)
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "survey.csv", "mimeType": "text/csv", "buffer": CSV}]
    )
    page.get_by_label(BOXES[0], exact=True).wait_for(timeout=WAIT)
    _settle(page)


def _boxes(page) -> list[str]:
    return [page.get_by_label(label, exact=True).input_value() for label in BOXES]


def test_four_bounds_typed_fast_are_kept_also_after_a_reload(app_url, page, screenshot):
    page.goto(f"{app_url}/your_data?yd_source=upload&yd_bounds_mode_own=public")
    _upload(page)
    page.get_by_label(BOXES[0], exact=True).click()
    for value in TYPED:  # no wait for the app between the values
        page.keyboard.type(value)
        page.keyboard.press("Tab")
    assert _boxes(page) == TYPED
    page.reload()  # at once, before sending them
    _upload(page)
    assert _boxes(page) == TYPED, "a reload lost values typed but not yet sent"
    page.get_by_role("button", name="Use these bounds").click()
    _settle(page)
    assert _boxes(page) == TYPED
    assert page.get_by_text("Type a lower and an upper value").count() == 0
    page.reload()
    _upload(page)
    assert _boxes(page) == TYPED, "a reload lost the sent values"
    shared = parse_qs(urlparse(page.url).query)["yd_bounds"][0]
    assert json.loads(shared) == {"income": [1.0, 99.0], "hours": [2.0, 88.0]}
    screenshot(page, "your_data_typed_fast")
