"""The guarantee is a contract: locked privacy parameters, honest labels, white-box calibration.

The repros are those of the November 2026 privacy audit (findings A1, A3, D2); each fails on the
code before the contract.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from dpcore import mechanisms, registry
from dpcore.audit import calibration, problems
from dpcore.estimate import Diagnostics, Estimate
from dpcore.privacy import Budget, Ledger

ROOT = Path(__file__).resolve().parents[2]
X = np.random.default_rng(0).random((60, 1))

GUARANTEE_OVERRIDES = [
    ("simplex_laplace", Budget.pure(1.0), {"known_n": True}),
    ("simplex_gauss", Budget.zcdp(0.5), {"known_n": True}),
    ("centred_sum_known_n_laplace", Budget.pure(1.0), {"neighbouring": "add-remove"}),
    ("centred_sum_known_n_gauss", Budget.zcdp(0.5), {"neighbouring": "add-remove"}),
    ("simplex_known_n_laplace_replace", Budget.pure(1.0), {"neighbouring": "add-remove"}),
    ("simplex_known_n_gauss_replace", Budget.zcdp(0.5), {"neighbouring": "add-remove"}),
    ("sum_known_n_laplace_replace", Budget.pure(1.0), {"neighbouring": "add-remove"}),
    ("pmwm_zcdp", Budget.zcdp(0.5), {"walk": "gaussian"}),
    ("plan", Budget.zcdp(0.5), {"center_spread": 0.1}),
    ("simplex_laplace", Budget.pure(1.0), {"mechanism": "gaussian"}),
]


@pytest.mark.parametrize(("name", "budget", "override"), GUARANTEE_OVERRIDES)
def test_a_guarantee_defining_override_is_refused(name, budget, override) -> None:
    with pytest.raises(ValueError, match=r"guarantee|does not take|no parameter"):
        registry.run(name, X, budget, rng=0, bounds=(0.0, 1.0), **override)


def test_the_refusal_names_the_entry_that_has_the_behaviour() -> None:
    with pytest.raises(ValueError, match="'simplex_known_n_gauss_replace'"):
        registry.run("simplex_gauss", X, Budget.zcdp(0.5), rng=0, known_n=True)


def test_the_registered_value_of_a_locked_keyword_is_accepted() -> None:
    est = registry.run(
        "simplex_laplace", X, Budget.pure(1.0), rng=0, bounds=(0.0, 1.0), known_n=False
    )
    assert est.ledger.total() == pytest.approx(1.0)


@pytest.mark.parametrize("key", ["epsilon", "rho", "delta"])
def test_a_budget_keyword_in_the_overrides_is_refused(key) -> None:
    with pytest.raises(ValueError, match="set by the budget"):
        registry.run("clipped_laplace", X, Budget.pure(1.0), rng=0, bounds=(0, 1), **{key: 100.0})


def test_an_unknown_keyword_lists_the_public_ones() -> None:
    with pytest.raises(ValueError, match="public tuning parameters are bounds"):
        registry.run("clipped_laplace", X, Budget.pure(1.0), rng=0, nonsense=1)


@pytest.mark.parametrize("budget", [1.0, "1", None, {"epsilon": 1}])
def test_a_budget_that_is_not_a_budget_is_a_type_error(budget) -> None:
    with pytest.raises(TypeError, match=r"Budget\.pure"):
        registry.run("clipped_laplace", X, budget, rng=0)


def test_relation_sets_the_neighbouring_keyword() -> None:
    spec = registry.get("simplex_laplace")
    est = spec.run(X, Budget.pure(1.0), rng=0, bounds=(0, 1), relation="add-remove")
    assert est.ledger.total() == pytest.approx(1.0)


def test_every_public_keyword_is_outside_the_locked_set() -> None:
    for spec in registry.all_estimators():
        assert not spec.public_keywords() & spec.locked_keywords(), spec.name
        assert not spec.public_keywords() & {"epsilon", "rho", "delta", "rng"}, spec.name


# -- honest labels (audit A3) ------------------------------------------------------------------


def test_an_overspender_does_not_meet_its_budget_and_is_its_own_group() -> None:
    from dpcore.experiments import ExperimentConfig, run, summarise

    est = registry.run(
        "plan_as_published",
        np.random.default_rng(0).random((500, 2)),
        Budget.zcdp(0.5),
        rng=0,
        bounds=(0, 1),
    )
    assert est.conversion is not None and est.conversion.meets_budget is False
    assert not registry.get("plan_as_published").private
    frame = run(
        ExperimentConfig(
            n=500,
            d=2,
            estimators=["plan", "plan_as_published"],
            sweep={"budget": [0.05]},
            repetitions=2,
        )
    )
    s = summarise(frame)
    labels = dict(zip(s["estimator"], s["guarantee"], strict=True))
    assert labels["plan"] == "ρ-zCDP, replace-one"
    assert labels["plan_as_published"].startswith("spends 1.5ρ")
    from dpcore.experiments.summaries import regret_table

    assert "plan_as_published" not in set(regret_table(frame)["estimator"])


# -- the noise interface -----------------------------------------------------------------------

# Where a ledger line may be written, and where privacy noise may be drawn from a generator.
_CHARGE = re.compile(r"\.charge\(")
_DRAW = re.compile(r"\.(laplace|standard_normal|normal|gumbel|exponential|standard_exponential)\(")
_ALLOWED = {
    *(f"dpcore/mechanisms/{m}.py" for m in ("stages", "additive", "noisy_max", "sparse_vector")),
    "dpcore/privacy.py",
    "dpcore/samplers.py",
    "dpcore/release.py",
}
_DRAW_FREE = ["dpcore/estimators", "dpcore/quantiles"]


def test_no_estimator_writes_a_ledger_line_or_draws_noise_by_hand() -> None:
    bad = []
    for folder in _DRAW_FREE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in _ALLOWED:
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if _CHARGE.search(code) or (
                    _DRAW.search(code) and "mechanisms." not in code and ">>>" not in code
                ):
                    bad.append(f"{rel}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("spec", registry.all_estimators(), ids=lambda s: s.name)
def test_every_entry_is_calibrated_stage_by_stage(spec) -> None:
    if spec.name.startswith("peer_opendp"):
        pytest.importorskip("opendp")
    tab = calibration(spec.name)
    assert problems(tab) == [], tab.to_string()
    if spec.notion != "none":
        assert len(tab) >= 1
        assert math.isclose(tab.attrs["total"], tab.attrs["declared"], rel_tol=1e-9)


# -- the calibration check catches broken stages exactly ---------------------------------------


def _two_stage(x, *, epsilon, rng=None, bounds=(0.0, 1.0), broken=""):
    """A two-stage pure estimator: a noisy count then a noisy clipped sum (half the budget each)."""
    g = mechanisms.generator(rng)
    X = np.clip(np.asarray(x, float).reshape(len(x), -1), *bounds)
    n, d = X.shape
    ledger = Ledger("pure")
    with mechanisms.stage(ledger, "noisy count"):
        mechanisms.laplace(float(n), 1.0, epsilon / 2, rng=g)
    with mechanisms.stage(ledger, "noisy sum"):
        b = d / (epsilon / 2)
        rel = mechanisms.laplace(X.sum(0), d, epsilon / 2, rng=g, scale=0.7 * b if broken else b)
        if broken == "charged twice":
            rel = mechanisms.laplace(X.sum(0), d, epsilon / 2, rng=g)
    if broken == "left out":
        rel = mechanisms.laplace(X.sum(0), d, epsilon / 2, rng=g)  # outside any stage
    if broken == "raw draw":
        g.laplace(0.0, 1.0, size=d)
    return Estimate(rel.value / n, ledger, Diagnostics(noiseless_mean=X.mean(0)))


def _runner(broken: str):
    def run(data, budget, rng=None):
        return _two_stage(data, epsilon=budget.epsilon_value, rng=rng, broken=broken)

    return run


def test_calibration_passes_the_honest_two_stage_estimator() -> None:
    tab = calibration("clipped_laplace", Budget.pure(1.0), runner=_runner(""), data=X)
    assert list(tab["stage"]) == ["noisy count", "noisy sum"]
    assert np.allclose(tab["ratio"], 1.0)
    assert problems(tab) == []


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        ("0.7", "noisy sum: noise drawn is 0.7x"),
        ("charged twice", "charge 1.5"),
        ("left out", "unledgered: laplace draw outside any ledger stage"),
        ("raw draw", "unledgered: noise drawn outside dpcore.mechanisms"),
    ],
)
def test_calibration_flags_each_broken_variant_exactly(broken, expected) -> None:
    tab = calibration("clipped_laplace", Budget.pure(1.0), runner=_runner(broken), data=X)
    found = problems(tab)
    assert any(expected in p for p in found), found
    if broken == "0.7":
        assert found == ["noisy sum: noise drawn is 0.7x the noise its charge requires"]
