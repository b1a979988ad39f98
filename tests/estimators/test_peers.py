"""The peer libraries' means: noise scales against the libraries' own privacy maps, and PLAN
beating them under strong variance skew."""

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import registry
from dpcore.data import generate
from dpcore.privacy import Budget

pytest.importorskip("opendp")
pytest.importorskip("diffprivlib")

from dpcore.estimators import peers  # noqa: E402

ALPHA = 1e-4  # KS false-alarm rate


def test_registered_as_an_opt_in_group_with_library_version_notion_and_relation():
    names = {s.name: s for s in registry.all_estimators() if s.family == registry.PEERS}
    assert set(names) == {"peer_opendp_laplace", "peer_opendp_gauss", "peer_diffprivlib"}
    expected = {
        "peer_opendp_laplace": ("pure", False, "opendp"),
        "peer_opendp_gauss": ("zcdp", False, "opendp"),
        "peer_diffprivlib": ("pure", True, "diffprivlib"),
    }
    for name, (notion, seeded, lib) in expected.items():
        spec = names[name]
        assert (spec.notion, spec.neighbouring, spec.seeded) == (notion, "replace-one", seeded)
        assert spec.detail.split()[:2] == [
            {"opendp": "OpenDP"}.get(lib, lib),
            peers.library_version(lib),
        ]
    assert not {s.name for s in registry.applicable("real", 4)} & set(names)  # opt-in only
    assert set(names) <= {s.name for s in registry.applicable("real", 4, peers=True)}


@pytest.mark.parametrize(
    ("mechanism", "budget", "closed_form"),
    [
        ("laplace", 0.7, lambda w, n, b: w / (n * b)),
        ("gaussian", 0.3, lambda w, n, b: w / (n * math.sqrt(2 * b))),
    ],
)
def test_opendp_scale_is_the_smallest_its_privacy_map_accepts(mechanism, budget, closed_form):
    n, lo, hi = 500, -2.0, 5.0
    meas, scale = peers.opendp_scale(n, lo, hi, budget, mechanism)
    assert meas.map(peers.OPENDP_D_IN) <= budget  # the library's own map meets the budget
    tighter = peers.opendp_measurement(n, lo, hi, scale * 0.999, mechanism)
    assert tighter.map(peers.OPENDP_D_IN) > budget  # ... and a 0.1% smaller scale would not
    assert scale == pytest.approx(
        closed_form(hi - lo, n, budget), rel=1e-6
    )  # replace-one sensitivity (U-L)/n


def _residuals(func, budget_kw, k=3000, n=200, rng=None):
    """k independent draws of the noise: k identical columns at k × the per-column budget."""
    col = np.random.default_rng(5).uniform(0.3, 0.7, size=n)
    x = np.repeat(col[:, None], k, axis=1)
    key, value = budget_kw
    est = func(x, **{key: value * k}, bounds=(0.0, 1.0), rng=rng)
    return est.mean - col.mean(), est


@pytest.mark.parametrize(
    ("name", "func", "budget_kw", "dist"),
    [
        ("opendp laplace", peers.opendp_laplace_mean, ("epsilon", 0.5), "laplace"),
        ("opendp gauss", peers.opendp_gaussian_mean, ("rho", 0.125), "norm"),
        ("diffprivlib", peers.diffprivlib_mean, ("epsilon", 0.5), "laplace"),
    ],
)
@pytest.mark.slow
def test_noise_has_the_scale_of_the_documented_sensitivity(name, func, budget_kw, dist):
    """KS on 3000 draws: matches scale (1/n)/budget-rule; rejects the same at 1.3× scale."""
    n = 200
    res, est = _residuals(func, budget_kw, n=n, rng=1)
    b = budget_kw[1]
    scale = (1.0 / n) / (b if dist == "laplace" else math.sqrt(2 * b))
    np.testing.assert_allclose(est.diagnostics.scale, scale, rtol=1e-6)
    assert stats.kstest(res, dist, args=(0, scale)).pvalue > ALPHA, name
    assert stats.kstest(res, dist, args=(0, 1.3 * scale)).pvalue < ALPHA, name
    assert stats.kstest(res, dist, args=(0, scale / 1.3)).pvalue < ALPHA, name


@pytest.mark.parametrize("name", ["peer_opendp_laplace", "peer_opendp_gauss", "peer_diffprivlib"])
def test_budget_goes_through_to_native_and_the_ledger_spends_it(name):
    spec = registry.get(name)
    ds = generate("bounded", 300, 3, rng=0)
    for budget in (Budget.zcdp(0.5), Budget.approx(1.0, 1e-6)):
        est = spec.run(ds, budget, rng=2)
        conv = budget.to_native(spec.notion)
        assert est.conversion == conv
        assert est.ledger.notion == spec.notion and est.ledger.total() == pytest.approx(
            conv.value, rel=1e-12
        )
        assert est.mean.shape == (3,) and np.all(np.isfinite(est.mean))
    if spec.seeded:
        a, b = (spec.run(ds, Budget.pure(1.0), rng=7).mean for _ in range(2))
        np.testing.assert_array_equal(a, b)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="bounds"):
        peers.diffprivlib_mean(np.ones((10, 2)), epsilon=1.0, bounds=None)
    with pytest.raises(ValueError, match="epsilon"):
        peers.opendp_laplace_mean(np.ones((10, 2)), epsilon=-1.0, bounds=(0, 1))


@pytest.mark.slow
@pytest.mark.parametrize(
    "budget", [Budget.zcdp(0.5), Budget.approx(1.0, 1e-6)], ids=["rho", "eps_delta"]
)
def test_plan_beats_the_library_means_under_strong_variance_skew(budget):
    """Gaussian, skew 2, d = 64, n = 10^4: PLAN's worst of 8 seeds beats every peer's best.

    Both sides are valid for the budget: under ρ the pure peers run at ε = √(2ρ); under (ε, δ) the
    pure peers run at ε and the zCDP ones at the CKS ρ (Budget.to_native).
    """
    ds = generate("gaussian", 10_000, 64, 2.0, rng=0)
    seeds = range(8)

    def errors(name):
        spec = registry.get(name)
        return np.array(
            [np.linalg.norm(spec.run(ds, budget, rng=s).mean - ds.true_mean) for s in seeds]
        )

    plan = errors("plan")
    for name in ("peer_opendp_laplace", "peer_opendp_gauss", "peer_diffprivlib"):
        peer = errors(name)
        assert plan.max() < peer.min(), (name, np.median(plan), np.median(peer))


def test_read_only_data_is_accepted():
    """Cached datasets are read-only; OpenDP's FFI rejects those, so the estimator copies."""
    x = generate("bounded", 200, 2, rng=0).x.copy()
    x.setflags(write=False)
    for func in (peers.opendp_laplace_mean, peers.diffprivlib_mean):
        assert np.all(np.isfinite(func(x, epsilon=1.0, bounds=(0.0, 1.0), rng=0).mean))


def _counting_measurement(monkeypatch, limit):
    """Make ``peers.opendp_measurement`` count its calls and raise past ``limit``."""
    real = peers.opendp_measurement
    calls = [0]

    def counted(*args, **kwargs):
        calls[0] += 1
        if calls[0] > limit:
            raise AssertionError(f"more than {limit} OpenDP measurements built")
        return real(*args, **kwargs)

    monkeypatch.setattr(peers, "opendp_measurement", counted)
    if hasattr(peers, "_search_scale"):
        peers._search_scale.cache_clear()
    return calls


@pytest.mark.parametrize(
    ("n", "bounds", "mechanism"),
    [
        (20, (1000.0, 1000.000000001), "gaussian"),
        (20, (1000.0, 1000.001), "laplace"),
        (20, (1.0, 1.0 + 2.3e-16), "gaussian"),
        (200_000, (1000.0, 1001.0), "laplace"),
    ],
)
def test_opendp_scale_ends_fast_on_a_range_narrow_for_its_offset(monkeypatch, n, bounds, mechanism):
    """Bracket and bisect: a bounded number of map calls, and the scale is still the smallest."""
    calls = _counting_measurement(monkeypatch, 1300)
    meas, scale = peers.opendp_scale(n, *bounds, 0.5, mechanism)
    assert calls[0] <= 1300
    assert meas.map(peers.OPENDP_D_IN) <= 0.5
    tighter = peers.opendp_measurement(n, *bounds, scale * (1 - 1e-9), mechanism)
    assert tighter.map(peers.OPENDP_D_IN) > 0.5


def test_opendp_scale_gives_a_clear_value_error_when_no_scale_is_found(monkeypatch):
    monkeypatch.setattr(peers, "MAX_DOUBLINGS", 2)
    peers._search_scale.cache_clear()
    with pytest.raises(ValueError, match="accepts no finite noise scale"):
        peers.opendp_scale(20, 1e100, 1e100 * (1 + 1e-15), 0.5, "gaussian")
    peers._search_scale.cache_clear()


def test_audit_repro_one_ulp_link_returns():
    """The reliability audit's repro: bounds one ulp wide at 1 used to loop for decades."""
    x = np.random.default_rng(0).random((20, 2)) * 2.2e-16 + 1
    est = registry.run("peer_opendp_gauss", x, Budget.zcdp(0.5), bounds=(1, 1 + 2.3e-16))
    assert np.all(np.isfinite(est.mean))


@pytest.mark.parametrize(
    ("name", "budget"),
    [
        ("peer_opendp_laplace", Budget.pure(1.0)),
        ("peer_opendp_gauss", Budget.zcdp(0.5)),
        ("peer_diffprivlib", Budget.pure(1.0)),
    ],
)
def test_peer_ledger_lines_are_external_releases_with_ratio_at_least_one(name, budget):
    x = np.random.default_rng(1).random((50, 3))
    est = registry.run(name, x, budget, bounds=(0.0, 1.0), rng=0)
    (line,) = est.ledger.charges
    assert line.amount == pytest.approx(est.ledger.total())
    assert line.ratio >= 1.0 - 1e-12
    assert line.ratio == pytest.approx(1.0, rel=1e-6)
    assert line.sensitivity == pytest.approx(1.0 / 50)
