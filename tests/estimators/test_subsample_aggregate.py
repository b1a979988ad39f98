"""Tests of subsample-and-aggregate with the PMWM aggregator (specs/winsorized.md §3, §9 item 10)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import registry
from dpcore.data import generate
from dpcore.estimators.subsample_aggregate import (
    choose_k,
    hash_groups,
    partition,
    rows_of_groups,
    sa_error_bound,
    slope,
    subsample_and_aggregate,
)
from dpcore.privacy import Budget
from dpcore.theory.winsorized import premature_stop_probability, trim_level


def test_partition_is_a_data_independent_partition() -> None:
    groups = partition(1003, group_size=10, rng=5)
    assert groups.shape == (100, 10)
    flat = groups.ravel()
    assert np.unique(flat).size == flat.size and flat.min() >= 0 and flat.max() < 1003
    # same (N, size, seed) -> same partition: nothing but these enters
    np.testing.assert_array_equal(groups, partition(1003, group_size=10, rng=5))
    assert partition(1003, k=7, rng=0).shape == (7, 143)


def test_group_count_never_depends_on_the_data() -> None:
    x1 = np.random.default_rng(0).normal(0, 1, 500)
    x2 = np.random.default_rng(1).standard_cauchy(500) * 1e6
    e1 = subsample_and_aggregate(x1, bounds=(-10, 10), epsilon=1.0, group_size=20, rng=3)
    e2 = subsample_and_aggregate(x2, bounds=(-10, 10), epsilon=1.0, group_size=20, rng=3)
    assert e1.diagnostics.k == e2.diagnostics.k == 25
    np.testing.assert_array_equal(e1.diagnostics.groups, e2.diagnostics.groups)


def test_failed_statistic_maps_to_fixed_value() -> None:
    rng = np.random.default_rng(0)
    c0 = rng.normal(size=600)
    xy = np.c_[c0, 2 * c0 + rng.normal(size=600)]

    def fragile(g: np.ndarray) -> float:
        if g[0, 0] > 1.0:
            raise RuntimeError("fit did not converge")
        if g[0, 0] < -1.5:
            return float("nan")
        return slope(g)

    est = subsample_and_aggregate(
        xy, fragile, bounds=(-10, 10), rho=1.0, group_size=12, failure_value=0.0, rng=1
    )
    theta = est.diagnostics.group_statistics
    failed = est.diagnostics.failed
    assert est.diagnostics.k == 50
    assert failed.sum() > 0
    assert np.all(theta[failed, 0] == 0.0)
    assert np.all(np.abs(theta[~failed, 0] - 2) < 1.5)
    # the failed count is data-dependent: a non-private diagnostic, not a released warning (item 6)
    assert est.diagnostics.nonprivate["failed_groups"] == int(failed.sum())
    assert not any("failed" in w for w in est.diagnostics.warnings)
    # default failure value: the centre of the bounds
    est = subsample_and_aggregate(xy, fragile, bounds=(-4, 10), rho=1.0, group_size=12, rng=1)
    assert np.all(est.diagnostics.group_statistics[est.diagnostics.failed, 0] == 3.0)


def test_person_level_groups_keep_all_rows_of_a_person() -> None:
    ids = np.repeat(np.arange(300), 3)[np.random.default_rng(0).permutation(900)]
    labels = hash_groups(ids, 30, rng=2)
    rows = rows_of_groups(labels, 30)
    assert len(rows) == 30 and sum(r.size for r in rows) == 900
    seen: set = set()
    for r in rows:
        people = set(ids[r].tolist())
        assert not people & seen  # every row of a person lands in one group
        seen |= people
        assert r.size == 3 * len(people)
    # same key (seed) => same labels; string ids work too
    np.testing.assert_array_equal(labels, hash_groups(ids, 30, rng=2))
    assert hash_groups(ids.astype(str), 30, rng=2).shape == (900,)


def test_replacing_one_person_moves_only_that_persons_rows() -> None:
    """A person's group depends on their own id (and the key) only. Replace person
    17 by a new person 10_000 (different id, different rows), drop person 3, add person 20_000:
    every other row keeps its group. (The old rank-among-distinct-ids assignment moved everyone
    above the replaced id: a new largest id shifts every rank.)"""
    ids = np.repeat(np.arange(250), 4)
    new = ids.copy()
    new[ids == 17] = 10_000
    la, lb = hash_groups(ids, 25, rng=9), hash_groups(new, 25, rng=9)
    others = ids != 17
    np.testing.assert_array_equal(la[others], lb[others])
    keep = ids != 3
    added = np.concatenate([ids[keep], [20_000, 20_000]])
    lc = hash_groups(added, 25, rng=9)
    np.testing.assert_array_equal(lc[:-2], la[keep])
    assert np.all(lc[-2:] == lc[-1])
    # the groups are spread: no group holds more than twice its share
    assert np.bincount(la // 1, minlength=25).max() < 2 * 1000 / 25


def test_one_unit_changes_at_most_one_group_statistic() -> None:
    # Empirical privacy check of the S&A step: swap neighbours (one person's rows replaced by
    # extreme values) change exactly one group statistic, so the aggregator sees a swap of one of
    # its k inputs; the aggregator's own neighbour checks are in test_winsorized.py.
    rng = np.random.default_rng(0)
    x = rng.normal(5, 1, 1000)
    ids = np.repeat(np.arange(250), 4)
    x2 = x.copy()
    x2[ids == 17] = 1e9
    a = subsample_and_aggregate(x, "mean", bounds=(0, 10), epsilon=1.0, k=25, ids=ids, rng=4)
    b = subsample_and_aggregate(x2, "mean", bounds=(0, 10), epsilon=1.0, k=25, ids=ids, rng=4)
    diff = np.any(a.diagnostics.group_statistics != b.diagnostics.group_statistics, axis=1)
    assert diff.sum() == 1
    # person-level add/remove: dropping person 17 altogether also changes exactly one group
    keep = ids != 17
    c = subsample_and_aggregate(
        x[keep], "mean", bounds=(0, 10), epsilon=1.0, k=25, ids=ids[keep], rng=4
    )
    diff = np.any(a.diagnostics.group_statistics != c.diagnostics.group_statistics, axis=1)
    assert diff.sum() == 1
    with pytest.raises(ValueError, match="pass k"):
        subsample_and_aggregate(
            x, "mean", bounds=(0, 10), epsilon=1.0, group_size=10, ids=ids, rng=4
        )


@pytest.mark.parametrize(("kw", "unit"), [({"epsilon": 1.3}, "pure"), ({"rho": 0.7}, "zcdp")])
def test_ledger_sums_to_budget_and_divides_by_p(kw: dict, unit: str) -> None:
    x = np.random.default_rng(0).normal(0, 1, (1200, 3))
    est = subsample_and_aggregate(x, "median", bounds=(-5, 5), group_size=20, rng=1, **kw)
    budget = next(iter(kw.values()))
    assert est.ledger.notion == unit
    assert est.ledger.total() == budget
    assert est.diagnostics.budget_per_coordinate["mean"] == budget / 2 / 3
    assert est.mean.shape == (3,)


def test_accuracy_mean_and_regression_slope() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(5, 1, 4000)
    est = subsample_and_aggregate(x, "mean", bounds=(-50, 50), epsilon=1.0, group_size=40, rng=1)
    # 100 group means with sd 1/sqrt(40); PMWM error ~ sd/sqrt(k) plus noise ~ .02
    assert abs(est.mean[0] - 5) < 0.1
    c0 = rng.normal(size=4000)
    xy = np.c_[c0, -1.5 * c0 + rng.normal(size=4000)]
    est = subsample_and_aggregate(xy, "slope", bounds=(-10, 10), rho=1.0, group_size=40, rng=2)
    assert abs(est.mean[0] + 1.5) < 0.1


def test_biased_statistic_needs_big_groups() -> None:
    # Guidance finding (spec §3): the MLE variance has bias -sigma^2/m, so tiny groups (m = 4) give
    # an aggregate near sigma^2 (1 - 1/4) = 3 for sigma^2 = 4, while m ~ sqrt(N) is nearly unbiased.
    x = np.random.default_rng(3).normal(0, 2, 4096)
    small = subsample_and_aggregate(x, np.var, bounds=(0, 50), rho=1.0, group_size=4, rng=1).mean[0]
    big = subsample_and_aggregate(x, np.var, bounds=(0, 50), rho=1.0, group_size=64, rng=1).mean[0]
    assert abs(small - 3.0) < 0.3
    assert abs(big - 4.0) < abs(small - 4.0) / 3
    g = choose_k(4096, rho=1.0, bias_constant=4.0, bounds_width=50)
    assert g.k_max == math.floor(math.sqrt(4096) / 4)  # m >= |B| sqrt(N)


def test_choose_k_respects_quantile_requirement() -> None:
    g = choose_k(2327, epsilon=1.0, p=1, bounds_width=100)
    assert g.k_min <= g.k <= 2327 // 2
    # at k_min both walks together stop prematurely with probability <= 5% (vectorised formula
    # agrees with the scalar theory function)
    K = 4618
    tau = trim_level(g.k_min, 1.0, 0.0)
    p = 2 * premature_stop_probability(g.k_min, 1 - tau, K, epsilon_query=1 / 8)
    assert p <= 0.05
    tau = trim_level(g.k_min - 1, 1.0, 0.0)
    assert 2 * premature_stop_probability(g.k_min - 1, 1 - tau, K, epsilon_query=1 / 8) > 0.05
    # conflicting requirements are explained
    h = choose_k(400, epsilon=0.5, p=6, bias_constant=20.0, bounds_width=100)
    assert h.k == h.k_min > h.k_max and "more than the bias allows" in h.reason


def test_error_bound_variance_part_independent_of_k() -> None:
    N = 10_000
    ks = np.array([10, 100, 1000])  # N/k integers, so sigma_T / sqrt(k) = sqrt(v/N) exactly
    flat = sa_error_bound(ks, N, unit_variance=4.0, epsilon=1.0)
    np.testing.assert_allclose(flat, flat[0], rtol=1e-12)
    biased = sa_error_bound(ks, N, unit_variance=4.0, bias_constant=4.0, epsilon=1.0)
    assert np.all(np.diff(biased) > 0)


def test_bad_input() -> None:
    x = np.arange(100.0)
    with pytest.raises(ValueError, match="exactly one of epsilon"):
        subsample_and_aggregate(x, bounds=(0, 100), epsilon=1.0, rho=1.0, k=10)
    with pytest.raises(ValueError, match="at least 2 groups"):
        subsample_and_aggregate(x, bounds=(0, 100), epsilon=1.0, group_size=80)
    with pytest.raises(ValueError, match="statistic"):
        subsample_and_aggregate(x, "mode", bounds=(0, 100), epsilon=1.0, k=10)
    with pytest.raises(ValueError, match="ids"):
        subsample_and_aggregate(x, bounds=(0, 100), epsilon=1.0, k=10, ids=np.arange(5))


def test_registered() -> None:
    ds = generate("gaussian", 3000, 4, 0.0, rng=0)
    for name in ("sa_pmwm", "sa_pmwm_zcdp"):
        spec = registry.get(name)
        assert spec in registry.applicable("real", d=4)
        est = spec.run(ds, Budget.zcdp(1.0), rng=1)
        assert est.mean.shape == (4,)
        assert est.ledger.total() == pytest.approx(est.conversion.value, rel=1e-15)
        assert np.linalg.norm(est.mean - ds.true_mean) < 1.0


def test_failed_group_count_is_not_released() -> None:
    """The number of failed groups depends on the data; neighbours with 0 and 1
    failed groups give identical warnings, and the count sits in ``diagnostics.nonprivate``."""

    def fragile(g: np.ndarray) -> float:
        if np.any(g > 100):
            raise ValueError("outlier")
        return float(np.mean(g))

    x = np.random.default_rng(0).normal(5, 1, 400)
    x2 = x.copy()
    x2[7] = 1e6
    a = subsample_and_aggregate(x, fragile, bounds=(0, 10), epsilon=1.0, k=20, rng=3)
    b = subsample_and_aggregate(x2, fragile, bounds=(0, 10), epsilon=1.0, k=20, rng=3)
    assert (
        a.diagnostics.nonprivate["failed_groups"] == 0
        and b.diagnostics.nonprivate["failed_groups"] == 1
    )
    assert a.diagnostics.warnings == b.diagnostics.warnings


@pytest.mark.parametrize(
    ("name", "public"),
    [
        ("sa_pmwm", {}),
        ("sa_pmwm", {"statistic": "median", "group_size": 25}),
        ("sa_pmwm_zcdp", {}),
        ("sa_pmwm_zcdp", {"k": 40}),
    ],
)
def test_white_box_calibration(name: str, public: dict) -> None:
    """The aggregator's mechanisms write every ledger line; their noise is exactly what the charges
    require and the lines add up to the declared budget."""
    from dpcore.audit import calibration, problems

    tab = calibration(name, **public)
    assert problems(tab) == []
    assert list(tab["stage"]) == [
        "upper quantile: threshold",
        "upper quantile: queries",
        "lower quantile: threshold",
        "lower quantile: queries",
        "winsorized mean: " + ("Laplace" if name == "sa_pmwm" else "Gaussian") + " noise",
    ]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_failure_value_is_refused(bad: float) -> None:
    x = np.random.default_rng(0).normal(size=200)
    with pytest.raises(ValueError, match="failure_value"):
        subsample_and_aggregate(x, bounds=(-5, 5), epsilon=1.0, k=10, failure_value=bad, rng=0)
