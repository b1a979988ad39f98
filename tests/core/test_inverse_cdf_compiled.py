"""The inverse-CDF draw of the exponential mechanism on large blocks (``_inverse_cdf`` with
:func:`dpcore.mechanisms._compiled.cumulative_pick`): the index of every row and the generator's
later draws are those of the NumPy cumulative sum and halving search it replaces (docs/speed.md,
"PLAN and IOME on small arrays, round 7"); and CoinPress's public radii are those of the loop
written out step by step."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.estimators._localise import chi_tail, coinpress_radii, coinpress_steps
from dpcore.mechanisms import _compiled, noisy_max


def _numpy_inverse_cdf(scores: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """The NumPy draw as written before the compiled step."""
    w = scores.reshape(-1, scores.shape[-1])
    w = w - w.max(axis=-1, keepdims=True)
    np.exp(w, out=w)
    np.cumsum(w, axis=-1, out=w)
    rows, m = w.shape
    values = gen.random(rows) * w[:, -1]
    lo = np.zeros(rows, dtype=np.intp)
    hi = np.full(rows, m, dtype=np.intp)
    at = np.arange(rows)
    for _ in range(int(m).bit_length() + 1):
        mid = (lo + hi) // 2
        le = w[at, np.minimum(mid, m - 1)] <= values
        active = lo < hi
        lo = np.where(active & le, mid + 1, lo)
        hi = np.where(active & ~le, mid, hi)
    return np.minimum(lo, m - 1).reshape(scores.shape[:-1])


@pytest.mark.parametrize("spread", [0.05, 3.0, 60.0])
def test_compiled_draw_is_the_numpy_draw(spread: float) -> None:
    rng = np.random.default_rng(11)
    for seed in range(12):
        rows, m = int(rng.integers(1, 40)), int(rng.integers(2000, 7000))
        scores = rng.standard_normal((rows, m)) * spread
        scores[rng.random((rows, m)) < 0.1] = -np.inf  # ties of the gaps: weight 0
        g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
        idx = noisy_max._inverse_cdf(scores.copy(), g1)
        assert np.array_equal(idx, _numpy_inverse_cdf(scores.copy(), g2))
        assert g1.random() == g2.random()


def test_small_blocks_count_as_the_search_did() -> None:
    """Below the compiled step's size the index is a count of the cumulative weights at or below
    the draw (rows that rise); rows with NaN keep the halving search."""
    rng = np.random.default_rng(5)
    for seed in range(200):
        rows, m = int(rng.integers(1, 40)), int(rng.integers(2, 1500))
        scores = rng.standard_normal((rows, m)) * float(rng.choice([0.1, 5.0, 50.0, 1000.0]))
        scores[rng.random((rows, m)) < float(rng.choice([0.0, 0.05, 0.9]))] = -np.inf
        if seed % 7 == 0:
            scores[0] = -np.inf  # a row of zero weights: NaN after the shift
        if seed % 11 == 0:
            scores[-1, m // 2] = np.nan
        with np.errstate(invalid="ignore"):
            fast = noisy_max._inverse_cdf(scores.copy(), np.random.default_rng(seed))
            fresh = noisy_max._inverse_cdf(scores.copy(), np.random.default_rng(seed), fresh=True)
            plain = _numpy_inverse_cdf(scores.copy(), np.random.default_rng(seed))
        assert np.array_equal(fast, plain) and np.array_equal(fresh, plain)


def test_compiled_draw_on_one_row_and_above_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_compiled, "COMPILED_FROM", 1)
    rng = np.random.default_rng(3)
    for seed in range(30):
        scores = rng.standard_normal(int(rng.integers(1, 50))) * 4.0
        idx = noisy_max._inverse_cdf(scores, np.random.default_rng(seed))
        assert idx.shape == ()
        assert int(idx) == int(_numpy_inverse_cdf(scores, np.random.default_rng(seed)))
    one = np.full((2, 5), -np.inf)
    one[:, 3] = 0.0  # a single candidate of positive weight is always chosen
    assert noisy_max._inverse_cdf(one, np.random.default_rng(0)).tolist() == [3, 3]


def _radii_reference(n, d, r0, gamma, rho, steps, beta=0.1):
    rho_t = rho / steps
    tb = chi_tail(d, beta / steps)
    r = [float(r0)]
    for _ in range(steps):
        s = 2.0 * (r[-1] + gamma) / (n * math.sqrt(2.0 * rho_t))
        r.append(s * tb + gamma / math.sqrt(n))
    return r


def test_coinpress_radii_are_the_step_by_step_loop() -> None:
    rng = np.random.default_rng(4)
    for _ in range(200):
        n, d = int(rng.integers(2, 10**6)), int(rng.integers(1, 5000))
        r0, gamma = float(rng.uniform(0.1, 1e5)), float(rng.uniform(1e-3, 1e3))
        rho, steps = float(rng.uniform(1e-4, 10.0)), int(rng.integers(1, 13))
        assert coinpress_radii(n, d, r0, gamma, rho, steps) == _radii_reference(
            n, d, r0, gamma, rho, steps
        )
        finals = [_radii_reference(n, d, r0, gamma, rho, t)[-1] for t in range(1, 13)]
        assert coinpress_steps(n, d, r0, gamma, rho) == int(np.argmin(finals)) + 1
