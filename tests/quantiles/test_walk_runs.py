"""The quantile walk by runs of equal counts has the law of the walk with noise on every query.

:func:`dpcore.quantiles.unbounded.unbounded_quantile` draws one variate per run of grid points
with equal counts (:meth:`dpcore.mechanisms.ThresholdWalk.first_above`) instead of one per grid
point (docs/speed.md, "PMWM, round 3"). These tests compare the two samplers' stopping points
over thousands of independent walks (identical columns: each column draws its own noise) with a
two-sample Kolmogorov-Smirnov test, and check that the comparison fails when the runs sampler's
query noise is cut by 30%.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore import mechanisms
from dpcore.audit.probe import ReplayBackend
from dpcore.quantiles import unbounded as QU

#: Independent walks per sampler (columns of one call).
WALKS = 4000
#: Reject the equality of the two laws below this KS p-value.
ALPHA = 1e-3


def _steps(monkeypatch, *, per_query: bool, q: float, pure: bool, seed: int) -> np.ndarray:
    """Stopping indices of WALKS walks on copies of one small column (n = 40, N(0, 1)).

    Per column: threshold and query budget 0.15, so about half of the walks stop below the data
    (premature stops, where the query noise decides) and the rest inside it.
    """
    monkeypatch.setattr(QU, "_PER_QUERY", per_query)
    x = np.repeat(np.random.default_rng(0).standard_normal((40, 1)), WALKS, axis=1)
    per = 0.15 * WALKS  # totals: unbounded_quantile divides them by the columns
    kw = (
        {"epsilon_threshold": per, "epsilon_query": per}
        if pure
        else {"rho_threshold": per / 10, "rho_query": per / 10}
    )
    res = QU.unbounded_quantile(x, q, (-50.0, 50.0), beta=1.01, rng=seed, **kw)
    return np.asarray(res.steps)


@pytest.mark.parametrize(("q", "pure"), [(0.9, True), (0.1, True), (0.9, False)])
def test_runs_and_per_query_walks_stop_with_one_law(monkeypatch, q, pure):
    runs = _steps(monkeypatch, per_query=False, q=q, pure=pure, seed=1)
    each = _steps(monkeypatch, per_query=True, q=q, pure=pure, seed=2)
    assert 0.05 < np.mean(runs < np.median(each)) < 0.95  # the law is not a point mass
    assert stats.ks_2samp(runs, each).pvalue > ALPHA


def test_the_comparison_fails_when_the_runs_noise_is_cut_by_30_percent(monkeypatch):
    first_above = mechanisms.ThresholdWalk.first_above

    def cut(self, counts, lengths, columns):  # noise scale 0.7 / ε_Q
        self.query_budget = self.query_budget / 0.7
        return first_above(self, counts, lengths, columns)

    monkeypatch.setattr(mechanisms.ThresholdWalk, "first_above", cut)
    runs = _steps(monkeypatch, per_query=False, q=0.9, pure=True, seed=1)
    monkeypatch.undo()
    each = _steps(monkeypatch, per_query=True, q=0.9, pure=True, seed=2)
    assert stats.ks_2samp(runs, each).pvalue < ALPHA


def test_runs_equal_the_walk_on_every_query_given_the_counts():
    # a release backend gets every query's noise: first_above is the first noisy query above
    # the threshold, on the runs spelled out query by query
    counts = np.array([[0.0, 3.0, 5.0, 9.0], [0.0, 1.0, 9.0, 9.0]])
    lengths = np.array([[4, 1, 1, 6], [2, 1, 0, 3]])
    walk = mechanisms.above_threshold(
        np.array([6.0, 5.0]), threshold_budget=1.0, query_budget=0.8, columns=2, rng=None
    )
    walk.rng = ReplayBackend(3)
    got = walk.first_above(counts, lengths, slice(0, 2))
    walk.rng = ReplayBackend(3)
    dense = np.zeros((2, 12))
    dense[0] = np.repeat(counts[0], lengths[0])
    dense[1, :6] = np.repeat(counts[1], lengths[1])
    above = walk.queries(dense) > walk.threshold[:, None]
    above[1, 6:] = False
    want = np.where(above.any(axis=1), above.argmax(axis=1), -1)
    np.testing.assert_array_equal(got, want)


def test_runs_of_the_counts_are_the_counts_at_every_grid_point():
    x = np.random.default_rng(4).normal(0.0, 3.0, size=(60, 5))
    lo, hi, beta = np.full(5, -20.0), np.full(5, 20.0), 1.01
    log_beta = np.log(beta)
    K = QU._grid_size(lo, hi, beta)
    kmax = int(K.max())
    for sign in (1.0, -1.0):
        ext = np.sort(sign * x, axis=0)[[0, -1]]
        counts, lengths = QU._runs(x, ext, lo, K - 1, kmax, log_beta, sign)
        want = QU._grid_counts(sign * x, lo, kmax, log_beta)[:, : kmax - 1]
        for j in range(5):
            np.testing.assert_array_equal(np.repeat(counts[j], lengths[j]), want[j, : K[j] - 1])
