"""Bundled data sets, user CSV / DataFrame input, and bounds (public, private, read off the data)."""

from __future__ import annotations

import gzip
import hashlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dpcore import data as D
from dpcore import registry
from dpcore._validation import PrivacyLeakWarning
from dpcore.data import DISTRIBUTIONS, generate
from dpcore.estimators import private_bounds as D_private_bounds
from dpcore.privacy import Budget
from dpcore.quantiles import exponential_quantile_probabilities

# The recorded facts about each bundled set (also in assets/datasets.json and assets/README.md).
RECORDED = {
    "digits": ((1797, 64), 4.884164, "bounded"),
    "cps1988": ((28155, 10), None, "real"),
    "supermarket": ((4627, 122), None, "binary"),
}


# ----------------------------------------------------------------------------------------------
# bundled sets


@pytest.mark.parametrize("name", list(D.BUNDLED))
def test_bundled_loads_with_recorded_shape_and_mean(name: str) -> None:
    ds = D.load_bundled(name)
    rec = D.manifest()[name]
    shape, grand_mean, kind = RECORDED[name]
    assert ds.x.shape == shape == tuple(rec["shape"])
    assert ds.kind == kind
    np.testing.assert_allclose(ds.true_mean, rec["mean"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ds.true_std, rec["std"], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(ds.true_mean, ds.x.mean(axis=0))  # truth = full data's mean
    if grand_mean is not None:
        assert ds.x.mean() == pytest.approx(grand_mean, abs=1e-6)
    digest = hashlib.sha256((D.ASSETS / rec["file"]).read_bytes()).hexdigest()
    assert digest == rec["sha256"], "the bundled file changed: rerun assets/prepare_datasets.py"
    lo, hi = ds.bounds
    assert np.all(ds.x >= lo) and np.all(ds.x <= hi), "public prior range must cover the data"
    assert not ds.x.flags.writeable  # cached array cannot be corrupted by a caller


def test_recorded_facts_of_the_real_data() -> None:
    cps = D.load_bundled("cps1988")
    wage = cps.x[:, 0]
    assert cps.true_mean[0] == pytest.approx(603.7268, abs=1e-3)
    # Heavy right tail: median below the mean, sample skewness about 6, maximum ~31 means out.
    skew = np.mean((wage - wage.mean()) ** 3) / wage.std() ** 3
    assert np.median(wage) < 0.9 * wage.mean() and skew > 4 and wage.max() > 25 * wage.mean()
    digits = D.load_bundled("digits")
    # Strongly skewed per-column variances: three corner pixels never vary, centre ones do a lot.
    assert int(np.sum(digits.true_std == 0)) == 3 and digits.true_std.max() > 6
    basket = D.load_bundled("supermarket")
    assert set(np.unique(basket.x)) == {0.0, 1.0} and np.all(basket.true_mean > 0)
    assert basket.true_mean.max() == pytest.approx(0.7197, abs=1e-4)


def test_bundled_csv_files_are_small() -> None:
    total = sum((D.ASSETS / info.file).stat().st_size for info in D.BUNDLED.values())
    assert total < 3 * 2**20
    for info in D.BUNDLED.values():
        with gzip.open(D.ASSETS / info.file) as fh:
            assert fh.readline()  # valid gzip with a header row


def test_unknown_bundled_name() -> None:
    with pytest.raises(ValueError, match="choose one of"):
        D.load_bundled("iris")


def test_spread_columns_keeps_variance_profile() -> None:
    std = np.array([0.0, 1.0, 5.0, 3.0, 2.0, 0.5])
    idx = D.spread_columns(std, 3)
    assert list(idx) == [2, 4, 5]  # highest, middle, lowest non-constant
    assert list(D.spread_columns(std, 10)) == [2, 3, 4, 1, 5]  # all varying columns, decreasing
    assert list(D.spread_columns(std, 1)) == [2]


def test_sample_bundled_is_the_population_resampled() -> None:
    full = D.load_bundled("digits")
    ds = D.sample_bundled("digits", 500, 8, rng=3)
    cols = np.array(ds.params["column_index"])
    assert ds.x.shape == (500, 8)
    np.testing.assert_array_equal(ds.true_mean, full.true_mean[cols])
    assert np.all(np.diff(ds.true_std) <= 0) and np.all(ds.true_std > 0)
    np.testing.assert_array_equal(ds.x, D.sample_bundled("digits", 500, 8, rng=3).x)
    assert not np.array_equal(ds.x, D.sample_bundled("digits", 500, 8, rng=4).x)
    every = D.sample_bundled("digits", 50, 4096, rng=0)
    assert every.d == 61 and "61 varying columns" in every.description


def test_sample_bundled_mean_converges_to_full_mean() -> None:
    # Rows drawn with replacement: the sample mean of column j has standard error sigma_j/sqrt(n).
    # 61 coordinates, each within 5 standard errors (two-sided normal tail 5.7e-7 each, so a
    # false alarm below 4e-5 for the whole test).
    n = 40_000
    ds = D.sample_bundled("digits", n, 64, rng=11)
    z = (ds.x.mean(axis=0) - ds.true_mean) / (ds.true_std / math.sqrt(n))
    assert np.max(np.abs(z)) < 5


@pytest.mark.parametrize("name", list(D.BUNDLED))
def test_bundled_sets_are_global_distributions(name: str) -> None:
    key = f"bundled_{name}"
    spec = DISTRIBUTIONS[key]
    assert spec.kind == D.BUNDLED[name].kind and not spec.skew_applies
    ds = generate(key, n=300, d=4, rng=0)
    assert ds.n == 300 and ds.d == min(4, int(np.sum(D.load_bundled(name).true_std > 0)))
    for est in registry.applicable(ds.kind, ds.d)[:6]:
        out = est.run(ds, Budget.zcdp(0.5), rng=0)
        assert np.all(np.isfinite(out.mean))


# ----------------------------------------------------------------------------------------------
# CSV parsing (the upload path of the "Your data" page)

GOOD = b"age,income,city\n34,52000,Oslo\n51,61000,Bergen\n29,,Oslo\n46,48000.5,Trondheim\n"


def test_parse_good_csv() -> None:
    df = D.parse_csv(GOOD)
    assert list(df.columns) == ["age", "income", "city"] and df.shape == (4, 3)
    info = D.describe_columns(df).set_index("column")
    assert bool(info.loc["age", "numeric"]) and not bool(info.loc["city", "numeric"])
    assert info.loc["income", "missing"] == 1 and info.loc["income", "max"] == 61000
    semi = D.parse_csv("\ufeffa;b\n1;2\n3;4\n".encode())
    assert list(semi.columns) == ["a", "b"] and semi["b"].sum() == 6


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        (b"", "empty"),
        (b"   \n\n ", "blank"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a CSV"),
        (b"PK\x03\x04\x14\x00\x06\x00", "not a CSV"),
        (b"a,b,c\n", "no data rows"),
        (b"a,b\n1,2\n3,4,5,6\n", "Could not read"),
    ],
)
def test_parse_broken_csv(raw: bytes, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        D.parse_csv(raw)


def test_parse_too_large() -> None:
    with pytest.raises(ValueError, match="limit is"):
        D.parse_csv(GOOD, max_bytes=20)
    with pytest.raises(ValueError, match="more than 2 rows"):
        D.parse_csv(GOOD, max_rows=2)
    with pytest.raises(ValueError, match="columns; the limit is 2"):
        D.parse_csv(GOOD, max_columns=2)


# ----------------------------------------------------------------------------------------------
# DataFrame -> Dataset, bounds


def test_from_dataframe_good_and_bad() -> None:
    df = D.parse_csv(GOOD)
    ds = D.from_dataframe(df, ["age", "income"], bounds=([0, 0], [120, 1e6]), nan_policy="drop")
    assert ds.x.shape == (3, 2) and ds.params["dropped_rows"] == 1 and ds.kind == "bounded"
    np.testing.assert_allclose(ds.true_mean, [(34 + 51 + 46) / 3, (52000 + 61000 + 48000.5) / 3])
    with pytest.raises(ValueError, match="not numeric"):
        D.from_dataframe(df, ["age", "city"], bounds=(0, 1))
    with pytest.raises(ValueError, match="missing or infinite"):
        D.from_dataframe(df, ["income"], bounds=(0, 1e6))
    with pytest.raises(ValueError, match="not in the data"):
        D.from_dataframe(df, ["height"], bounds=(0, 1))
    with pytest.raises(ValueError, match="columns is empty"):
        D.from_dataframe(df, [], bounds=(0, 1))
    with pytest.raises(ValueError, match="inverted"):
        D.from_dataframe(df, ["age"], bounds=(100, 0))
    with pytest.raises(ValueError, match="limit is 1"):
        D.from_dataframe(df, ["age", "income"], bounds=(0, 1e6), nan_policy="drop", max_columns=1)
    with pytest.raises(ValueError, match="at least 2"):
        D.from_dataframe(
            pd.DataFrame({"a": [1.0, np.nan]}), ["a"], bounds=(0, 2), nan_policy="drop"
        )
    bits = D.from_dataframe(pd.DataFrame({"a": [0, 1, 1], "b": [True, False, True]}), bounds=(0, 1))
    assert bits.kind == "binary"


def test_bounds_from_data_warn_as_a_leak() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, 5.0], "b": [3.0, 3.0, 3.0]})
    with pytest.warns(PrivacyLeakWarning, match="leaks private information"):
        ds = D.from_dataframe(df)
    assert ds.params["bounds_from_data"]
    np.testing.assert_array_equal(ds.bounds[0], [1.0, 2.5])  # constant column widened by 0.5
    np.testing.assert_array_equal(ds.bounds[1], [5.0, 3.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D.from_dataframe(df, bounds=(0, 10))  # public bounds: no warning


def test_private_bounds_ledger_and_accuracy() -> None:
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(50, 10, 20_000), rng.exponential(3.0, 20_000)])
    pb = D_private_bounds.private_bounds(x, (-1000, 1000), rho=1.0, quantiles=(0.05, 0.95), rng=1)
    # the exponential mechanism charges d eps_col^2 / 8 per quantile: rho up to rounding
    assert pb.ledger.total() == pytest.approx(1.0, rel=1e-12) and pb.ledger.notion == "zcdp"
    assert list(pb.ledger.by_stage()) == ["bounds: lower quantile", "bounds: upper quantile"]
    # Accuracy in rank: with eps_col = sqrt(8 * 0.25) = 1.41 per column and quantile, the EM's
    # rank error exceeds t with probability <= (range / gap) * exp(-eps t / 2); a 2% rank slack
    # (t = 400) makes that astronomically small, so check the private values fall between the
    # empirical 3% and 7% (93% and 97%) quantiles.
    for j in range(2):
        lo_ok = np.quantile(x[:, j], [0.03, 0.07])
        hi_ok = np.quantile(x[:, j], [0.93, 0.97])
        assert lo_ok[0] <= pb.lower[j] <= lo_ok[1]
        assert hi_ok[0] <= pb.upper[j] <= hi_ok[1]
    pure = D_private_bounds.private_bounds(x, (-1000, 1000), epsilon=0.7, rng=1)
    assert pure.ledger.total() == 0.7 and pure.ledger.notion == "pure"
    assert (
        np.all(pure.lower < pure.upper)
        and np.all(pure.lower >= -1000)
        and np.all(pure.upper <= 1000)
    )


def test_private_bounds_constant_column_and_bad_input() -> None:
    x = np.full((100, 1), 3.0)
    pb = D_private_bounds.private_bounds(x, (0, 10), epsilon=1.0, rng=0)
    assert pb.upper[0] > pb.lower[0]
    with pytest.raises(ValueError, match="exactly one"):
        D_private_bounds.private_bounds(x, (0, 10), rng=0)
    with pytest.raises(ValueError, match="quantiles"):
        D_private_bounds.private_bounds(x, (0, 10), epsilon=1.0, quantiles=(0.9, 0.1))
    with pytest.raises(ValueError, match="coarse_bounds"):
        D_private_bounds.private_bounds(x, (10, 0), epsilon=1.0)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_private_bounds_quantile_privacy_on_worst_case_neighbours(relation: str) -> None:
    # Exact output densities of the EM quantile on neighbours (a point moved from the bottom to the
    # top, or removed from the bottom): the log density ratio must stay within eps_col everywhere.
    # This backs the claim in private_bounds that utility sensitivity 1 holds for both relations.
    eps = 0.8
    x = np.linspace(1.0, 9.0, 41)
    x2 = np.append(x[1:], 10.0) if relation == "replace-one" else x[1:]
    grid = np.linspace(0.005, 11.995, 2400)
    worst = 0.0
    for q in (0.01, 0.5, 0.99):
        dens = []
        for data in (x, x2):
            p = exponential_quantile_probabilities(data, q, (0.0, 12.0), eps)
            z = np.concatenate(([0.0], np.sort(data), [12.0]))
            i = np.searchsorted(z, grid, side="right") - 1
            dens.append(p[i] / np.diff(z)[i])
        worst = max(worst, float(np.abs(np.log(dens[0] / dens[1])).max()))
    assert worst <= eps + 1e-9
    assert worst > 0.4 * eps  # the check is not vacuous (observed about eps / 2)


@pytest.mark.parametrize("unit", ["rho", "eps"])
def test_run_with_private_bounds_ledgers_sum_exactly(unit: str) -> None:
    data = D.sample_bundled("digits", 400, 4, rng=0)
    budget = Budget.from_unit(unit, 0.7)
    specs = registry.applicable(data.kind, data.d)
    assert len(specs) > 5
    for spec in specs:
        if spec.spend_factor != 1.0 and budget.meets(
            spec.notion
        ):  # as published: the ledger shows the overspend
            est = D_private_bounds.run_with_private_bounds(
                spec, data, budget, share=0.3, coarse_bounds=(0, 16), rng=2
            )
            native = budget.to_native(spec.notion).value
            assert est.ledger.total() == pytest.approx(
                native * (0.3 + 0.7 * spec.spend_factor), rel=1e-12
            ), spec.name
            continue
        if not budget.meets(
            spec.notion
        ):  # zCDP under a pure ε budget: refused, never run as if it met it
            with pytest.raises(ValueError, match="cannot be met by a zCDP estimator"):
                D_private_bounds.run_with_private_bounds(
                    spec, data, budget, share=0.3, coarse_bounds=(0, 16), rng=2
                )
            continue
        est = D_private_bounds.run_with_private_bounds(
            spec, data, budget, share=0.3, coarse_bounds=(0, 16), rng=2
        )
        if spec.notion == "none":
            continue
        native = budget.to_native(spec.notion).value
        by_stage = est.ledger.by_stage()
        bounds_part = by_stage["bounds: lower quantile"] + by_stage["bounds: upper quantile"]
        # The bounds step takes exactly what the estimator was not given:
        assert bounds_part + native * (1.0 - 0.3) == native, spec.name
        # ... so the total is the native budget up to the estimator's own ledger rounding (an
        # estimator whose stages sum exactly gives it exactly; iome_original at rho = 0.1715 is
        # one ulp short inside its own ledger).
        assert est.ledger.total() == pytest.approx(native, rel=1e-14, abs=0), spec.name
        stages = list(by_stage)
        assert stages[:2] == ["bounds: lower quantile", "bounds: upper quantile"], spec.name
        lo, hi = est.diagnostics.private_bounds
        assert np.all(lo >= 0) and np.all(hi <= 16) and np.all(lo < hi)
    with pytest.raises(ValueError, match="share"):
        D_private_bounds.run_with_private_bounds(
            specs[1], data, budget, share=0.6, coarse_bounds=(0, 16)
        )


def test_oracle_refuses_a_data_derived_sigma() -> None:
    """from_dataframe's true_std is the user's own empirical std. The registry never
    hands it to an estimator as known sigma: plan_oracle refuses the data set (it needs a public
    sigma), accepts an explicit public one, and estimators that ignore sigma are unaffected."""
    df = pd.DataFrame(np.random.default_rng(0).normal(0, [1.0, 5.0], (300, 2)), columns=["a", "b"])
    data = D.from_dataframe(df, ["a", "b"], (-30, 30))
    assert data.params["std_from_data"] is True
    oracle = registry.get("plan_oracle")
    with pytest.raises(ValueError, match="needs a public sigma"):
        oracle.run(data, Budget.zcdp(0.5), rng=0)
    est = oracle.run(data, Budget.zcdp(0.5), rng=0, sigma=np.array([1.0, 5.0]))
    assert est.mean.shape == (2,)
    assert registry.get("plan").run(data, Budget.zcdp(0.5), rng=0).mean.shape == (2,)
    assert D.load_bundled("digits").params["std_from_data"] is True
    # simulated data keep their population sigma (the teaching oracle)
    assert registry.get("plan_oracle").run(
        generate("gaussian", 300, 2, rng=0), Budget.zcdp(0.5), rng=0
    )
