"""The Privacy budget view: a pure function of its record, each random purpose on its own named
stream (the attack, the success curve, each estimator's ledger run), never the integer seed."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import registry
from dpcore.experiments.attack import attack, attack_curve
from dpcore.views.privacy_budget import ATTACK_DRAWS, PrivacyBudgetSettings, view
from dpcore.views.settings import DataSettings, dataset

PRESETS = (0.125, 0.5, 2.0)


def _settings(**data) -> PrivacyBudgetSettings:
    return PrivacyBudgetSettings(DataSettings(n=400, d=4, **data), PRESETS)


def test_the_attack_and_the_curve_draw_from_their_own_streams() -> None:
    s = _settings(seed=3)
    v = view(s)
    streams = s.data.streams
    data = dataset(s.data)
    run = attack(data, s.data.budget, draws=ATTACK_DRAWS, rng=streams.rng("display:attack"))
    np.testing.assert_allclose(v.run.releases, run.releases, rtol=1e-12)
    curve = attack_curve(
        data, "rho", (0.125, 0.5, 2.0), draws=ATTACK_DRAWS, rng=streams.rng("display:attack-curve")
    )
    np.testing.assert_allclose(v.curve.success, curve.success, rtol=1e-12)
    # the old page seeded both with the integer seed
    seeded = attack(data, s.data.budget, draws=ATTACK_DRAWS, rng=3)
    assert not np.allclose(v.run.releases, seeded.releases)


def test_each_ledger_is_its_estimators_run_on_its_own_noise_stream() -> None:
    s = _settings(seed=1)
    v = view(s)
    assert v.names and set(v.names) <= set(v.private)
    name = v.names[0]
    est = registry.get(name).run(
        dataset(s.data), s.data.budget, rng=s.data.streams.rng(f"noise:{name}")
    )
    label = registry.get(name).label
    spent = v.ledgers[v.ledgers.estimator == label].spent.sum()
    assert spent == pytest.approx(sum(r["spent"] for r in est.ledger.to_records()), rel=1e-12)


def test_the_view_is_a_function_of_its_record() -> None:
    a, b = view(_settings(seed=5)), view(_settings(seed=5))
    np.testing.assert_allclose(a.run.releases, b.run.releases, rtol=0, atol=0)
    assert a.curve_sentence == b.curve_sentence and a.odds_sentence == b.odds_sentence
    other = view(_settings(seed=6))
    assert not np.allclose(a.run.releases, other.run.releases)


def test_show_all_lists_every_private_estimator_and_pure_eps_leaves_zcdp_out() -> None:
    few = view(_settings(unit="eps", budget_value=1.0))
    every = view(
        PrivacyBudgetSettings(
            few_settings := _settings(unit="eps", budget_value=1.0).data, PRESETS, True
        )
    )
    assert few_settings.unit == "eps"
    assert set(few.names) <= set(every.names) == set(every.private)
    assert all(registry.get(n).notion == "pure" for n in every.private)
    assert not few.zcdp_meets and "zCDP" in few.zcdp_rule


def test_the_conversion_table_marks_the_visitors_rho() -> None:
    v = view(_settings(unit="rho", budget_value=0.3))
    assert v.conversions_mine.sum() == 1
    assert v.conversions.rho[v.conversions_mine].iloc[0] == pytest.approx(0.3)
    assert v.deployments_mine.sum() == 1


def test_an_impossible_delta_is_a_value_error_naming_the_fix() -> None:
    with pytest.raises(ValueError, match="delta must be"):
        view(_settings(delta=2.0))
