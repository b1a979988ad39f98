"""dpcore.experiments.studies.why_plan_wins: the Home evidence frames, and the win rate is the
strict-minimum fraction."""

import pandas as pd
import pytest

from dpcore.experiments.studies import ESTIMATORS, Evidence, why_plan_wins
from dpcore.figures.gallery import why_plan_figures


def test_frames_and_figures_small_setting():
    ev = why_plan_wins(n=400, d=8, skew=2.0, rho=0.5, seeds=3)
    assert len(ev.errors) == 3 * len(ESTIMATORS) and set(ev.errors.estimator) == set(ESTIMATORS)
    assert len(ev.noise) == 8 * len(ESTIMATORS)
    # IOME and the Gaussian mechanism add the same noise to every coordinate; PLAN does not
    for name in ("iome_paper", "gaussian_private"):
        assert ev.noise[ev.noise.estimator == name].noise_std.nunique() == 1
    plan = ev.noise[ev.noise.estimator == "plan"].noise_std.to_numpy()
    assert plan[0] > plan[-1]
    left, right = why_plan_figures(ev.errors, ev.noise)
    assert len(left.data) == len(ESTIMATORS) and len(right.data) == len(ESTIMATORS)


def test_win_rate_counts_strict_wins_only():
    rows = [
        (0, "plan", 1.0),
        (0, "iome_paper", 2.0),
        (0, "gaussian_private", 3.0),
        (1, "plan", 2.0),
        (1, "iome_paper", 2.0),
        (1, "gaussian_private", 3.0),
        (2, "plan", 4.0),
        (2, "iome_paper", 2.0),
        (2, "gaussian_private", 3.0),
    ]
    ev = Evidence(pd.DataFrame(rows, columns=["seed", "estimator", "error"]), pd.DataFrame(), {})
    assert ev.win_rate() == pytest.approx(1 / 3)
    assert ev.medians()["plan"] == 2.0 and ev.worst()["plan"] == 4.0


def test_bad_seeds():
    with pytest.raises(ValueError, match="seeds"):
        why_plan_wins(seeds=0)
