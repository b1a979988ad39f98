"""dpcore.release: refusals, no NumPy generator, accuracy, certificate, odometer, low-bit attack."""

import importlib
import json
import math

import numpy as np
import pytest

from dpcore import Budget, registry
from dpcore.audit.low_bits import balanced, low_bit_attack
from dpcore.release import FACTOR, Odometer, refusal, release

rel_mod = importlib.import_module("dpcore.release")  # the module (dpcore.release is the function)

EPS, RHO = Budget.pure(1.0), Budget.zcdp(0.5)
#: One-stage entries (one Laplace or Gaussian draw of the noisy statistic) and their budget.
ONE_STAGE = {
    "clipped_laplace": EPS,
    "clipped_box_zcdp": RHO,
    "sum_known_n_laplace_replace": EPS,
    "sum_known_n_gauss_replace": RHO,
    "centred_sum_known_n_laplace": EPS,
    "centred_sum_known_n_gauss": RHO,
    "simplex_laplace": EPS,
    "simplex_gauss": RHO,
    "simplex_known_n_laplace_replace": EPS,
    "simplex_known_n_gauss_replace": RHO,
    "gaussian_public": RHO,
}


_ROWS = np.random.default_rng(0).random((500, 3))  # made before any test patches NumPy


def _data(n=200, d=2):
    return _ROWS[:n, :d].copy()


@pytest.mark.parametrize("key", ["rng", "seed"])
def test_a_seed_is_refused(key):
    with pytest.raises(ValueError, match="takes no"):
        release("clipped_laplace", _data(), EPS, n_public=True, bounds=(0, 1), **{key: 0})


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("empirical", "non-private reference"),
        ("plan_as_published", "spends 1.5"),
        ("plan_oracle", "oracle"),
        ("peer_diffprivlib", "low bits"),
    ],
)
def test_reference_only_entries_refuse_with_the_reason(name, why):
    assert why in refusal(registry.get(name))
    with pytest.raises(ValueError, match=why):
        release(
            name,
            _data(),
            RHO if registry.get(name).notion == "zcdp" else EPS,
            n_public=True,
            bounds=(0, 1),
        )


def test_gaussian_public_releases_its_noisy_sum_with_exact_accuracy():
    x = _data(300, 3)
    out = release("gaussian_public", x, RHO, n_public=True, bounds=(0.0, 1.0))
    assert out.certificate["accuracy"]["method"].startswith("exact: one gaussian")
    radius = math.sqrt(3) / 2  # half diagonal of the unit cube
    want = FACTOR["gaussian"] * 2 * radius / (300 * math.sqrt(2 * RHO.rho_value))
    assert out.accuracy == pytest.approx([want] * 3, rel=1e-5)
    assert [d["kind"] for d in out.record["draws"]] == ["gaussian"]


@pytest.fixture
def no_numpy_generators(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("a NumPy generator was created in a release")

    for name in ("default_rng", "Generator", "RandomState", "PCG64", "SeedSequence"):
        monkeypatch.setattr(np.random, name, boom)


@pytest.mark.parametrize("name", [*ONE_STAGE, "plugin_laplace", "pmwm", "resize_gauss"])
def test_no_numpy_generator_in_a_release(name, no_numpy_generators):
    budget = ONE_STAGE.get(name, RHO if registry.get(name).notion == "zcdp" else EPS)
    out = release(name, _data(), budget, n_public=True, bounds=(0.0, 1.0))
    assert out.mean.shape == (2,) and np.all(np.isfinite(out.mean))
    assert np.all(out.accuracy > 0)


def test_private_bounds_path_and_certificate(no_numpy_generators):
    out = release(
        "clipped_laplace", _data(500, 3), EPS, n_public=True, coarse_bounds=(-10, 10), share=0.25
    )
    cert = out.certificate
    assert cert["outputs"]["bounds"]["source"].startswith("privately estimated")
    assert cert["public"]["coarse_bounds"] == {"lower": [-10.0] * 3, "upper": [10.0] * 3}
    stages = [s["stage"] for s in cert["stages"]]
    assert stages[:2] == ["bounds: lower quantile", "bounds: upper quantile"]
    assert math.fsum(s["spent"] for s in cert["stages"]) == pytest.approx(1.0)
    assert cert["accuracy"]["method"].startswith("simulated")
    with pytest.raises(ValueError, match="coarse_bounds"):
        release("clipped_laplace", _data(), EPS, n_public=True)


def test_certificate_holds_no_data_value():
    x = _data(50, 2) * 1000 + 123.456789
    out = release("clipped_laplace", x, EPS, n_public=True, bounds=(0, 2000), source=b"file bytes")
    text = out.certificate_json()
    json.loads(text)
    for value in [*x.ravel()[:20], *x.mean(axis=0)]:
        assert repr(float(value)) not in text and f"{value:.6g}" not in text
    cert = out.certificate
    for key in ("estimator", "dpcore_version", "guarantee", "neighbouring", "stages", "public"):
        assert key in cert
    assert cert["guarantee"]["epsilon"] == 1.0 and cert["neighbouring"]["relation"] == "replace-one"
    assert cert["public"]["bounds"]["source"] == "typed public bounds"
    assert cert["public"]["n"]["value"] == 50
    assert cert["sampler"]["opendp_version"] != "unknown"
    assert cert["time_utc"].endswith("+00:00")
    # the input is fingerprinted in the curator's record only, keyed (HMAC), never in the certificate
    assert "sha256" not in text and "fingerprint" not in text
    mark = out.record["input_fingerprint"]["hmac_sha256"]
    again = release("clipped_laplace", x, EPS, n_public=True, bounds=(0, 2000))
    assert len(mark) == 64 and mark != again.record["input_fingerprint"]["hmac_sha256"]
    para = out.certificate_text()
    assert "\n" not in para and "ε-differential privacy with ε = 1" in para


def test_zcdp_certificate_states_the_implied_epsilon_delta():
    g = release("clipped_box_zcdp", _data(), RHO, n_public=True, bounds=(0, 1)).certificate[
        "guarantee"
    ]
    assert g["rho"] == 0.5 and g["at_delta"] == 1e-6 and 4 < g["implies_epsilon"] < 7


@pytest.mark.parametrize(("name", "budget"), [("clipped_laplace", EPS), ("clipped_box_zcdp", RHO)])
def test_exact_accuracy_is_the_95pct_quantile_of_the_noise(name, budget):
    x = _data(100, 2)
    out = release(name, x, budget, n_public=True, bounds=(0.0, 1.0))
    assert out.certificate["accuracy"]["method"].startswith("exact")
    d, n = 2, 100
    per = budget.epsilon_value / d if budget.notion == "pure" else None
    if per is not None:  # clipped_laplace: Laplace b = width / (n ε/d) per coordinate
        want = FACTOR["laplace"] * 1.0 / (n * per)
        assert out.accuracy == pytest.approx([want, want], rel=1e-6)
    clean = registry.run(name, x, budget, rng=0, bounds=(0.0, 1.0)).diagnostics.noiseless_mean
    errs = np.array(
        [
            np.abs(release(name, x, budget, n_public=True, bounds=(0.0, 1.0)).mean - clean)
            for _ in range(200)
        ]
    )
    covered = np.mean(errs < out.accuracy)
    assert 0.90 < covered <= 1.0


def test_odometer_charges_only_after_success():
    odo = Odometer(Budget.pure(1.0))
    x = _data()
    odo.run(release, "clipped_laplace", x, budget=Budget.pure(0.4), n_public=True, bounds=(0, 1))
    assert odo.spent == pytest.approx(0.4)
    bad = x.copy()
    bad[0, 0] = np.nan
    for args, kwargs in [
        (("clipped_laplace", bad), {"n_public": True, "bounds": (0, 1)}),  # NaN
        (("clipped_laplace", x), {"n_public": True, "bounds": (1, 0)}),  # bounds in the wrong order
        (("empirical", x), {"bounds": (0, 1)}),  # a refusal
        (("clipped_laplace", np.empty((0, 2))), {"n_public": True, "bounds": (0, 1)}),  # empty
    ]:
        with pytest.raises(ValueError):
            odo.run(release, *args, budget=Budget.pure(0.4), **kwargs)
        assert odo.spent == pytest.approx(0.4)
    with pytest.raises(ValueError, match="nothing was released"):
        odo.run(
            release, "clipped_laplace", x, budget=Budget.pure(0.7), n_public=True, bounds=(0, 1)
        )
    odo.run(release, "clipped_laplace", x, budget=Budget.pure(0.6), n_public=True, bounds=(0, 1))
    assert odo.remaining == pytest.approx(0.0) and len(odo.history) == 2


def test_odometer_notions():
    z = Odometer(Budget.zcdp(0.5))
    assert z.cost(Budget.pure(0.5)) == pytest.approx(0.125)
    assert z.cost(Budget.zcdp(0.2)) == 0.2
    with pytest.raises(ValueError, match="pure ε budget cannot count it"):
        Odometer(Budget.pure(1.0)).cost(Budget.zcdp(0.1))


def test_text_in_a_numeric_column_is_refused():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"income": ["1", "two"]})
    with pytest.raises(ValueError, match="numeric"):
        release("clipped_laplace", frame, EPS, n_public=True, bounds=(0, 1))


# ---------------------------------------------------------------------------------------------
# the low-bit attack (Mironov 2012)

DRAWS = 400


def test_low_bit_attack_succeeds_on_a_numpy_draw():
    g = np.random.default_rng(1)

    def numpy_draw(z):
        return registry.run("clipped_laplace", z, EPS, rng=g, bounds=(0.0, 1.0)).mean[0]

    hits_d, hits_d2 = low_bit_attack(numpy_draw, DRAWS)
    assert hits_d > 50 and hits_d2 == 0
    assert not balanced(hits_d, hits_d2)


@pytest.mark.parametrize("name", list(ONE_STAGE))
@pytest.mark.long  # a long statistical check: `make long` (CI runs it)
def test_low_bit_attack_fails_on_every_one_stage_release(name, monkeypatch):
    monkeypatch.setattr(rel_mod, "accuracy", lambda *a, **k: (np.zeros(1), np.ones(1), "skipped"))
    budget = ONE_STAGE[name]

    def safe_draw(z):
        return release(name, z, budget, n_public=True, bounds=(0.0, 1.0)).mean[0]

    hits_d, hits_d2 = low_bit_attack(safe_draw, DRAWS)
    eps = budget.epsilon_value if budget.notion == "pure" else math.sqrt(2 * budget.rho_value)
    assert balanced(hits_d, hits_d2, max(eps, 1.0)), (hits_d, hits_d2)


def test_a_binary_entry_releases_without_typed_bounds() -> None:
    """0/1 columns have the public range [0, 1] by definition (PLAN's ℓ1 variant takes bounds)."""
    from dpcore.data import binary_product

    r = release("plan_l1", binary_product(500, 4, rng=0).x, Budget.zcdp(0.5), n_public=True)
    assert r.mean.shape == (4,) and np.all(np.isfinite(r.mean))
    assert r.certificate["public"]["bounds"]["upper"] == [1.0] * 4


def test_per_column_bounds_keep_the_exact_accuracy():
    """One Laplace draw per column (bounds of different widths) is still one stage: the accuracy
    is exact, ``ln 20 · width_j · d / (n ε)`` per column, and covers 95% of releases."""
    x = _data(100, 2) * [1.0, 2.0]
    bounds = ([0.0, 0.0], [1.0, 2.0])
    out = release("clipped_laplace", x, EPS, n_public=True, bounds=bounds)
    assert out.certificate["accuracy"]["method"].startswith("exact") and out.noise == "laplace"
    want = FACTOR["laplace"] * np.array([1.0, 2.0]) * 2 / (100 * EPS.epsilon_value)
    assert out.accuracy == pytest.approx(want, rel=1e-6)
    clean = registry.run("clipped_laplace", x, EPS, rng=0, bounds=bounds).diagnostics
    errs = np.array(
        [
            np.abs(
                release("clipped_laplace", x, EPS, n_public=True, bounds=bounds).mean
                - clean.noiseless_mean
            )
            for _ in range(200)
        ]
    )
    assert 0.90 < np.mean(errs < out.accuracy) <= 1.0
