"""The low-bit attack on privately estimated bounds, and the release grid of private quantiles."""

import importlib

import numpy as np
import pytest
from scipy import stats

from dpcore import Budget
from dpcore.audit.low_bits import BOUNDS_RANGE, bounds_low_bit_attack, off_grid
from dpcore.quantiles.exponential import (
    exponential_quantile,
    exponential_quantile_fast,
    exponential_quantile_probabilities,
    grid_step,
)
from dpcore.release import release
from dpcore.samplers import SafeBackend, SimulationBackend

rel_mod = importlib.import_module("dpcore.release")  # the module (dpcore.release is the function)

#: Releases per data set: a float draw between data values shows the event on D′ in about one
#: release in ten (0 on D), so 300 releases see it with probability 1 - 1e-13.
DRAWS = 300


def test_released_bounds_are_on_the_public_grid(monkeypatch):
    """D = {1.0, 19 × 4.0}, D′ moves the 1.0 to 0.75: no released bound has a bit below 2^-53 and
    none is off the grid of the coarse range, on either data set."""
    monkeypatch.setattr(rel_mod, "accuracy", lambda *a, **k: (np.zeros(1), np.ones(1), "skipped"))

    def bounds(z):
        cert = release(
            "clipped_laplace", z, Budget.pure(1.0), coarse_bounds=BOUNDS_RANGE, n_public=True
        )
        out = cert.certificate["outputs"]["bounds"]
        return out["lower"][0], out["upper"][0]

    out = bounds_low_bit_attack(bounds, DRAWS)
    assert out.hits == {"D": 0, "D′": 0}
    assert out.off_grid == {"D": 0, "D′": 0}


@pytest.mark.parametrize("fast", [False, True])
def test_release_quantiles_are_grid_points(fast):
    x = np.random.default_rng(3).normal(size=(50, 3))
    lo, hi = np.array([-3.0, -1.0, 0.0]), np.array([3.0, 2.0, 0.1])
    for _ in range(20):
        if fast:
            q = exponential_quantile_fast(x, 0.5, (lo, hi), rho=0.5, rng=SafeBackend())
        else:
            q = exponential_quantile(x, 0.5, (lo, hi), epsilon=1.0, rng=SafeBackend())
        assert not any(off_grid(v, a, b) for v, a, b in zip(q, lo, hi, strict=True))


def test_grid_mechanism_has_the_interval_probabilities():
    """Over the grid, the chosen gap of the data has the continuous mechanism's probability (up to
    the grid's resolution): a chi-square test at a tiny false-alarm rate."""
    x = np.array([0.1, 0.2, 0.25, 0.6, 0.9])
    p = exponential_quantile_probabilities(x, 0.5, (0.0, 1.0), 1.0)
    ends = np.concatenate(([0.0], np.sort(x), [1.0]))
    draws = np.array(
        [
            exponential_quantile(x, 0.5, (0.0, 1.0), epsilon=1.0, rng=SimulationBackend())
            for _ in range(3000)
        ]
    )
    gap = np.clip(np.searchsorted(ends, draws, side="left") - 1, 0, p.size - 1)
    counts = np.bincount(gap, minlength=p.size)
    assert stats.chisquare(counts, p * counts.sum()).pvalue > 1e-6
    assert float(grid_step(0.0, 1.0)) == 2.0**-32
