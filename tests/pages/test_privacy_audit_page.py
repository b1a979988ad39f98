"""The "Privacy audit" page under streamlit.testing: it audits the estimator's native claim (pure
ε at δ = 0 even when the sidebar gives (ε, δ)), shows both distributions, the bound next to the
claim, the calibration check stage by stage in words, the stage audits of a multi-stage
estimator, and the broken toggle makes the audit catch the variant; bad input is an st.error,
never a traceback."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page

TIMEOUT = 180


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/privacy_audit.py", query, timeout=TIMEOUT)


def _metric(at: AppTest, label: str) -> float:
    return float(next(m.value for m in at.metric if m.label.startswith(label)))


def _text(at: AppTest) -> str:
    return "\n".join(md.value for md in at.markdown) + "\n".join(c.value for c in at.caption)


def _audit_charts(at):
    """The audit's own charts (the floating-point lesson below it draws one more)."""
    return [c for c in at.get("plotly_chart") if "float_lesson" not in str(c.key)]


def test_page_runs_and_the_honest_estimator_passes():
    at = _page({"unit": "eps", "budget_value": "1.0"})
    assert not at.exception
    assert at.title[0].value == "Privacy audit"
    charts = _audit_charts(at)
    assert len(charts) == 2
    names = {t.get("name") for t in json.loads(charts[0].proto.spec)["data"]}
    assert {"T on D", "T on D′"} <= names
    assert _metric(at, "Claimed ε at δ = 0") == 1.0
    assert _metric(at, "Audited ε̂") <= 1.0
    assert at.success and not at.error
    text = _text(at)
    assert "at least" in text
    assert "noise as required (ratio 1.00)" in text


def test_pure_estimator_is_audited_at_its_native_claim_under_an_eps_delta_budget():
    """The sidebar's (ε, δ) converts to pure ε for a pure estimator: the audit checks ε at δ = 0
    and the sidebar's budget is only the second line."""
    at = _page({"unit": "eps_delta", "budget_value": "1.0", "delta": "1e-6"})
    assert not at.exception
    claimed = next(m for m in at.metric if m.label.startswith("Claimed"))
    assert claimed.label == "Claimed ε at δ = 0"
    assert "(pure DP)" in _text(at)


def test_broken_toggle_is_caught():
    at = _page({"unit": "eps", "budget_value": "1.0"})
    at.toggle(key="audit_broken").set_value(True).run()
    assert not at.exception
    assert _metric(at, "Audited ε̂") > _metric(at, "Claimed ε")
    assert any("Caught" in e.value for e in at.error)


def test_gaussian_release_is_audited_as_gaussian_dp():
    """A Gaussian release: no ratio band, but its tests on the μ-GDP trade-off curve, the audit's
    own event first."""
    at = _page({"unit": "rho", "budget_value": "0.125"})
    at.selectbox(key="audit_estimator").set_value("gaussian_public").run()
    assert not at.exception
    assert _metric(at, "Claimed μ") == 0.5
    charts = _audit_charts(at)
    assert [str(c.key) for c in charts] == ["chart-audit_distributions", "chart-audit_tradeoff"]
    traces = json.loads(charts[1].proto.spec)["data"]
    assert traces[0]["name"].startswith("best possible (μ = 0.5")
    assert traces[-1]["name"] == "the audit's tests"
    assert "on or above the curve μ = 0.5" in _text(at)


def test_plain_box_states_the_audits_finding_and_the_odds():
    at = _page({"unit": "eps", "budget_value": "1.0"})
    text = _text(at)
    assert "What this means for your organisation" in text
    lower = _metric(at, "Audited ε̂")
    assert f"measured ε at least {lower:.3g}, promised at most 1)" in text
    assert "at most 2.7-fold." in text


def test_multi_stage_estimator_shows_its_stages():
    at = _page({"unit": "rho", "budget_value": "0.5"})
    at.radio(key="audit_grid").set_value("quick")
    at.select_slider(key="audit_draws").set_value(500)
    at.selectbox(key="audit_estimator").set_value("plan").run()
    assert not at.exception
    text = _text(at)
    assert "Audited stage by stage" in text
    assert "noisy sum:" in text  # the calibration line of PLAN's final stage
    frames = [df.value for df in at.dataframe]
    assert any("stage: PLAN's final noisy sum" in " ".join(map(str, f.iloc[:, 0])) for f in frames)


def test_bad_budget_is_an_error_not_a_traceback():
    """A link's impossible δ runs the page at the default δ with a note naming it."""
    at = _page({"unit": "eps_delta", "budget_value": "1.0", "delta": "2.0"})
    assert not at.exception
    assert any("delta = '2.0' was not used" in w.value for w in at.warning)


def test_plain_box_reads_the_audited_claim_not_the_sidebar():
    """A pure estimator under a ρ = 0.5 sidebar budget runs at ε = √(2ρ) = 1 and claims ε = 1:
    the box says e ≈ 2.7-fold, as the claim does (it said 185-fold, ρ = 0.5 read at δ = 1e-6)."""
    at = _page({"unit": "rho", "budget_value": "0.5"})
    assert _metric(at, "Claimed ε") == pytest.approx(1.0, abs=1e-3)
    text = _text(at)
    assert "at most 2.7-fold." in text and "185-fold" not in text
