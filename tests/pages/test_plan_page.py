"""The "PLAN step by step" page under streamlit.testing: it runs, draws the paper's Figure 1 from
one PLAN run, its widgets change what it shows, and odd settings (d = 1, equal coordinates, binary
data, large n) are explained rather than crashing."""

import base64
import json

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page

TIMEOUT = 120
PAGE = "pages/plan_step_by_step.py"


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page(PAGE, query, timeout=TIMEOUT)


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _arr(v: list | dict) -> np.ndarray:
    """A Plotly JSON array, plain or typed (``{"dtype", "bdata"}``)."""
    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
    return np.asarray(v)


def _text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label))


def test_default_page_draws_the_four_steps_and_every_chart_follows_the_house_pattern():
    at = _page()
    assert not at.exception
    assert at.title[0].value == "PLAN step by step"
    specs = _specs(at)
    assert len(specs) == 4 + 4  # the four steps one figure per panel (two to a row), four charts
    steps = specs[:4]
    names = {t.get("name") for sp in steps for t in sp["data"]}
    assert {
        "clip ball, radius C",
        "clip ball mapped back (ellipse)",
        "IOME clip ball (after rotation)",
        "row clipped (in d dimensions)",
        "true mean",
        "private mean",
    } <= names
    assert [sp["layout"]["title"]["text"] for sp in steps] == [
        "(a) raw data and the true mean",
        "(b) recentred, then scaled",
        "(c) clipped to the ball of radius C",
        "(d) back in original space: the private mean",
    ]
    assert all(sp["layout"]["yaxis"]["scaleanchor"] == "x" for sp in steps)  # equal aspect kept
    text = _text(at)
    assert "inside the drawn circle may still be clipped" in text
    assert "lie inside the drawn circle" in text and "other 30 coordinates" in text
    assert "For ℓ2 the curve is symmetric" in text
    # every chart: a sentence, CSV/PNG/SVG downloads and a "show the code" expander; one report
    labels = [b.proto.label for b in at.get("download_button")]
    assert (
        labels.count("Download the data (CSV)") == labels.count("PNG") == labels.count("SVG") == 5
    )
    assert labels.count("Download a report of this view (HTML)") == 1
    assert sum(e.label == "Show the code" for e in at.expander) == 5
    assert any("plan(data.x, rho=0.5" in c.value for c in at.code)
    assert _metric(at, "Budget") == "ρ = 0.5"


def test_p_resets_the_exponent_and_the_slider_reruns_plan():
    at = _page()
    assert at.select_slider(key="plan_e").value == 0.25
    c_plan = float(_metric(at, "Clip radius"))
    at.radio(key="plan_p").set_value(1).run()
    assert not at.exception
    assert abs(at.select_slider(key="plan_e").value - 1 / 3) < 1e-12
    assert "PLAN's e = 1/3" in _text(at)
    at.radio(key="plan_p").set_value(2).run()
    at.select_slider(key="plan_e").set_value(0.0).run()
    assert not at.exception
    text = _text(at)
    # no scaling: s = 1 on every coordinate, the same noise everywhere
    assert "multiplied coordinate 1 by s = 1 and coordinate 4 by s = 1." in text
    shapes = _specs(at)[
        6
    ]  # 4 step panels, noise ellipse, exponent curve, noise shapes, error split
    assert shapes["layout"]["title"]["text"].startswith("Noise shapes")
    ys = _arr(shapes["data"][0]["y"])  # PLAN's bars
    assert len(ys) == 32 and ys.max() == ys.min()
    assert float(_metric(at, "Clip radius")) != c_plan


def test_variance_source_and_coordinates_change_what_is_shown():
    at = _page()
    at.radio(key="plan_var").set_value("oracle").run()
    assert not at.exception
    assert any("oracle" in c.value for c in at.caption)
    assert "variances" not in next(c.value for c in at.caption if c.value.startswith("PLAN spent"))
    at.number_input(key="plan_i").set_value(2).run()
    at.number_input(key="plan_j").set_value(7).run()
    assert not at.exception
    steps = _specs(at)[0]
    assert steps["layout"]["xaxis"]["title"]["text"] == "coordinate 2"
    assert steps["layout"]["yaxis"]["title"]["text"] == "coordinate 7"
    assert "coordinate 2 by s = " in _text(at)
    at.number_input(key="plan_j").set_value(2).run()
    assert not at.exception
    assert any("different" in w.value for w in at.warning)


def test_one_dimension_is_explained():
    at = _page({"d": "1", "n": "500"})
    assert not at.exception
    assert any("two coordinates" in i.value for i in at.info)
    assert len(_specs(at)) == 4 + 4
    assert "in one dimension scaling only changes units" in _text(at)


def test_large_n_is_subsampled_and_said_so():
    at = _page({"n": "5000", "d": "8"})
    assert not at.exception
    assert "2,000 of the 5,000 rows are drawn" in _text(at)
    steps = _specs(at)[0]
    drawn = sum(
        len(_arr(t["x"]))
        for t in steps["data"]
        if t.get("name") in ("row kept as it is", "row clipped (in d dimensions)")
        and t.get("xaxis") == "x"
    )
    assert drawn == 2000


def test_binary_data_defaults_to_p1_and_tiny_n_is_an_error_not_a_traceback():
    at = _page({"distribution": "binary_plan", "skew": "0.25", "d": "16", "n": "2000"})
    assert not at.exception
    assert at.radio(key="plan_p").value == 1
    assert "private (noisy frequencies)" in at.radio(key="plan_var").options
    at = _page({"n": "3", "d": "4"})
    assert not at.exception
    assert at.error or len(_specs(at)) == 4 + 4


def test_thin_variance_budget_is_said_before_the_run():
    # n = 4000, d = 256, rho = 1/16: about one private variance per run lands far below its data
    # (dpcore.estimators.plan.expected_low_variances); the page says so before the run.
    at = _page({"n": "4000", "d": "256", "budget_value": "0.0625"})
    assert not at.exception
    assert any(
        "Before the run" in w.value and "variance estimates are thin" in w.value for w in at.warning
    )
    quiet = _page({"n": "4000", "d": "64", "budget_value": "0.0625"})
    assert not any("variance estimates are thin" in w.value for w in quiet.warning)
