"""The experiment's budget is one value: a config file holds ``{unit, value, delta}``, older flat
files still load, tasks carry the config itself, and each (setting, estimator) converts its budget
to the estimator's notion once."""

from __future__ import annotations

import json

import pytest

from dpcore.experiments import ExperimentConfig
from dpcore.experiments.config import shipped_configs
from dpcore.experiments.engine import plan_tasks, run
from dpcore.privacy import Budget


def _cfg(**more: object) -> ExperimentConfig:
    values: dict = dict(
        n=200, d=2, budget=1.0, unit="eps_delta", delta=1e-5, estimators=["pmwm", "plan"]
    )
    values.update(more)
    return ExperimentConfig(**values)


def test_a_config_file_holds_the_budget_as_one_object_and_reads_it_back() -> None:
    cfg = _cfg()
    data = json.loads(cfg.to_json())
    assert data["budget"] == {"unit": "eps_delta", "value": 1.0, "delta": 1e-5}
    assert "unit" not in data and "delta" not in data
    assert ExperimentConfig.from_json(cfg.to_json()) == cfg
    assert cfg.base_budget == Budget.approx(1.0, 1e-5)
    assert cfg.budget_at(0.25) == Budget.approx(0.25, 1e-5)


def test_older_flat_configs_still_load() -> None:
    flat = json.dumps(_cfg().to_dict())
    assert ExperimentConfig.from_json(flat) == _cfg()
    assert set(shipped_configs()) == {"binary", "gaussian_a", "gaussian_b", "gaussian_c"}


def test_a_budget_object_beside_flat_keys_or_with_unknown_keys_is_refused() -> None:
    data = json.loads(_cfg().to_json())
    with pytest.raises(ValueError, match="inside the budget object only"):
        ExperimentConfig.from_dict({**data, "unit": "rho"})
    with pytest.raises(ValueError, match="budget must be a number or an object"):
        ExperimentConfig.from_dict({**data, "budget": {"unit": "rho", "rho": 0.5}})


def test_tasks_carry_the_config_and_its_conversions() -> None:
    cfg = _cfg(sweep={"budget": [0.5, 1.0]}, repetitions=3)
    tasks, _ = plan_tasks(cfg)
    assert len(tasks) == 3
    assert all(t["config"] is cfg for t in tasks)
    conv = tasks[0]["conversions"]
    assert set(conv) == {(i, e) for i in (0, 1) for e in ("pmwm", "plan")}
    assert conv[1, "plan"] == Budget.approx(1.0, 1e-5).to_native("zcdp", "cks")
    assert all(t["conversions"] is conv for t in tasks)


def test_each_setting_and_estimator_converts_its_budget_once(monkeypatch) -> None:
    calls: list[tuple[Budget, str]] = []
    original = Budget.to_native

    def counted(self: Budget, notion: str, method: str = "cks"):  # type: ignore[no-untyped-def]
        calls.append((self, notion))
        return original(self, notion, method)  # type: ignore[arg-type]

    monkeypatch.setattr(Budget, "to_native", counted)
    frame = run(_cfg(sweep={"budget": [0.5, 1.0]}, repetitions=3))
    assert len(frame) == 2 * 2 * 3 and not frame["failed"].astype(bool).any()
    assert len(calls) == 2 * 2  # settings x estimators, not x repetitions
