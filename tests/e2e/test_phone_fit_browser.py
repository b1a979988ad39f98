"""Pages on a phone (375 × 812, touch) fit the screen: no chart's legend reaches past the chart's
right edge, no animation's play/pause buttons sit on its frame slider, no table is wider
than the screen (a grid that scrolls sideways), and no word or number in a table is broken across
two lines (a line may break only at a space or after a hyphen, a dash or a slash).

The browser tells the app its window is narrow (pages/_phone.py: a hidden button its script
clicks); the test waits for that, then measures every chart and table in the browser
(bounding boxes). ``make fit`` measures every page below, ``make test`` and ``make walk`` the
ones where each problem was first seen (:func:`tests.e2e.conftest.walk_or`).
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import walk_or

pytestmark = pytest.mark.browser
WAIT = 240_000
#: px a box may pass an edge by (anti-aliasing, borders)
TOLERANCE = 2
#: the pages this check covers (Home and PLAN had none of these problems at 375 px)
EVERY = (
    "side_by_side",
    "compare",
    "winsorized",
    "simplex",
    "binary_product",
    "privacy_budget",
    "privacy_audit",
    "your_data",
)
QUICK = ("side_by_side", "simplex", "privacy_budget", "compare")

#: per chart: its box, its legend's box, its play/pause buttons' boxes and its slider's box; per
#: table (a grid, a wrapping table): its box and how far its content scrolls sideways
MEASURE_JS = r"""
() => {
  const box = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? [r.left, r.top, r.right, r.bottom] : null;
  };
  const charts = Array.from(document.querySelectorAll('.js-plotly-plot')).map((gd, k) => ({
    chart: k,
    box: box(gd),
    legend: box(gd.querySelector('.legend')),
    buttons: Array.from(gd.querySelectorAll('.updatemenu-button')).map(box).filter(Boolean),
    slider: box(gd.querySelector('.slider-container')),
  }));
  const tables = Array.from(document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stDataFrame"], [data-testid="stMain"] table'
  )).map((t, k) => {
    const scroller = t.querySelector('.dvn-scroller') || t;
    const broken = [];
    const walk = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      for (const m of node.data.matchAll(/[^\s\-\u2013\u2014\/]+/g)) {
        const r = document.createRange();
        r.setStart(node, m.index);
        r.setEnd(node, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((q) => q.width > 0)
          .map((q) => Math.round(q.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
    return {table: k, box: box(t), wide: scroller.scrollWidth - scroller.clientWidth, broken};
  });
  return {width: document.documentElement.clientWidth, charts, tables};
}
"""


def _meet(a: list[float], b: list[float]) -> bool:
    """Whether boxes ``a`` and ``b`` ([left, top, right, bottom]) share more than the tolerance."""
    wide = min(a[2], b[2]) - max(a[0], b[0])
    high = min(a[3], b[3]) - max(a[1], b[1])
    return wide > TOLERANCE and high > TOLERANCE


def problems(found: dict) -> list[str]:
    """What does not fit: a legend past its chart's right edge, a play/pause button on the
    slider, a table wider than the screen or scrolling sideways."""
    out = []
    for c in found["charts"]:
        if c["legend"] and c["box"] and c["legend"][2] > c["box"][2] + TOLERANCE:
            out.append(
                f"chart {c['chart']}: legend ends at {c['legend'][2]:.0f} px, "
                f"the chart at {c['box'][2]:.0f} px"
            )
        if c["slider"]:
            for b in c["buttons"]:
                if _meet(b, c["slider"]):
                    out.append(f"chart {c['chart']}: a play/pause button on the slider")
    for t in found["tables"]:
        if t["box"] and t["box"][2] > found["width"] + TOLERANCE:
            out.append(f"table {t['table']}: ends at {t['box'][2]:.0f} px of {found['width']}")
        if t["wide"] > TOLERANCE:
            out.append(f"table {t['table']}: scrolls sideways by {t['wide']} px")
        if t.get("broken"):
            out.append(
                f"table {t['table']}: words broken across lines: {', '.join(t['broken'][:5])}"
            )
    return out


def test_problems_finds_a_legend_past_the_edge_a_button_on_the_slider_and_a_wide_table():
    found = {
        "width": 375,
        "charts": [
            {
                "chart": 0,
                "box": [0, 0, 360, 400],
                "legend": [10, 0, 480, 40],
                "buttons": [[0, 300, 60, 330]],
                "slider": [40, 310, 360, 380],
            }
        ],
        "tables": [
            {"table": 0, "box": [0, 0, 370, 100], "wide": 500},
            {"table": 1, "box": [0, 0, 343, 100], "wide": 0, "broken": ["Spent", "1.11"]},
        ],
    }
    assert problems(found) == [
        "chart 0: legend ends at 480 px, the chart at 360 px",
        "chart 0: a play/pause button on the slider",
        "table 0: scrolls sideways by 500 px",
        "table 1: words broken across lines: Spent, 1.11",
    ]
    fits = {
        "width": 375,
        "charts": [
            {
                "chart": 0,
                "box": [0, 0, 360, 400],
                "legend": [10, 0, 350, 40],
                "buttons": [[0, 300, 60, 330]],
                "slider": [0, 340, 360, 400],
            }
        ],
        "tables": [{"table": 0, "box": [0, 0, 343, 100], "wide": 0, "broken": []}],
    }
    assert problems(fits) == []


@pytest.mark.parametrize("path", walk_or(list(EVERY), list(QUICK)))
@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_legends_controls_and_tables_fit_a_phone(app_url, phone, path, screenshot):
    phone.goto(f"{app_url}/{path}")
    phone.wait_for_selector("[data-testid='stMain'] h1", timeout=WAIT)
    # the browser has told the app its window is narrow: the button left is the one for "wide"
    # (an app without the probe is measured as it draws: it fails on what does not fit)
    with contextlib.suppress(PlaywrightTimeout):
        phone.wait_for_function(
            "() => Array.from(document.querySelectorAll('.st-key-dp-window button'))"
            ".some(b => b.innerText.trim() === 'dp-narrow-0')",
            timeout=120_000,
        )
    for _ in range(2):  # the run the probe's click started may begin after a first quiet spell
        phone.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
            " && !document.querySelector('[data-stale=\"true\"]')"
            " && document.querySelectorAll('.js-plotly-plot .main-svg').length > 0"
            " && document.fonts.status === 'loaded'",
            timeout=WAIT,
        )
        phone.wait_for_timeout(1500)  # the last chart's relayout after its fonts
    found = phone.evaluate(MEASURE_JS)
    assert found["charts"], f"{path}: no chart drawn"
    bad = problems(found)
    if bad:
        screenshot(phone, f"phone_fit_{path}")
    assert not bad, f"{path} at 375 px: " + "; ".join(bad)
