"""Error measures and the exact three-way error split."""

import numpy as np
import pytest

from dpcore import registry
from dpcore.data import gaussian
from dpcore.metrics import (
    error_split,
    l1_error,
    l2_error,
    linf_error,
    lp_error,
    mahalanobis_error,
    tv_error,
)
from dpcore.privacy import Budget


def test_norms():
    e, t = np.array([3.0, -4.0]), np.zeros(2)
    assert l2_error(e, t) == 5 and l1_error(e, t) == 7 and linf_error(e, t) == 4
    assert lp_error(e, t, 3) == pytest.approx((27 + 64) ** (1 / 3))
    assert tv_error([0.5, 0.1], [0.4, 0.3]) == pytest.approx(0.15)
    assert mahalanobis_error(e, t, [3.0, 4.0]) == pytest.approx(np.sqrt(2))
    np.testing.assert_allclose(l2_error(np.ones((4, 2)), np.zeros(2)), np.full(4, np.sqrt(2)))
    with pytest.raises(ValueError):
        lp_error(e, np.zeros(3))
    with pytest.raises(ValueError):
        mahalanobis_error(e, t, [0.0, 1.0])


def test_error_split_vectors_add_up_exactly():
    ds = gaussian(500, 8, 2.0, rng=0)
    est = registry.run("gaussian_public", ds, Budget.zcdp(0.5), rng=1, radius=3.0)
    split = error_split(est, ds.x, ds.true_mean)
    xbar = ds.x.mean(0)
    vecs = [
        xbar - ds.true_mean,
        est.diagnostics.noiseless_mean - xbar,
        est.mean - est.diagnostics.noiseless_mean,
    ]
    np.testing.assert_allclose(sum(vecs), est.mean - ds.true_mean, atol=1e-12)
    assert split["clipping"] > 0 and split["noise"] > 0
    assert split["total"] <= split["sampling"] + split["clipping"] + split["noise"] + 1e-12
