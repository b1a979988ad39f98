"""The release backend (dpcore.samplers): scales, distributions, refusals and CSPRNG draws.

Distribution checks use Kolmogorov–Smirnov at a false-alarm rate of 1e-4 on 8 000 draws, each
with a mis-scaled reference (30% off) that must be rejected.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import mechanisms, samplers
from dpcore.samplers import (
    SafeBackend,
    UnsafeDraw,
    _measurement,
    random_unit,
    required_budget,
    safe_scale,
)

N = 8_000
ALPHA = 1e-4


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
@pytest.mark.parametrize(("sens", "scale"), [(1.0, 1.0), (0.3, 0.7), (2e-3, 1e-5), (5.0, 123.4)])
def test_safe_scale_meets_the_asked_budget_on_opendps_map(kind, sens, scale):
    used = safe_scale(kind, sens, scale)
    assert used >= scale
    assert used <= scale * (1 + 1e-6)
    assert _measurement(kind, used).map(sens) <= required_budget(kind, sens, scale)


def test_laplace_and_gaussian_noise_have_the_asked_scale():
    b = SafeBackend()
    lap = b.add_noise("laplace", np.full(N, 3.0), 2.0, 1.0) - 3.0
    assert stats.kstest(lap, stats.laplace(scale=2.0).cdf).pvalue > ALPHA
    assert stats.kstest(lap, stats.laplace(scale=2.6).cdf).pvalue < ALPHA
    gau = b.add_noise("gaussian", np.zeros(N), 0.5, 1.0)
    assert stats.kstest(gau, stats.norm(scale=0.5).cdf).pvalue > ALPHA
    assert stats.kstest(gau, stats.norm(scale=0.65).cdf).pvalue < ALPHA


def test_per_coordinate_scales_are_one_call_per_group():
    b = SafeBackend()
    scale = np.array([1.0, 1.0, 100.0, 100.0])
    out = b.add_noise("laplace", np.zeros((2000, 4)), scale, np.array([1.0, 1.0, 2.0, 2.0]))
    assert len(b.draws) == 2
    assert {d.variates for d in b.draws} == {4000}
    spread = np.abs(out).mean(axis=0)
    assert spread[:2] == pytest.approx([1.0, 1.0], rel=0.15)
    assert spread[2:] == pytest.approx([100.0, 100.0], rel=0.15)


def test_a_noise_only_draw_is_refused():
    with pytest.raises(UnsafeDraw, match="drawn alone"):
        mechanisms.gaussian(None, sensitivity=1.0, rho=0.5, rng=SafeBackend(), shape=(3,))
    # a real value of zeros is drawn
    rel = mechanisms.gaussian(np.zeros(3), sensitivity=1.0, rho=0.5, rng=SafeBackend())
    assert np.shape(rel.value) == (3,)


def test_noisy_max_is_the_exponential_mechanism():
    b = SafeBackend()
    scores = np.array([0.0, 1.0, 2.0, -np.inf])
    picks = b.noisy_max(np.tile(scores, (3000, 1)))
    assert not np.any(picks == 3)
    freq = np.bincount(picks, minlength=4)[:3]
    want = np.exp(scores[:3]) / np.exp(scores[:3]).sum()
    assert stats.chisquare(freq, 3000 * want).pvalue > ALPHA


def test_walk_noise_exact_on_a_grid():
    b = SafeBackend()
    counts = np.arange(N, dtype=float) % 7
    noisy = b.add_walk_noise("exponential", counts, 2.0)
    z = noisy - counts
    assert np.all(z >= 0)
    assert stats.kstest(z, stats.expon(scale=0.5).cdf).pvalue > ALPHA
    assert stats.kstest(z, stats.expon(scale=0.65).cdf).pvalue < ALPHA
    k = math.floor(math.log2(0.5)) - 20
    assert np.all(np.ldexp(z, -k) % 1 == 0)  # multiples of 2^k: the sums are exact
    g = b.add_walk_noise("gaussian", np.zeros(N), 0.25)
    assert stats.kstest(g, stats.norm(scale=2.0).cdf).pvalue > ALPHA


def test_csprng_draws():
    b = SafeBackend()
    u = random_unit(10_000)
    assert u.min() >= 0 and u.max() < 1 and np.all(np.ldexp(u, 53) % 1 == 0)
    assert stats.kstest(u, "uniform").pvalue > ALPHA
    ints = b.integers(3, 10, size=6000)
    assert ints.min() == 3 and ints.max() == 9
    assert stats.chisquare(np.bincount(ints - 3)).pvalue > ALPHA
    assert sorted(b.permutation(50)) == list(range(50))
    pick = b.choice(20, size=10, replace=False)
    assert len(set(pick.tolist())) == 10
    assert isinstance(b.random(), float)
    assert b.random((2, 3)).shape == (2, 3)
    assert b.uniform(2.0, 3.0, 4).min() >= 2.0
    counts = b.binomial(np.array([10, 40, 10**9]), 0.5)
    assert counts[0] <= 10 and counts[1] <= 40 and abs(counts[2] - 5e8) < 6e5


def test_standard_normal_only_for_a_rotation():
    with pytest.raises(UnsafeDraw, match="outside dpcore"):
        SafeBackend().standard_normal(3)
    for name in ("laplace", "gumbel", "standard_exponential", "normal"):
        assert not hasattr(SafeBackend(), name)


def test_no_numpy_generator_is_created(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("a NumPy generator was created")

    monkeypatch.setattr(np.random, "default_rng", boom)
    monkeypatch.setattr(np.random, "Generator", boom)
    b = SafeBackend()
    b.add_noise("laplace", np.zeros(4), 1.0, 1.0)
    b.noisy_max(np.zeros((2, 3)))
    b.add_walk_noise("exponential", np.zeros(3), 1.0)
    b.random(3), b.integers(5, size=2), b.permutation(4), b.choice(5, 2)


@pytest.mark.parametrize(
    "scores",
    [
        np.random.default_rng(3).normal(0.0, 1.5, size=30),  # spread
        np.r_[0.0, -40.0 + np.random.default_rng(4).normal(0.0, 1.0, 29)],  # one dominant
        -np.abs(np.arange(30) - 11) * 2.0 - 5e4,  # peaked, far from zero
        np.r_[0.0, np.full(29, -800.0)],  # the others underflow in floats
        np.r_[np.full(10, -np.inf), np.log(np.arange(1.0, 21.0))],  # impossible candidates
    ],
)
def test_exact_noisy_max_has_the_exponential_mechanisms_distribution(scores):
    p = np.exp(scores - scores.max())
    p /= p.sum()
    draws = 6_000
    obs = np.bincount(samplers.exact_noisy_max(np.tile(scores, (draws, 1))), minlength=30)
    big = p * draws > 5
    pooled_obs = np.r_[obs[big], obs[~big].sum()]
    pooled_exp = np.r_[p[big], p[~big].sum()] * draws
    keep = pooled_exp > 0
    if keep.sum() == 1:  # one candidate holds all the mass
        assert pooled_obs[keep][0] == draws
        return
    assert stats.chisquare(pooled_obs[keep], pooled_exp[keep]).pvalue > ALPHA


def test_bernoulli_exp_and_sum_exp_probabilities():
    from fractions import Fraction

    for x, trials in ((0.3, 4000), (2.5, 4000)):
        hits = sum(samplers.bernoulli_exp(Fraction(x)) for _ in range(trials))
        assert stats.binomtest(hits, trials, math.exp(-x)).pvalue > ALPHA
    s = np.array([-0.1, -2.0, -0.7])
    hits = sum(samplers.bernoulli_sum_exp(s, Fraction(1)) for _ in range(4000))
    assert stats.binomtest(hits, 4000, float(np.exp(s - 1).sum())).pvalue > ALPHA
    hits = sum(samplers.bernoulli_sum_exp(s, Fraction(1), Fraction(1, 2)) for _ in range(4000))
    assert stats.binomtest(hits, 4000, float(np.exp(s - 1).sum()) / 2).pvalue > ALPHA
    with pytest.raises(RuntimeError, match="exceeds 1"):
        samplers.bernoulli_sum_exp(np.zeros(3), Fraction(0))
