"""The Winsorized mean page's view (dpcore.views.winsorized): a pure function of its settings
record, every random stream its own, the notebook code rebuilding the same view, no Streamlit."""

import subprocess
import sys

import numpy as np

from dpcore.experiments.studies.winsorized import contaminate
from dpcore.views.settings import DataSettings, dataset
from dpcore.views.winsorized import (
    CurveSettings,
    GroupSettings,
    WinsorizedSettings,
    curve_view,
    group_view,
    view,
)

SMALL = WinsorizedSettings(DataSettings(n=400, d=1, seed=5), contamination=0.1)


def _numbers(v) -> np.ndarray:
    return np.concatenate([v.x, v.estimate.mean, v.baseline.mean, v.sweep.rmse.to_numpy()])


def test_the_same_record_gives_the_same_view_and_another_seed_other_numbers():
    one, two = (
        view(SMALL),
        view(WinsorizedSettings(DataSettings(n=400, d=1, seed=5), contamination=0.1)),
    )
    np.testing.assert_allclose(_numbers(one), _numbers(two), rtol=1e-12)
    assert one.interval_sentence == two.interval_sentence
    other = view(WinsorizedSettings(DataSettings(n=400, d=1, seed=6), contamination=0.1))
    assert not np.allclose(other.estimate.mean, one.estimate.mean)
    assert not np.allclose(other.sweep.rmse, one.sweep.rmse)


def test_the_outliers_come_from_their_own_stream_not_the_seed():
    """The old page passed the seed to contaminate() and to the estimator (and the data came from
    it too): one integer seeded three generators."""
    v = view(SMALL)
    clean = dataset(SMALL.data).x[:, 0]
    mine = contaminate(clean, 0.1, 10.0, rng=SMALL.data.streams.rng("contaminate"))
    np.testing.assert_allclose(v.x, mine)
    assert not np.allclose(v.x, contaminate(clean, 0.1, 10.0, rng=SMALL.data.seed))
    assert np.count_nonzero(v.x != clean) == v.moved == 40


def test_group_size_and_statistic_change_only_their_views():
    curve = CurveSettings(SMALL, "median")
    c = curve_view(curve)
    assert 2 <= c.suggested_group <= c.largest_group == 100
    g5, g10 = group_view(GroupSettings(curve, 5)), group_view(GroupSettings(curve, 10))
    assert (g5.groups, g10.groups) == (80, 40)
    assert "non-private median" in g5.groups_sentence
    again = group_view(GroupSettings(CurveSettings(SMALL, "median"), 5))
    np.testing.assert_allclose(again.theta, g5.theta)


def test_the_notebook_code_rebuilds_the_same_view():
    g = GroupSettings(CurveSettings(SMALL, "variance (MLE)"), 4)
    scope: dict = {}
    exec(g.code(), scope)  # noqa: S102 - the page's own notebook snippet
    np.testing.assert_allclose(scope["g"].estimate.mean, group_view(g).estimate.mean)
    assert scope["g"].settings == g


def test_the_view_needs_no_streamlit():
    code = "import sys, dpcore.views.winsorized; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_repetitions_are_settings_and_the_sentences_count_them():
    """The first view's sweeps run fewer repetitions (a setting of the record): the sentences
    state the count that ran, and the single runs do not depend on it."""
    quick = view(WinsorizedSettings(DataSettings(n=400, d=1, seed=5), sweep_reps=6))
    full = view(SMALL)
    assert "(RMSE over 6 runs)" in quick.sweep_sentence
    assert "(RMSE over 40 runs)" in full.sweep_sentence
    assert set(quick.sweep.runs) == {6} and set(full.sweep.runs) == {40}
    assert (
        quick.estimate.mean[0] == view(SMALL.__class__(SMALL.data, sweep_reps=40)).estimate.mean[0]
    )
    c = curve_view(CurveSettings(SMALL, "mean", reps=5))
    assert c.sentence.startswith("Over 5 random splits") and set(c.curve.runs) == {5}
