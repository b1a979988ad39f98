"""The "Winsorized mean" page under streamlit.testing: it runs, its widgets change what it shows,
the fallback is made visible, and bad input is an st.error, never a traceback."""

import base64
import json

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page

TIMEOUT = 120


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/winsorized.py", query, timeout=TIMEOUT)


def _values(value: object) -> np.ndarray:
    """A plotly JSON array (a list, or a typed array ``{"dtype", "bdata"}``) as floats."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label))


def test_page_runs_with_four_charts():
    at = _page({"n": "1000", "d": "2"})
    assert not at.exception
    assert at.title[0].value == "Winsorized mean"
    charts = at.get("plotly_chart")
    assert len(charts) == 4
    spec = json.loads(charts[0].proto.spec)
    names = {t.get("name") for t in spec["data"]}
    assert {"private L̂", "private Û", "points pulled in"} <= names
    assert any("pulled" in md.value for md in at.markdown)


def test_contamination_slider_moves_the_clipped_mean_more_than_pmwm():
    at = _page({"n": "2000", "d": "1", "skew": "0", "distribution": "gaussian"})
    at.slider(key="wins_contam").set_value(0.0).run()
    clean_pm = float(_metric(at, "PMWM estimate"))
    clean_cm = float(_metric(at, "Clipped mean"))
    at.slider(key="wins_contam").set_value(0.08).run()
    assert not at.exception
    moved_pm = abs(float(_metric(at, "PMWM estimate")) - clean_pm)
    moved_cm = abs(float(_metric(at, "Clipped mean")) - clean_cm)
    # 8% of points at +10 sd move the clipped mean by ~0.8 sd; PMWM (eta = 0.1) far less
    assert moved_cm > 0.5
    assert moved_pm < moved_cm / 3


def test_fallback_is_shown():
    # pure eps = 0.1 with n = 100: the quantile walks stop before the data nearly always (spec §2.6)
    at = _page({"n": "100", "d": "1", "unit": "eps", "budget_value": "0.1", "seed": "3"})
    assert not at.exception
    assert any("Fallback fired" in e.value for e in at.error)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "FALLBACK" in spec["layout"]["title"]["text"]


def test_group_size_slider_changes_sa_panel():
    at = _page({"n": "2000", "d": "1"})
    at.slider(key="wins_size").set_value(20).run()
    assert not at.exception
    assert any("100 groups of 20 rows" in md.value for md in at.markdown)
    at.radio(key="wins_stat").set_value("variance (MLE)").run()
    assert not at.exception
    assert any("non-private variance (MLE)" in md.value for md in at.markdown)


def test_impossible_budget_is_an_error_not_a_traceback():
    """A link's impossible budget runs the page at the default budget with a note naming it."""
    at = _page({"n": "1000", "d": "1", "budget_value": "-1"})
    assert not at.exception
    assert any("budget_value = '-1' was not used" in w.value for w in at.warning)


def test_zcdp_version_under_pure_budget_is_labelled_not_eps_dp():
    """The zCDP version under a pure ε budget runs at the implied ρ = ε²/2 with a
    "Not ε-DP" warning, and the page says how the walk is accounted."""
    at = _page({"unit": "eps", "budget_value": "1", "n": "1000", "d": "1"})
    at.radio(key="wins_version").set_value("zcdp").run()
    assert not at.exception
    assert any("Not ε-DP" in w.value for w in at.warning)
    assert any("ε-DP implies ε²/2-zCDP" in c.value and "Lemma D.1" in c.value for c in at.caption)


def test_advanced_controls_fold_away_and_the_group_size_starts_where_no_fallback_fires():
    at = _page({"n": "2000", "d": "1"})
    assert not at.exception
    advanced = next(e for e in at.expander if e.label.startswith("Advanced"))
    assert {w.key for w in advanced.number_input} == {"wins_c"}
    assert {w.key for w in advanced.select_slider} == {"wins_beta"}
    assert at.number_input(key="wins_c").value == 10.0
    assert _metric(at, "Trim level τ (from η)") == "0.1"
    # the slider starts at the best group size among those where the aggregator never fell back
    curve = json.loads(at.get("plotly_chart")[3].proto.spec)
    size = at.slider(key="wins_size").value
    fell_back = [t for t in curve["data"] if t.get("name") == "fallback fired in some runs"]
    assert fell_back, "n = 2,000: the fallback fires for the largest groups"
    assert size < _values(fell_back[0]["x"]).min(), size
    sizes, rmse = (_values(curve["data"][0][k]) for k in ("x", "y"))
    calm = sizes < _values(fell_back[0]["x"]).min()
    assert rmse[sizes == size][0] <= 1.5 * rmse[calm].min()  # near the best error
    assert size > 2  # and larger groups than the smallest, where that costs little
    text = " ".join(md.value for md in at.markdown)
    assert "outliers included, not the clean mean above" in text


def test_first_view_runs_fewer_repetitions_and_the_button_refines():
    """The first view's sweeps run the first-view counts and say so; the refine button reruns
    them with the full counts and goes away."""
    from dpcore.views.winsorized import CURVE_REPS, FIRST_CURVE_REPS, FIRST_SWEEP_REPS, SWEEP_REPS

    at = _page({"n": "1000", "d": "2"})
    text = " ".join(md.value for md in at.markdown)
    assert f"(RMSE over {FIRST_SWEEP_REPS} runs)" in text
    assert f"Over {FIRST_CURVE_REPS} random splits" in text
    at.button(key="wins_refine").click().run()
    assert not at.exception
    text = " ".join(md.value for md in at.markdown)
    assert f"(RMSE over {SWEEP_REPS} runs)" in text and f"Over {CURVE_REPS} random splits" in text
    assert not [b for b in at.button if b.key == "wins_refine"]
