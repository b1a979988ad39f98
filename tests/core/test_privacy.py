"""Exact facts about budgets, conversions and the ledger (dpcore.privacy)."""

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dpcore.privacy import (
    Budget,
    Ledger,
    approx_to_zcdp,
    pure_to_zcdp,
    split_budget,
    zcdp_to_approx,
)


def test_reference_values_of_the_standard_conversion():
    # specs/plan.md §1: delta = 1e-6 reference values of rho + 2 sqrt(rho ln(1/delta)).
    expected = {1: 8.43, 0.5: 5.76, 0.25: 3.97, 0.125: 2.75, 0.0625: 1.92, 0.01: 0.753}
    for rho, eps in expected.items():
        assert zcdp_to_approx(rho, 1e-6, "standard") == pytest.approx(eps, abs=0.006)
    assert round(zcdp_to_approx(0.01, 1e-6, "standard"), 4) == 0.7534  # spec §9.10


def test_cks_is_tighter_and_matches_its_formula():
    for rho in (0.01, 0.1, 0.5, 1, 4):
        for delta in (1e-3, 1e-6, 1e-10):
            cks = zcdp_to_approx(rho, delta, "cks")
            assert cks < zcdp_to_approx(rho, delta, "standard")
            # check against a brute-force grid minimum of the CKS expression
            best = min(
                a * rho
                + (math.log(1 / delta) + (a - 1) * math.log1p(-1 / a) - math.log(a)) / (a - 1)
                for a in (1 + 10 ** (k / 200) for k in range(-1600, 800))
            )
            # the grid minimum is an upper bound; the optimiser must reach it (grid step 1.2%)
            assert best * (1 - 1e-4) <= cks <= best * (1 + 1e-9)


@given(
    st.floats(0.001, 20), st.sampled_from([1e-9, 1e-6, 1e-3]), st.sampled_from(["cks", "standard"])
)
def test_inverse_conversion_round_trips(rho, delta, method):
    eps = zcdp_to_approx(rho, delta, method)
    assert approx_to_zcdp(eps, delta, method) == pytest.approx(rho, rel=1e-6)


def test_pure_to_zcdp_and_budget_native_rules():
    assert pure_to_zcdp(1.0) == 0.5
    # a pure budget is never handed to a zCDP estimator (this line used to assert
    # the invalid direction, rho = eps^2/2 "meeting" an eps budget)
    with pytest.raises(ValueError, match="cannot be met by a zCDP estimator"):
        Budget.pure(2.0).to_native("zcdp")
    assert Budget.zcdp(0.125).to_native("pure").value == pytest.approx(0.5)
    assert Budget.approx(1.0, 1e-6).to_native("pure").value == 1.0
    r = Budget.approx(3.0, 1e-6).to_native("zcdp").value
    assert zcdp_to_approx(r, 1e-6, "cks") == pytest.approx(3.0, rel=1e-9)
    assert Budget.zcdp(0.3).to_native("none").value == 0.0
    assert "ρ" in Budget.zcdp(0.3).to_native("zcdp").rule


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "x", None])
def test_impossible_budgets_raise_clear_errors(bad):
    with pytest.raises(ValueError, match=r"epsilon|rho"):
        Budget.pure(bad)
    with pytest.raises(ValueError, match="rho"):
        Budget.zcdp(bad)


@pytest.mark.parametrize("delta", [0, 1, -0.1, 2, float("nan")])
def test_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        Budget.approx(1.0, delta)


def test_from_unit():
    assert Budget.from_unit("eps", 1).notion == "pure"
    assert Budget.from_unit("eps_delta", 1, 1e-5).delta == 1e-5
    assert Budget.from_unit("rho", 1).rho == 1
    with pytest.raises(ValueError, match="unit"):
        Budget.from_unit("zcdp", 1)


def test_ledger_sums_by_composition_and_rejects_negative():
    led = Ledger("zcdp")
    parts = split_budget(
        1.0, {"centre": 0.0625, "variance": 0.1875, "radius": 0.1875, "noise": 0.5625}
    )
    for stage, amount in parts.items():
        led.charge(stage, amount)
    assert led.total() == pytest.approx(1.0, abs=1e-15)
    assert list(led.by_stage()) == ["centre", "variance", "radius", "noise"]
    assert led.unit() == "ρ"
    with pytest.raises(ValueError):
        led.charge("bad", -0.1)
    with pytest.raises(ValueError, match="sum to 1"):
        split_budget(1.0, {"a": 0.5, "b": 0.6})


# --------------------------------------------------------------------------------------------
# implications only in the valid direction


def test_pure_budget_is_never_met_by_zcdp() -> None:
    b = Budget.pure(1.0)
    assert b.meets("pure") and b.meets("none") and not b.meets("zcdp")
    with pytest.raises(ValueError, match="ε-DP implies ε²/2-zCDP, never the other way round"):
        b.to_native("zcdp")
    # the explicit, labelled way: the zCDP level eps-DP implies, flagged as not meeting the budget
    c = b.implied_zcdp(delta=1e-6)
    assert c.value == 0.5 and c.notion == "zcdp" and c.kwargs == {"rho": 0.5}
    assert c.meets_budget is False
    eps_dp = zcdp_to_approx(0.5, 1e-6, "cks")
    assert f"({eps_dp:.3g}, 1e-06)-DP" in c.guarantee and "NOT ε = 1-DP" in c.guarantee
    assert "does NOT meet" in c.rule


def test_every_valid_direction_exactly() -> None:
    # eps-DP => (eps, delta)-DP: a pure estimator meets an (eps, delta) budget at eps
    c = Budget.approx(0.7, 1e-6).to_native("pure")
    assert (c.value, c.meets_budget) == (0.7, True)
    # rho budget => pure estimator at eps = sqrt(2 rho), since eps-DP => eps^2/2-zCDP
    c = Budget.zcdp(0.18).to_native("pure")
    assert c.value == pytest.approx(0.6, rel=1e-15) and c.meets_budget
    assert pure_to_zcdp(c.value) == pytest.approx(0.18, rel=1e-15)
    # (eps, delta) => zCDP at the largest rho that converts to (eps, delta) (CKS)
    r = Budget.approx(1.0, 1e-6).to_native("zcdp").value
    assert zcdp_to_approx(r, 1e-6, "cks") == pytest.approx(1.0, rel=1e-9)
    assert zcdp_to_approx(r * (1 + 1e-6), 1e-6, "cks") > 1.0
    assert r >= Budget.approx(1.0, 1e-6).to_native("zcdp", "standard").value
    # and implied_zcdp under non-pure budgets is the valid conversion itself
    assert Budget.approx(1.0, 1e-6).implied_zcdp().value == r
    assert Budget.approx(1.0, 1e-6).implied_zcdp().meets_budget
    assert Budget.zcdp(0.3).implied_zcdp().value == 0.3


@given(
    total=st.floats(min_value=1e-12, max_value=1e6, allow_nan=False),
    weights=st.lists(st.floats(min_value=1e-3, max_value=1.0), min_size=2, max_size=6),
)
@example(total=1.0, weights=[1.0, 1.0, 1.0, 0.001])
def test_split_budget_parts_sum_to_the_total_exactly(total, weights):
    fractions = {f"s{i}": w / math.fsum(weights) for i, w in enumerate(weights)}
    parts = split_budget(total, fractions)
    assert list(parts) == list(fractions)
    assert math.fsum(parts.values()) == total  # exact, as Ledger.total sums
    q, last = math.ulp(total), list(fractions)[-1]
    for k, f in fractions.items():  # each part its share, rounded to a multiple of q ...
        if k != last:
            assert abs(parts[k] - total * f) <= q  # (q / 2, and total * f's own rounding)
    # ... and the last takes the remainder: the others' roundings and the fractions' own
    # (hypothesis found total = 1, weights [1, 1, 1, 0.001]: the last part 2 ulp of the total off,
    # 1.3e-12 of itself)
    slack = len(fractions) * q + total * abs(1 - math.fsum(fractions.values()))
    assert abs(parts[last] - total * fractions[last]) <= slack + q


def test_split_budget_is_exact_on_the_splits_the_estimators_use():
    plan = {"center": 0.0625, "variance": 0.1875, "radius": 0.1875, "noise": 0.5625}
    for total in (0.1, 0.3, 0.7, 1 / 3, 0.5 * math.pi, 123.456):
        assert math.fsum(split_budget(total, plan).values()) == total
        iome = {"center": 0.25, "radius": 0.75 * 0.01, "noise": 0.75 * 0.99}
        assert math.fsum(split_budget(total, iome).values()) == total
    assert split_budget(0.4, {"a": 0.0, "b": 1.0}) == {"a": 0.0, "b": 0.4}
    for bad in ({"a": -0.1, "b": 1.1}, {"a": float("nan"), "b": 1.0}, {}):
        with pytest.raises(ValueError, match="sum to 1"):
            split_budget(1.0, bad)
    with pytest.raises(ValueError, match="finite number >= 0"):
        split_budget(float("inf"), {"a": 1.0})
