"""The fast paths of the private quantiles give the numbers of the plain ones (docs/speed.md).

No timings here (no wall-clock asserts): each test pins an equivalence the speed-up relies on.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.quantiles import unbounded as QU


@pytest.mark.parametrize(
    ("lo", "hi", "beta"),
    [(-25590.0, 25610.0, 1.001), (-1e100, 1e100, 1.001), (-5.0, 5.0, 1.0001), (0.0, 1e-3, 1.5)],
)
def test_closed_form_bin_index_is_the_binary_search_of_the_grid(lo, hi, beta):
    log_beta = math.log(beta)
    kmax = int(QU._grid_size(np.array([lo]), np.array([hi]), beta)[0])
    gm1 = QU._grid_minus_one(np.arange(1, kmax + 1), log_beta)
    rng = np.random.default_rng(5)
    on = lo + gm1[rng.integers(0, kmax, size=(300, 3))]  # on grid points and one ulp either side
    x = np.concatenate(
        [on, np.nextafter(on, -np.inf), np.nextafter(on, np.inf), np.full((2, 3), lo - 1.0)]
    )
    x[-1] = hi * 2.0 if hi > 0 else hi + 1.0
    lows = np.array([lo, lo, lo])
    want = np.stack([np.searchsorted(lo + gm1, x[:, j], side="right") for j in range(3)], 1)
    np.testing.assert_array_equal(QU._bin_index(x, lows[None, :], kmax, log_beta), want)


@pytest.mark.parametrize("columns", [False, True])
def test_coinpress_step_in_blocks_is_the_clipped_sum(monkeypatch, columns):
    from dpcore.estimators import _localise

    y = np.random.default_rng(3).standard_normal((257, 19)) * 2.0 + 1.0
    c, R = np.full(19, 0.5), 4.0
    diff = y - c
    f = np.minimum(1.0, R / np.linalg.norm(diff, axis=1))
    want = f @ diff  # the three-pass formula: differences, norms, one matrix-vector product
    monkeypatch.setattr(_localise, "_STEP_BLOCK", 19 * 10)  # 26 blocks of 10 rows
    got = _localise.clipped_sum(np.ascontiguousarray(y.T) if columns else y, c, R, columns=columns)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _gap_frequencies(monkeypatch, decay: float, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """Observed gap counts of the fast exponential quantile and the exact gap probabilities."""
    from dpcore.quantiles import _window
    from dpcore.quantiles.exponential import (
        exponential_quantile_fast,
        exponential_quantile_probabilities,
    )

    monkeypatch.setattr(_window, "WINDOW_DECAY", decay)
    col = np.random.default_rng(8).standard_normal(200)
    d, eps = 50, 2.0  # 50 copies of the column: 50 independent draws per call
    x = np.repeat(col[:, None], d, axis=1)
    n, q, bounds = col.size, 0.3, (-10.0, 10.0)
    assert _window.window(n, q, eps / 2.0) is not None  # the windowed path runs
    rho = d * eps**2 / 8.0
    v = np.concatenate(
        [exponential_quantile_fast(x, q, bounds, rho=rho, rng=s) for s in range(draws // d)]
    )
    gaps = np.searchsorted(np.sort(col), v, side="right")
    observed = np.bincount(gaps, minlength=n + 1).astype(float)
    return observed, exponential_quantile_probabilities(col, q, bounds, eps)


@pytest.mark.parametrize("decay", [1.5, 4.0])
def test_windowed_exponential_quantile_has_the_exact_distribution(monkeypatch, decay):
    """A short window makes the envelopes likely, so the rejection step runs often."""
    from scipy.stats import chisquare

    observed, p = _gap_frequencies(monkeypatch, decay, 6000)
    expected = p * observed.sum()
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert chisquare(obs, exp).pvalue > 1e-4
