"""The PLAN step-by-step view (dpcore.views.plan) is a pure function of its settings record: the
same record gives the same numbers, another seed other ones, its notebook code rebuilds it, and
it needs no Streamlit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dpcore.views.plan import PlanSettings, before_run, exp_label, options, view
from dpcore.views.settings import DataSettings

DATA = DataSettings(n=300, d=6, seed=4)
RECORD = PlanSettings(DATA, i=2, j=5, max_points=100)


@pytest.fixture(scope="module")
def v():
    return view(RECORD)


def test_the_same_record_gives_the_same_view(v):
    again = view(PlanSettings(DataSettings(n=300, d=6, seed=4), i=2, j=5, max_points=100))
    assert np.allclose(again.plan.mean, v.plan.mean, rtol=1e-12, atol=0)
    assert np.allclose(again.gauss.mean, v.gauss.mean, rtol=1e-12, atol=0)
    assert again.sentences == v.sentences and again.metrics == v.metrics
    assert again.sample.equals(v.sample)
    assert np.allclose(again.split.total, v.split.total, rtol=1e-12, atol=0)


def test_another_seed_gives_other_numbers(v):
    other = view(PlanSettings(DataSettings(n=300, d=6, seed=5), i=2, j=5, max_points=100))
    assert not np.allclose(other.plan.mean, v.plan.mean)
    assert not np.allclose(other.iome.mean, v.iome.mean)
    assert other.sentences["plan_steps"] != v.sentences["plan_steps"]


def test_each_estimator_and_the_display_draw_from_their_own_streams(v):
    # IOME and the Gaussian mechanism no longer share one integer seed: their runs differ in kind
    # and their noise is drawn from "noise:iome_paper" and "noise:gaussian_private"
    assert v.coords == (1, 4) and len(v.sample) == 100
    rows = v.sample.row.to_numpy()
    assert np.all(np.diff(rows) > 0) and rows.max() < 300
    assert [lab for lab, _, _ in v.entries] == ["PLAN", "IOME", "Gaussian mechanism"]


def test_readouts_and_notes(v):
    labels = [m.label for m in v.metrics]
    assert labels[0] == "Clip radius C (scaled space)" and labels[-1] == "Budget"
    assert v.metrics[-1].value == "ρ = 0.5" and v.metrics[-1].delta is None
    assert v.coords_note is None and "6 dimensions" in v.intro
    assert list(v.split.columns[:1]) == ["estimator"] or "total" in v.split.columns
    assert "plan(data.x, rho=0.5" in v.code and "view(PlanSettings(" in v.code
    same = view(PlanSettings(DATA, i=3, j=3, max_points=100))
    assert same.coords == (2,) and same.coords_note is not None
    assert same.coords_note[0] == "warning"
    scaled = view(PlanSettings(DATA, exponent=0.0, max_points=100))
    assert scaled.plan_label == "PLAN scaled with e = 0"


def test_options_and_labels():
    assert options(DataSettings(distribution="binary_plan", skew=0.25)).default_p == 1
    assert options(DATA).source["private"] == "private (Algorithm 2)"
    assert exp_label(1 / 3) == "1/3 · PLAN for p = 1"
    assert before_run(PlanSettings(DataSettings(n=4000, d=256, budget_value=0.0625))) is not None
    assert before_run(PlanSettings(DataSettings(n=4000, d=64, budget_value=0.0625))) is None


def test_the_notebook_code_rebuilds_the_view(v):
    scope: dict = {}
    exec(v.codes["plan_noise_shapes"], scope)  # noqa: S102 - the view's own code
    assert np.allclose(scope["v"].plan.mean, v.plan.mean, rtol=1e-12, atol=0)
    assert scope["df"] is not None


def test_the_view_needs_no_streamlit():
    code = "import sys, dpcore.views.plan; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_exponent_curve_is_keyed_without_the_seed():
    """The exponent curve is a closed form of the data's spreads, n, PLAN's noise budget, p and
    the slider's exponent: another seed gives the same key (one drawing serves every seed),
    another n another key, and the sentence reads the curve's numbers."""
    from dpcore.figures.plan.exponent import exponent_frame

    one = view(PlanSettings(DataSettings(n=300, d=4, seed=1)))
    two = view(PlanSettings(DataSettings(n=300, d=4, seed=2)))
    assert one.curve_key == two.curve_key
    assert view(PlanSettings(DataSettings(n=400, d=4, seed=1))).curve_key != one.curve_key
    frame = exponent_frame(np.asarray(one.curve["sigma"]), 300, one.curve["rho_noise"], 2.0)
    best = float(frame.exponent[frame.noise.idxmin()])
    assert f"The minimum of the curve is at e = {best:.3g}." in one.sentences["plan_exponent"]
