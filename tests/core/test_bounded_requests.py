"""Every request bounded (audit 2026-11b): parameters that scale a run's work have limits in
dpcore.limits that a config, a direct call and the Compare page enforce before anything runs,
the cost model counts them, the CLI fails loudly, and the slow corners end quickly."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpcore import limits, registry
from dpcore.experiments import ExperimentConfig
from dpcore.experiments.__main__ import main
from dpcore.experiments.cost import check_app_limits, estimate_seconds
from dpcore.privacy import Budget
from dpcore.quantiles import unbounded

BASE = {"name": "t", "distribution": "gaussian", "n": 200, "d": 2, "budget": 0.5, "unit": "rho",
        "sweep": {"budget": [0.25, 0.5]}, "repetitions": 2, "seed": 0}  # fmt: skip
X = np.random.default_rng(0).normal(size=(200, 2))


@pytest.mark.parametrize(
    ("name", "params", "limit"),
    [
        ("iome_original", {"steps": 10**9}, "MAX_STEPS"),
        ("iome_paper", {"steps": 10**5}, "MAX_STEPS"),
        ("plan", {"steps": 10**6}, "MAX_STEPS"),
        ("plan", {"pairs_per_group": 10**9}, "MAX_PAIRS_PER_GROUP"),
        ("gaussian_private", {"steps": 5000}, "MAX_STEPS"),
    ],
)
def test_work_parameters_above_their_limit_are_refused_before_anything_runs(name, params, limit):
    # audit F1 / cfg_steps.py: 6 of 6 accepted; steps=10**9 asked for 14.9 GiB a task
    cfg = {**BASE, "estimators": [{"name": name, "params": params}]}
    with pytest.raises(ValueError, match=f"dpcore.limits.{limit}"):
        ExperimentConfig.from_dict(cfg)
    with pytest.raises(ValueError, match=f"dpcore.limits.{limit}"):
        registry.run(name, X, Budget.zcdp(0.5), rng=0, bounds=(-10, 10), **params)


def test_the_cost_estimate_and_the_work_limit_count_steps():
    few = ExperimentConfig.from_dict({**BASE, "estimators": ["iome_original"]})
    many = ExperimentConfig.from_dict(
        {**BASE, "estimators": [{"name": "iome_original", "params": {"steps": 1000}}]}
    )
    assert estimate_seconds(many) > 50 * estimate_seconds(few)
    # MAX_WORK counts a run at 1000 steps as 50 runs at the default 20
    big = {**BASE, "n": 200_000, "d": 100, "repetitions": 30, "sweep": {"budget": [0.5]}}
    ExperimentConfig.from_dict({**big, "estimators": ["plan"]})
    with pytest.raises(ValueError, match=r"dpcore\.limits\.MAX_WORK"):
        ExperimentConfig.from_dict(
            {**big, "estimators": [{"name": "plan", "params": {"steps": 1000}}]}
        )


def test_the_page_refuses_a_config_whose_estimate_is_over_its_time_limit():
    slow = {**BASE, "repetitions": 50, "sweep": {"budget": [0.1 * i for i in range(1, 21)]},
            "estimators": [{"name": name, "params": {"steps": 1000}}
                           for name in ("iome_original", "iome_paper", "plan", "gaussian_private")]}  # fmt: skip
    cfg = ExperimentConfig.from_dict(slow)
    assert estimate_seconds(cfg) > limits.MAX_APP_SECONDS
    with pytest.raises(ValueError, match=r"dpcore\.limits\.MAX_APP_SECONDS"):
        check_app_limits(cfg)


def test_the_cli_exits_non_zero_when_a_run_failed(tmp_path, capsys):
    # audit F1 / cli_steps.sh: MemoryError in every row, exit status 0
    cfg = {
        **BASE,
        "estimators": [{"name": "plan", "params": {"pairs_per_group": 1000}}, "empirical"],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    assert main([str(path), "--out", str(tmp_path / "out"), "--no-png"]) == 1
    assert "4 of 8 runs failed" in capsys.readouterr().err


def test_the_opendp_peers_refuse_a_budget_below_their_floor():
    # audit F8: peer_opendp_gauss at rho = 1e-12 took 106 s
    pytest.importorskip("opendp")
    with pytest.raises(ValueError, match="MIN_PEER_BUDGET"):
        registry.run("peer_opendp_gauss", X, Budget.zcdp(1e-12), rng=0, bounds=(-10, 10))


def test_pmwm_at_the_magnitude_limit_searches_its_grid_in_few_passes(monkeypatch):
    # audit F7: pmwm at +-1e100 with eps = 0.001 took 103 s at d = 4 (a grid point per pass)
    calls = [0]
    real = unbounded._grid_minus_one

    def counted(i, log_beta):  # noqa: ANN001, ANN202
        calls[0] += 1
        assert calls[0] <= 64, "over the grid-pass budget: the search steps one point at a time"
        return real(i, log_beta)

    monkeypatch.setattr(unbounded, "_grid_minus_one", counted)
    x = np.clip(np.random.default_rng(1).normal(size=(50, 4)), -1, 1) * 1e100
    est = registry.run("pmwm", x, Budget.pure(0.001), rng=2**31, bounds=(-1e100, 1e100))
    assert np.all(np.isfinite(est.mean))
    # the result the audit recorded at d = 4 (results/pmwm_slow.log) came from the walk with noise
    # on every grid point; the walk by runs has the same law on another stream
    # (docs/estimators/winsorized.md), and the per-point walk still gives the recorded numbers
    monkeypatch.setattr(unbounded, "_PER_QUERY", True)
    calls[0] = 0
    est = registry.run("pmwm", x, Budget.pure(0.001), rng=2**31, bounds=(-1e100, 1e100))
    assert math.isclose(est.mean[0], 3.02890413e101, rel_tol=1e-8)
    assert math.isclose(est.mean[1], -1.98092863e102, rel_tol=1e-8)
