"""In a real browser: a walk through every page at its defaults and through
Compare at every preset, on the app as ``make run`` serves it (shared pool, first result refined in
the background). Each view is waited on until it has settled (no skeleton, nothing stale, every
chart drawn, no sweep running or refining), saved as a full-page screenshot, and fails on any
exception box or error message.

Run it with ``make walk``. The screenshots go to ``$WALK_SCREENSHOTS`` (or a fresh temporary
directory, printed), to be read by a person: does every sentence match the numbers in its chart?
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from dpcore.experiments.presets import PRESETS
from pages._spec import PAGES as SPEC_PAGES

#: About five minutes on two cores: run by ``make walk`` (and by CI after ``make test``), not by
#: ``make test``, which must stay short.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(os.environ.get("DPMEAN_WALK") != "1", reason="run by `make walk`"),
]

#: Every page of the app (url path, navigation title), from pages/_spec.py.
PAGES = [(p.url_path, p.title) for p in SPEC_PAGES]
VIEWS = [(f"page-{path or 'home'}", path) for path, _ in PAGES] + [
    (f"preset-{name}", f"compare?preset={name}") for name in PRESETS
]

#: A view has settled when Streamlit is idle, nothing is stale, a skeleton or a spinner, every Plotly chart has
#: drawn its SVG, the web fonts are in, and no sweep is running or refining.
SETTLED = """() => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"], .stSpinner')) return false;
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
  if (!charts.every(c => c.querySelector('.main-svg'))) return false;
  const text = document.body.innerText;
  if (text.includes('refining in the background') || text.includes('Running the sweep')) return false;
  return document.fonts.status === 'loaded';
}"""


@pytest.fixture(scope="module")
def walk_dir() -> Path:
    target = os.environ.get("WALK_SCREENSHOTS")
    path = Path(target) if target else Path(tempfile.mkdtemp(prefix="dpmean-walk-"))
    path.mkdir(parents=True, exist_ok=True)
    print(f"walk screenshots: {path}")
    return path


def _settle(page: object, timeout: float = 300_000) -> None:
    page.wait_for_selector("[data-testid='stSidebar']", timeout=timeout)  # type: ignore[attr-defined]
    for _ in range(2):  # settled twice, a second apart: a rerun (fragment, rerun) may follow
        page.wait_for_function(SETTLED, timeout=timeout)  # type: ignore[attr-defined]
        page.wait_for_timeout(1000)  # type: ignore[attr-defined]
    page.wait_for_function(SETTLED, timeout=timeout)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "path"), VIEWS, ids=[v[0] for v in VIEWS])
def test_walk(served_app_url: str, browser: object, walk_dir: Path, name: str, path: str) -> None:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    try:
        page = ctx.new_page()
        page.goto(f"{served_app_url}/{path}")
        _settle(page)
        # Streamlit scrolls inside its own container: grow the window to the page, then settle again
        height = page.evaluate(
            "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
        )
        page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 16_000)})
        _settle(page)
        page.screenshot(path=str(walk_dir / f"{name}.png"), full_page=True)
        problems = page.eval_on_selector_all(
            '[data-testid="stException"], [data-testid="stAlertContentError"]',
            "els => els.map(e => e.innerText.slice(0, 300))",
        )
        assert not problems, f"{name}: {problems}"
        main = page.locator("[data-testid='stMain']").inner_text()
        assert "Traceback" not in main, name
        assert "specs/" not in main and "spec §" not in main, name
        if name.startswith("preset-"):
            assert PRESETS[name.removeprefix("preset-")].label in page.content()
            assert "Showing all" in main, f"{name}: the full sweep never replaced the first result"
        if path.startswith("compare"):  # the chart's estimators are the ones the selector shows
            shown = page.locator("[data-testid='stMultiSelect']").first.inner_text().splitlines()
            # once drawn empty after the background refinement's st.rerun() (the message carried
            # the widget's empty default, not its value; fixed in pages/_ui.url_state, tested in
            # tests/pages/test_state_and_words.py and tests/e2e/test_widget_values_browser.py)
            assert [line for line in shown[1:] if line.strip()], f"{name}: no estimator drawn"
    finally:
        ctx.close()
