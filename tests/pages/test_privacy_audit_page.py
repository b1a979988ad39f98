"""The "Privacy audit" page under streamlit.testing: it runs, shows both distributions and the
ratio against the band, the bound next to the claim, and the broken toggle makes the audit catch
the variant; bad input is an st.error, never a traceback."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

TIMEOUT = 180
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/privacy_audit.py")
    return at.run()


def _metric(at: AppTest, label: str) -> float:
    return float(next(m.value for m in at.metric if m.label.startswith(label)))


def test_page_runs_and_the_honest_estimator_passes():
    at = _page({"unit": "eps", "budget_value": "1.0"})
    assert not at.exception
    assert at.title[0].value == "Privacy audit"
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    names = {t.get("name") for t in json.loads(charts[0].proto.spec)["data"]}
    assert {"T on D", "T on D′"} <= names
    assert _metric(at, "Claimed ε") == 1.0
    assert _metric(at, "Audited ε̂") <= 1.0
    assert at.success and not at.error
    assert any("at least" in md.value for md in at.markdown)


def test_broken_toggle_is_caught():
    at = _page({"unit": "eps", "budget_value": "1.0"})
    at.toggle(key="audit_broken").set_value(True).run()
    assert not at.exception
    assert _metric(at, "Audited ε̂") > _metric(at, "Claimed ε")
    assert any("Caught" in e.value for e in at.error)


def test_zcdp_budget_is_audited_through_eps_delta():
    at = _page({"unit": "rho", "budget_value": "0.125"})
    at.selectbox(key="audit_estimator").set_value("gaussian_public").run()
    assert not at.exception
    assert any("δ" in m.label for m in at.metric if m.label.startswith("Claimed"))


def test_bad_budget_is_an_error_not_a_traceback():
    at = _page({"unit": "eps_delta", "budget_value": "1.0", "delta": "2.0"})
    assert not at.exception
    assert at.error
