"""The exponential mechanism's Gumbel draw over long rows of equal scores (``_gumbel_argmax``):
the index and the generator's later draws are those of ``argmax(scores + gumbel)``, and only a
few keys are computed (docs/speed.md, "Compare's refinement, round 4")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import mechanisms
from dpcore.mechanisms import noisy_max
from dpcore.privacy import Ledger


def _plain(scores: np.ndarray, seed: int) -> tuple[int, float]:
    gen = np.random.default_rng(seed)
    return int(np.argmax(scores + gen.gumbel(size=scores.shape))), float(gen.random())


def _fast(scores: np.ndarray, seed: int) -> tuple[int, float]:
    gen = np.random.default_rng(seed)
    return int(noisy_max._gumbel_argmax(scores, gen)), float(gen.random())


def _rank_scores(rng: np.random.Generator, eps: float) -> np.ndarray:
    """A rank utility on a grid finer than the data, as ``log_grid_quantile`` builds it."""
    n = int(rng.integers(2, 3000))
    x = np.sort(rng.gamma(3.0, size=n))
    grid = np.geomspace(1e-6, 100.0, int(rng.integers(1024, 12000)))
    counts = np.searchsorted(x, grid, side="right")
    return -(eps / 2.0) * np.abs(counts - float(rng.uniform(0.05, 0.95)) * n)


@pytest.mark.parametrize("eps", [0.01, 0.3, 2.0, 40.0])
def test_same_index_and_same_later_draws_as_the_full_gumbel_draw(eps: float) -> None:
    for seed in range(150):
        scores = _rank_scores(np.random.default_rng(seed), eps)
        assert _fast(scores, seed) == _plain(scores, seed)


@pytest.mark.parametrize(
    "scores",
    [
        np.zeros(5000),  # one run: the first smallest double wins
        np.repeat([-3.0, 0.0, -3.0, 0.0], 1500),  # equal scores in separate runs
        np.repeat([-2e5, 0.0], 1500),  # beyond the score limit: the full draw
        np.where(np.arange(4000) % 2 == 0, 0.0, -1.0),  # no runs: the full draw
        np.concatenate([np.full(2000, -np.inf), np.zeros(2000)]),  # an impossible half
        np.arange(100.0),  # short rows: the full draw
    ],
)
def test_edge_rows_give_the_full_draws_index(scores: np.ndarray) -> None:
    for seed in range(40):
        assert _fast(scores, seed) == _plain(scores, seed)


def test_only_a_few_keys_are_computed_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    class CountingMath:
        @staticmethod
        def log(v: float) -> float:
            calls.append(v)
            return math.log(v)

    monkeypatch.setattr(noisy_max, "math", CountingMath)
    scores = _rank_scores(np.random.default_rng(3), 1.0)
    assert scores.size >= 1024
    for seed in range(20):
        assert _fast(scores, seed) == _plain(scores, seed)
    assert len(calls) <= 2 * 20 * 4  # two logs per key, a handful of keys per draw


def test_the_mechanism_uses_it_and_charges_as_before() -> None:
    scores = _rank_scores(np.random.default_rng(5), 1.0)
    gen = np.random.default_rng(9)
    ledger = Ledger("pure")
    with mechanisms.stage(ledger, "quantile"):
        k = mechanisms.exponential(scores, sensitivity=1.0, epsilon=1.0, coefficient=0.5, rng=gen)
    assert int(k) == _plain(scores, 9)[0]
    assert ledger.by_stage() == {"quantile": 1.0}
