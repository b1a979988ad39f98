"""Noise scales of the Laplace and Gaussian mechanisms: exact, and in distribution.

Distribution tests use Kolmogorov–Smirnov at a false-alarm rate of 1e-4 on 20 000 draws; with that
many draws a 30% error in the scale gives a KS distance of about 0.07–0.1, far above the 1e-4
critical value (about 0.016), so each test also checks that a mis-scaled reference is rejected.
"""

import numpy as np
import pytest
from scipy import stats

from dpcore.mechanisms import gaussian, gaussian_std, laplace, laplace_scale

N = 20_000
ALPHA = 1e-4


def test_exact_scales():
    assert laplace_scale(2.0, 0.5) == 4.0
    assert gaussian_std(2.0, 0.5) == pytest.approx(2.0)
    assert laplace(np.zeros(3), 1.0, 2.0, rng=0).scale == 0.5
    assert gaussian(np.zeros(3), 3.0, 2.0, rng=0).scale == pytest.approx(1.5)


def test_laplace_noise_distribution_and_30pct_detection():
    sens, eps = 2.0, 0.7
    noise = laplace(np.zeros(N), sens, eps, rng=1).value
    b = sens / eps
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > ALPHA
    assert stats.kstest(noise, stats.laplace(scale=1.3 * b).cdf).pvalue < ALPHA
    assert stats.kstest(noise, stats.laplace(scale=b / 1.3).cdf).pvalue < ALPHA


def test_gaussian_noise_distribution_and_30pct_detection():
    sens, rho = 3.0, 0.25
    noise = gaussian(np.full(N, 5.0), sens, rho, rng=2).value - 5.0
    s = sens / np.sqrt(2 * rho)
    assert stats.kstest(noise, stats.norm(scale=s).cdf).pvalue > ALPHA
    assert stats.kstest(noise, stats.norm(scale=1.3 * s).cdf).pvalue < ALPHA
    assert stats.kstest(noise, stats.norm(scale=s / 1.3).cdf).pvalue < ALPHA


def test_reproducible_by_seed_and_scalar_input():
    a = gaussian(1.0, 1.0, 1.0, rng=5)
    b = gaussian(1.0, 1.0, 1.0, rng=5)
    assert a == b and isinstance(a.value, float)
    assert laplace([1.0, 2.0], 1.0, 1.0, rng=np.random.default_rng(3)).value.shape == (2,)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(sensitivity=0, epsilon=1),
        dict(sensitivity=1, epsilon=0),
        dict(sensitivity=-1, epsilon=1),
        dict(sensitivity=1, epsilon=float("nan")),
    ],
)
def test_bad_laplace_arguments(kwargs):
    with pytest.raises(ValueError):
        laplace(0.0, rng=0, **kwargs)


def test_nan_value_rejected():
    with pytest.raises(ValueError, match="NaN"):
        gaussian(np.array([1.0, np.nan]), 1.0, 1.0)
