"""The Side by side view (dpcore.views.side_by_side) is a pure function of its settings record:
the same record gives the same runs, another seed other ones, the 100 releases come from their own
stream, and it needs no Streamlit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dpcore.views.settings import DataSettings
from dpcore.views.side_by_side import REPS, SideBySideSettings, options, releases, view

NAMES = ("plan", "iome_paper", "gaussian_private")
RECORD = SideBySideSettings(DataSettings(n=300, d=4, seed=2), NAMES, max_points=100)


@pytest.fixture(scope="module")
def v():
    return view(RECORD)


def _releases(view_):
    return np.array([e.release for e in view_.entries])


def test_the_same_record_gives_the_same_view(v):
    again = view(SideBySideSettings(DataSettings(n=300, d=4, seed=2), NAMES, max_points=100))
    assert np.allclose(_releases(again), _releases(v), rtol=1e-12, atol=0)
    assert again.sentences == v.sentences and again.regions == v.regions
    assert np.array_equal(again.rows, v.rows)


def test_another_seed_gives_other_numbers(v):
    other = view(SideBySideSettings(DataSettings(n=300, d=4, seed=3), NAMES, max_points=100))
    assert not np.allclose(_releases(other), _releases(v))


def test_the_motion_charts_show_the_gallerys_run_of_plan(v):
    plan = next(e for e in v.entries if e.name == "plan")
    assert v.plan is plan.estimate and v.steps["estimate"] is v.plan
    assert len(v.rows) == 100 and v.gallery["points"].shape == (100, 2)
    assert "e = " in v.sentences["exponent-sweep"]


def test_an_estimator_keeps_its_run_when_others_are_added(v):
    alone = view(SideBySideSettings(RECORD.data, ("gaussian_private",), max_points=100))
    both = next(e for e in v.entries if e.name == "gaussian_private")
    assert np.allclose(alone.entries[0].release, both.release, rtol=1e-12, atol=0)


def test_releases_come_from_their_own_stream(v):
    r = releases(RECORD, "gaussian_private")
    assert r.draws.shape == (REPS, 2) and "Of 100 releases" in r.sentence
    first = next(e for e in v.entries if e.name == "gaussian_private").release
    assert not np.any(np.all(np.isclose(r.draws, first), axis=1))  # no release repeats the run
    assert np.allclose(releases(RECORD, "gaussian_private").draws, r.draws, rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match="ε"):
        releases(SideBySideSettings(DataSettings(unit="eps", budget_value=1.0)), "plan")


def test_options_and_bad_coordinates():
    o = options(DataSettings(d=4))
    assert "empirical" not in o.estimators and set(o.defaults) <= set(o.estimators)
    assert o.zooms["both"] == "regions and noise" and o.views["small"] == "small multiples"
    with pytest.raises(ValueError, match="different"):
        view(SideBySideSettings(DataSettings(d=4), i=2, j=2))


def test_the_notebook_code_rebuilds_the_view(v):
    scope: dict = {}
    exec(v.codes["side-by-side"], scope)  # noqa: S102 - the view's own code
    assert np.allclose(_releases(scope["v"]), _releases(v), rtol=1e-12, atol=0)


def test_the_view_needs_no_streamlit():
    code = "import sys, dpcore.views.side_by_side; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_exponent_sweep_is_keyed_without_the_seed(v):
    """The sweep is a closed form of the data's spreads, n and PLAN's noise budget: another seed
    gives the same key (one drawing serves every seed), another n another key; the sentence's
    best exponent is the sweep's smallest total noise."""
    from dpcore.figures.motion import exponent_sweep_animation

    other = view(SideBySideSettings(DataSettings(n=300, d=4, seed=3), NAMES, max_points=100))
    assert other.sweep_key == v.sweep_key
    bigger = view(SideBySideSettings(DataSettings(n=400, d=4, seed=2), NAMES, max_points=100))
    assert bigger.sweep_key != v.sweep_key
    frame = exponent_sweep_animation(**v.sweep)[1]
    best = frame.assign(sq=frame.noise_std**2).groupby("exponent")["sq"].sum().idxmin()
    assert f"near e = {best:g} " in v.sentences["exponent-sweep"]
