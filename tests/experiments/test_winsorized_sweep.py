"""The contamination sweep runs several levels as columns of one call per estimator
(dpcore/experiments/studies/winsorized.py); each column keeps the budget of one repetition, so
the errors per level are those of one level per call (docs/speed.md, "PMWM, round 3")."""

from __future__ import annotations

import numpy as np

from dpcore.experiments.studies import winsorized as WS
from dpcore.privacy import Budget

LEVELS = np.array([0.0, 0.05, 0.1])


def _sweep(monkeypatch, per_call: int, seed: int):
    x = np.random.default_rng(0).normal(5.0, 1.0, 2000)
    monkeypatch.setattr(WS, "_SWEEP_ELEMENTS", per_call * x.size * 200)
    return WS.contamination_sweep(
        x,
        LEVELS,
        shift=10.0,
        notion="zcdp",
        budget=Budget.zcdp(0.5),
        bounds=(-50.0, 50.0),
        eta=0.1,
        reps=200,
        rng=seed,
    )


def test_levels_run_together_have_the_errors_of_levels_run_alone(monkeypatch):
    together, alone = _sweep(monkeypatch, 3, seed=1), _sweep(monkeypatch, 1, seed=2)
    assert together[["contamination", "estimator"]].equals(alone[["contamination", "estimator"]])
    assert (together.runs == 200).all()
    # an RMSE over 200 runs has a relative standard error of about 5%
    ratio = together.rmse.to_numpy() / alone.rmse.to_numpy()
    assert np.all((ratio > 0.75) & (ratio < 1.33)), ratio
