"""The floating-point lesson section (pages/_float_lesson.py) under streamlit.testing: it runs
alone in a small script and at the end of the Privacy audit page; NumPy's Laplace shows the
low-bit leak (hits on D, none on D′) and the safe sampler does not."""

import json

from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page

TIMEOUT = 180


def _script() -> None:
    from types import SimpleNamespace

    from pages._float_lesson import render

    render(SimpleNamespace(seed=0))


def test_the_lesson_shows_the_leak_and_the_safe_sampler():
    at = AppTest.from_function(_script, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert at.header[0].value.startswith("The floating-point lesson")
    bars = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert [b["name"] for b in bars] == ["on D", "on D′"]
    numpy_d, safe_d = bars[0]["y"]
    numpy_d2, safe_d2 = bars[1]["y"]
    assert 0.2 < numpy_d < 0.35 and numpy_d2 == 0.0
    assert safe_d2 > 0.05 and safe_d <= 2.8 * safe_d2 + 0.05
    assert "under D′ never" in at.warning[-1].value
    assert "leak nothing beyond the guarantee" in at.success[0].value


def test_the_slider_changes_the_number_of_releases():
    at = AppTest.from_function(_script, default_timeout=TIMEOUT)
    at.run()
    at.select_slider(key="float_lesson_draws").set_value(500).run()
    assert not at.exception
    assert "of 500 releases" in at.warning[-1].value


def test_the_privacy_audit_page_ends_with_the_lesson():
    at = open_page(
        "pages/privacy_audit.py", {"unit": "eps", "budget_value": "1.0"}, timeout=TIMEOUT
    )
    assert not at.exception, at.exception
    assert any(h.value.startswith("The floating-point lesson") for h in at.header)
