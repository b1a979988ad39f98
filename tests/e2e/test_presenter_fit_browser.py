"""Presenter mode fits a projector: on every page (pages/_spec.py PAGES) opened with ``?present=1``
at 1280×720, every slide shows each of its charts wholly inside the viewport (nothing cut at the
bottom or the right edge); PLAN step by step and Compare also at 1920×1080. A page without
presenter steps is one screen: its first chart must be wholly visible.

Each slide is saved as a viewport screenshot under tests/e2e/screenshots/ (``present-<page>-<size>-
<slide>.png``), for a person to look at.

The test fails when a chart's bounding box leaves the viewport: before the charts were sized to the
height left, every PLAN slide at 1280×720 drew its chart from about y = 490 to 980.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pages._spec import PAGES
from tests.e2e.conftest import walk_or

# run by `make walk` (PLAN and Compare) and `make fit` (every page)
pytestmark = [pytest.mark.browser, pytest.mark.walk]
WAIT = 120_000
SHOTS = Path(__file__).parent / "screenshots"

#: Idle, nothing stale or loading, every chart drawn, fonts in; then the same chart boxes twice
#: (a chart sized to the screen lays itself out once more after it is drawn).
SETTLED = """() => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"], .stSpinner')) return false;
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
    .filter(c => c.getClientRects().length > 0);  // on this slide (the others are not drawn)
  if (!charts.every(c => c.querySelector('.main-svg'))) return false;
  return document.fonts.status === 'loaded';
}"""

#: The bounding box of every chart on screen (not hidden by the slide's style), in page order.
BOXES = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .map(e => e.getBoundingClientRect())
  .filter(r => r.width > 0 && r.height > 0)
  .map(r => [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)])"""

SIZES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}
#: (page, size): every page at 1280×720, the two long decks also at 1920×1080.
#: every page at 1280x720 and PLAN and Compare at 1920x1080 in ``make fit``; PLAN and Compare at
#: 1280x720 (the slides that were cut) in ``make walk``
CASES = walk_or(
    [(p, "1280x720") for p in PAGES]
    + [
        (p, "1920x1080")
        for p in PAGES
        if p.path in ("pages/plan_step_by_step.py", "pages/compare.py")
    ],
    [
        (p, "1280x720")
        for p in PAGES
        if p.path in ("pages/plan_step_by_step.py", "pages/compare.py")
    ],
)


def _settle(page: object) -> list[list[int]]:
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=WAIT)  # type: ignore[attr-defined]
    boxes: list[list[int]] = []
    for _ in range(20):
        page.wait_for_function(SETTLED, timeout=WAIT)  # type: ignore[attr-defined]
        page.wait_for_timeout(250)  # type: ignore[attr-defined]
        now = page.evaluate(BOXES)  # type: ignore[attr-defined]
        if now == boxes:
            return now
        boxes = now
    return boxes


def _off_screen(boxes: list[list[int]], width: int, height: int) -> list[list[int]]:
    return [b for b in boxes if b[0] < -1 or b[1] < -1 or b[2] > width + 1 or b[3] > height + 1]


@pytest.mark.parametrize(
    ("spec", "size"), CASES, ids=[f"{p.url_path or 'home'}-{s}" for p, s in CASES]
)
def test_every_slide_shows_its_charts_whole(browser, app_url, spec, size):
    width, height = SIZES[size]
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    try:
        page.goto(f"{app_url}/{spec.url_path}?present=1", timeout=WAIT)
        problems = []
        for k in range(max(len(spec.steps), 1)):
            if spec.steps:  # the bar names the slide: "3 / 8 · ..."
                page.get_by_text(f"{k + 1} / {len(spec.steps)} ·").first.wait_for(timeout=WAIT)
            reveal = page.get_by_role("button", name="Reveal the answer")
            if reveal.count() and reveal.first.is_visible():  # predict, then reveal: the chart
                reveal.first.click()  # draws once the lecturer reveals the answer
                page.get_by_text("The run says").first.wait_for(timeout=WAIT)
            boxes = _settle(page)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"present-{spec.url_path or 'home'}-{size}-{k}.png"))
            # a slide: every chart on it; a page without steps: the chart it shows first (the
            # top-most on screen: presenter mode moves the first full-width chart under the title)
            checked = boxes if spec.steps else sorted(boxes, key=lambda b: b[1])[:1]
            if bad := _off_screen(checked, width, height):
                title = spec.steps[k] if spec.steps else spec.title
                problems.append(f"slide {k + 1} ({title}): {bad} outside {width}x{height}")
            if k + 1 < len(spec.steps):
                page.get_by_role("button", name="Next ▶").click()
                page.wait_for_timeout(300)
        assert not problems, "\n".join(problems)
    finally:
        ctx.close()
