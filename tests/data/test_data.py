"""Seeded generators: shapes, truths, reproducibility, and clear errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.data import (
    DISTRIBUTIONS,
    binary_product,
    contaminated,
    correlated_gaussian,
    gaussian,
    generate,
    zipf_std,
)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_every_generator_matches_its_truth(name):
    ds = generate(name, 20_000, 6, rng=3)
    assert ds.x.shape == (20_000, 6) and ds.kind == DISTRIBUTIONS[name].kind
    # sample mean within 5 standard errors of the truth (for the contaminated set: of the clean mean
    # only after removing outliers, so skip the mean check there)
    if name != "contaminated":
        se = ds.true_std / np.sqrt(ds.n)
        assert np.all(np.abs(ds.x.mean(0) - ds.true_mean) < 5 * se + 1e-12)
    lo, hi = ds.bounds
    assert np.all(lo < ds.true_mean) and np.all(ds.true_mean < hi)


def test_zipf_profile_and_gaussian_std():
    s = zipf_std(4, 2.0)
    np.testing.assert_allclose(s**2, [(4 / i) ** 2 for i in range(1, 5)])
    ds = gaussian(50_000, 4, 2.0, rng=0)
    np.testing.assert_allclose(
        ds.x.std(0) / ds.true_std, 1, atol=0.02
    )  # se of a std ~ 1/sqrt(2n) = 0.3%


def test_correlated_variants_have_the_stated_covariance():
    ds = correlated_gaussian(100_000, 3, 2.0, variant="C'", rng=1)
    c = np.corrcoef(ds.x.T)
    np.testing.assert_allclose(c[np.triu_indices(3, 1)], 0.5, atol=0.02)
    a = correlated_gaussian(100_000, 8, variant="A'", rng=1)
    np.testing.assert_allclose(a.x.std(0) / a.true_std, 1, atol=0.02)


def test_contamination_fraction_and_binary_profiles():
    ds = contaminated(1000, 2, eta=0.1, shift=20, rng=0)
    far = np.abs(ds.x - ds.true_mean) > 10 * ds.true_std
    assert far.all(axis=1).sum() == 100
    b = binary_product(100, 10, 0.3, rng=0)
    np.testing.assert_array_equal(b.true_mean, [0.5] * 3 + [0.01] * 7)
    z = binary_product(100, 4, 1.0, profile="zipf", rng=0)
    np.testing.assert_allclose(z.true_mean, [0.5, 0.25, 1 / 6, 0.125])
    assert set(np.unique(b.x)) <= {0.0, 1.0}


def test_same_seed_same_data_and_generator_accepted():
    a = generate("student_t", 100, 3, 1.0, rng=42)
    b = generate("student_t", 100, 3, 1.0, rng=np.random.default_rng(42))
    np.testing.assert_array_equal(a.x, b.x)
    assert not np.array_equal(a.x, generate("student_t", 100, 3, 1.0, rng=43).x)


@settings(max_examples=40, deadline=None)
@given(n=st.one_of(st.integers(-5, 1), st.floats(), st.booleans()), d=st.integers(1, 3))
def test_bad_sizes_raise(n, d):
    with pytest.raises(ValueError, match="n must be an integer"):
        generate("gaussian", n, d, rng=0)


def test_bad_names_and_skews():
    with pytest.raises(ValueError, match="unknown distribution"):
        generate("cauchy", 10, 2)
    with pytest.raises(ValueError, match="skew"):
        generate("binary_plan", 10, 2, skew=2.0)
    with pytest.raises(ValueError, match="too large"):
        generate("gaussian", 10**6, 10**3)
