"""``log_grid_quantile`` builds its grid's powers once and its counts without sorting against the
whole grid: the same radius as the plain formula (docs/speed.md, "Compare's refinement, round 4")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.quantiles import exponential as QE


def _plain(x: np.ndarray, q: float, top: float, rho: float, seed: int) -> float:
    """The formula as written: the grid, the counts by sorting, the Gumbel draw over all of it."""
    G = QE.log_grid_size()
    grid = top * QE.LOG_GRID_RATIO ** -np.arange(G, dtype=float)[::-1]
    counts = np.searchsorted(np.sort(x), grid, side="right")
    eps = math.sqrt(8.0 * rho)
    log_w = -(eps / 2.0) * np.abs(counts - q * x.size)
    gen = np.random.default_rng(seed)
    return float(grid[int(np.argmax(log_w + gen.gumbel(size=log_w.shape)))])


def _values(seed: int, top: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    x = np.abs(rng.normal(size=n)) * top / float(rng.choice([0.5, 3.0, 100.0]))
    grid = top * QE.LOG_GRID_RATIO ** -np.arange(QE.log_grid_size(), dtype=float)
    x[: n // 10] = grid[rng.integers(0, grid.size, n // 10)]  # values on grid points
    x[n // 10 : n // 5] = 0.0
    return x


@pytest.mark.parametrize("top", [1.0, 37.5, 1e4])
@pytest.mark.parametrize("rho", [0.001, 0.5])
def test_the_same_radius_as_the_plain_formula(top: float, rho: float) -> None:
    for seed in range(60):
        x = _values(seed, top)
        q = (0.5, 0.9, 0.1)[seed % 3]
        got = QE.log_grid_quantile(x, q, top, rho=rho, rng=np.random.default_rng(seed))
        assert got == _plain(x, q, top, rho, seed)


def test_the_grid_is_made_once_and_cannot_be_written() -> None:
    QE._log_grid_powers.cache_clear()
    for seed in range(5):
        QE.log_grid_quantile(_values(seed, 2.0), 0.5, 2.0, rho=0.1, rng=seed)
    assert QE._log_grid_powers.cache_info().misses == 1
    with pytest.raises(ValueError):
        QE._log_grid_powers(QE.log_grid_size(), QE.LOG_GRID_RATIO)[0] = 1.0
