"""PMWM's compiled kernels (dpcore._kernels_pmwm) against the numpy code they replace.

The walks' grid index must be the exact one (``searchsorted(side="right")`` on the grid as
computed, ``lo + (beta**i - 1)``): the data here put values exactly on grid points and one float
either side of them (``np.nextafter``), so an index that is off by one on a grid point fails.
Also: loose bounds where many grid points round to one float, data far wider than the straight
line of the guess fits (the binary search), the mirrored walk, per-column bounds, constant
columns. Then the winsorised mean's kernel, and PMWM with the kernels forced on against the
numpy paths (docs/speed.md, "PMWM, round 4").
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from dpcore import _kernels
from dpcore import _kernels_pmwm as KP
from dpcore.estimators import winsorized as W
from dpcore.quantiles import unbounded as QU

BETA = 1.001


def _on_and_beside_grid(lo: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Per column: grid points near its data, each also one float below and above."""
    rng = np.random.default_rng(seed)
    m = lo.size
    gm1 = QU._grid_minus_one(np.arange(1, 8000), math.log(BETA))
    idx = rng.integers(4000, 4000 + rng.integers(1, 60, m)[None, :], size=(n // 3, m))
    on = lo[None, :] + gm1[idx - 1]
    return np.concatenate([on, np.nextafter(on, -np.inf), np.nextafter(on, np.inf)])


def _cases() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """name -> (x, lo, hi): data and per-column bounds."""
    rng = np.random.default_rng(0)
    m = 40
    lo, hi = np.full(m, -50.0), np.full(m, 50.0)
    spread = 10.0 + rng.standard_normal((3000, m)) * np.linspace(0.01, 8.0, m)
    wide = rng.standard_normal((3000, m)) * 3.0
    wide[::7] *= 1e4  # far beyond the straight line through the extremes: binary search
    const = np.full((2000, m), 3.25)
    const[:, ::2] = rng.choice([-1.0, 2.0], size=(2000, m // 2))
    lo_col = -np.linspace(10.0, 5000.0, m)
    return {
        "on and beside grid points": (_on_and_beside_grid(lo, 3000, 1), lo, hi + 1e6),
        "per-column lower bounds": (_on_and_beside_grid(lo_col, 3000, 2), lo_col, np.full(m, 1e7)),
        "normal data of many spreads": (spread, lo, hi),
        "heavy tails": (wide, np.full(m, -1e6), np.full(m, 1e6)),
        "bounds of 1e100": (spread, np.full(m, -1e100), np.full(m, 1e100)),
        "constant and two-valued columns": (const, lo, hi),
    }


def _reference_counts(x: np.ndarray, lo: np.ndarray, K: np.ndarray, sign: float) -> np.ndarray:
    """``#{sign * x < g_i}`` for ``i = 1..max K - 1`` by ``searchsorted`` on each column's grid."""
    kmax = int(K.max())
    gm1 = QU._grid_minus_one(np.arange(1, kmax + 1), math.log(BETA))
    v = np.sort(sign * x, axis=0)
    return np.stack([np.searchsorted(v[:, j], lo[j] + gm1, side="left") for j in range(lo.size)])


def _run_counts(x, lo, hi, sign, monkeypatch, kernel: bool) -> tuple[np.ndarray, np.ndarray]:
    monkeypatch.setattr(_kernels, "MIN_SIZE", 0 if kernel else 1 << 62)
    K = QU._grid_size(lo, hi, BETA)
    ext = np.stack([x.min(axis=0), x.max(axis=0)])[:: 1 if sign > 0 else -1] * sign
    return QU._runs(x, ext, lo, K - 1, int(K.max()), math.log(BETA), sign)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("case", list(_cases()))
def test_grid_histogram_kernel_gives_the_exact_grid_index(case, sign, monkeypatch) -> None:
    x, lo, hi = _cases()[case]
    if sign < 0:
        lo, hi = -hi, -lo  # the mirrored walk's bounds
    counts, lengths = _run_counts(x, lo, hi, sign, monkeypatch, kernel=True)
    want_counts, want_lengths = _run_counts(x, lo, hi, sign, monkeypatch, kernel=False)
    np.testing.assert_array_equal(lengths, want_lengths)
    np.testing.assert_array_equal(counts, want_counts)
    # and against searchsorted, grid point by grid point (independent of _bin_index)
    K = QU._grid_size(lo, hi, BETA)
    ref = _reference_counts(x, lo, K, sign)
    for j in range(lo.size):
        per_point = np.repeat(counts[j], lengths[j])
        np.testing.assert_array_equal(per_point, ref[j, : K[j] - 1], err_msg=f"column {j}")


def test_the_cases_hit_the_kernels_hard_paths() -> None:
    """The data above do exercise ties with grid points and the binary search."""
    x, lo, _ = _cases()["on and beside grid points"]
    grid = lo[0] + QU._grid_minus_one(np.arange(1, 8000), math.log(BETA))  # lo: one value
    on = np.isin(x, grid)
    assert on.mean() == pytest.approx(1 / 3)  # a third on grid points, the rest next to them
    assert not np.isin(x[~on], grid).any()
    x, lo, _ = _cases()["heavy tails"]
    f = np.log1p(x - lo) / math.log(BETA)
    lo_f, hi_f = f.min(axis=0), f.max(axis=0)
    line = lo_f + (x - x.min(axis=0)) * (hi_f - lo_f) / (x.max(axis=0) - x.min(axis=0))
    assert np.mean(np.abs(line - f) > 2) > 0.5  # the guess is off by more than one step


def test_the_cases_count_columns_by_levels_and_by_the_guess() -> None:
    """The cases have columns with 1 to ``LEVELS`` grid points in their range (counted point by
    point) and with more (the guess), so both paths of ``grid_hist`` are compared above."""
    x, lo, _ = _cases()["on and beside grid points"]
    ext = np.stack([x.min(axis=0), x.max(axis=0)])
    bmin, bmax = QU._bin_index(ext, lo[None, :], 8000, math.log(BETA))
    top = bmax - bmin
    assert np.any((top >= 1) & (top <= KP.LEVELS))
    assert np.any(top == KP.LEVELS)
    assert np.any(top > KP.LEVELS)


@pytest.mark.parametrize(("n", "d"), [(1, 1), (7, 1), (5000, 1), (33, 17), (4099, 9), (300, 200)])
def test_winsorise_kernel_equals_the_numpy_blocks(n: int, d: int, monkeypatch) -> None:
    rng = np.random.default_rng(n + d)
    X = rng.standard_normal((n, d)) * np.linspace(1.0, 5.0, d)
    L, U = np.full(d, -1.0), np.linspace(0.5, 3.0, d)
    L[0] = U[0]  # a point interval
    monkeypatch.setattr(_kernels, "MIN_SIZE", 1 << 62)
    want = W.winsorise(X, L, U)
    monkeypatch.setattr(_kernels, "MIN_SIZE", 0)
    got = W.winsorise(X, L, U)
    np.testing.assert_allclose(got.mean, want.mean, rtol=0, atol=1e-13 * max(1.0, np.abs(X).max()))
    np.testing.assert_array_equal(got.pulled_low, want.pulled_low)
    np.testing.assert_array_equal(got.pulled_high, want.pulled_high)
    np.testing.assert_array_equal(got.clipped, want.clipped)


def test_column_extremes_kernel() -> None:
    X = np.random.default_rng(3).standard_normal((301, 13))
    np.testing.assert_array_equal(KP.column_extremes(X), [X.min(axis=0), X.max(axis=0)])
    np.testing.assert_array_equal(
        KP.column_extremes(X[:, 2:9]), [X[:, 2:9].min(0), X[:, 2:9].max(0)]
    )


@pytest.mark.parametrize("estimator", [W.winsorized_mean, W.winsorized_mean_zcdp])
@pytest.mark.parametrize(
    ("n", "d", "chunked"), [(400, 1, 0), (300, 8, 0), (500, 100, 0), (500, 100, 1)]
)
def test_pmwm_with_the_kernels_equals_the_numpy_path(estimator, n, d, chunked, monkeypatch) -> None:
    """Same draws, same walks' stops, same interval; the mean to the fingerprints' tolerance.
    ``chunked``: the walks take the columns a few at a time (strided views, as at large d)."""
    if chunked:
        monkeypatch.setattr(QU, "_CHUNK_ELEMENTS", 7 * (n + 7606))  # K = 7606: 7 columns a chunk
    rng = np.random.default_rng(n * d)
    X = 3.0 + rng.standard_normal((n, d)) * np.linspace(0.5, 20.0, d)
    X[: n // 20] = 400.0  # contamination
    kw = {"epsilon": 1.0} if estimator is W.winsorized_mean else {"rho": 0.5}
    bounds = (np.full(d, -1000.0), np.full(d, 1000.0))
    monkeypatch.setattr(_kernels, "MIN_SIZE", 1 << 62)
    want = estimator(X, bounds=bounds, rng=5, **kw)
    monkeypatch.setattr(_kernels, "MIN_SIZE", 0)
    got = estimator(X, bounds=bounds, rng=5, **kw)
    np.testing.assert_array_equal(got.diagnostics.clip_interval, want.diagnostics.clip_interval)
    np.testing.assert_array_equal(got.diagnostics.steps_upper, want.diagnostics.steps_upper)
    np.testing.assert_array_equal(got.diagnostics.clipped, want.diagnostics.clipped)
    scale = float(np.max(np.abs(want.mean)))
    np.testing.assert_allclose(got.mean, want.mean, rtol=0, atol=1e-12 * scale)
    assert got.ledger.total() == want.ledger.total()


def test_small_pmwm_runs_do_not_import_numba() -> None:
    code = (
        "import sys, numpy as np; from dpcore.estimators.winsorized import winsorized_mean_zcdp; "
        "x = np.random.default_rng(0).standard_normal((2000, 32)); "
        "winsorized_mean_zcdp(x, rho=1.0, bounds=(-50.0, 50.0), rng=0); "
        "print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
