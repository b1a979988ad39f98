"""The sensitivity probe of the calibration check, custom estimators, and the README's call."""

import dataclasses
import math

import pytest

from dpcore import registry
from dpcore.audit import BROKEN_SPECS, audit, calibration, gaussian_ledger, problems
from dpcore.audit.broken import PROBE_CATCHES
from dpcore.audit.profile import main
from dpcore.privacy import Budget

PURE, ZCDP = Budget.pure(1.0), Budget.zcdp(0.5)
PRIVATE = [s.name for s in registry.all_estimators() if s.notion != "none"]


def test_readme_call_works_after_the_submodules_are_imported():
    import dpcore.audit
    import dpcore.audit.explain  # noqa: F401  (imports the calibration code)

    tab = dpcore.audit.calibration("clipped_laplace", Budget.pure(1.0))
    assert list(tab["ratio"].round(12)) == [1.0] and dpcore.audit.problems(tab) == []


@pytest.mark.parametrize("name", PROBE_CATCHES)
def test_the_probe_catches_a_wrong_declared_sensitivity(name):
    """Each of these draws exactly the noise its declared sensitivity asks for (ratio 1), so only
    the probe can see that the declaration is wrong."""
    tab = calibration(name)
    assert all(math.isclose(r, 1.0, rel_tol=1e-9) for r in tab["ratio"])
    found = problems(tab)
    assert any("sensitivity" in p for p in found), found
    assert tab["moved"].max() > 1.0


def _small(name):
    """n = 300 rows in d = 1 (binary entries: d = 2), the audit's second setting."""
    from dpcore.data import binary_product, generate

    spec = registry.get(name)
    if spec.data_kinds == {"binary"}:
        return binary_product(300, 2, rng=1)
    return generate("bounded", n=300, d=1, rng=1) if spec.needs_dimension != "vector" else None


@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize("name", PRIVATE)
def test_the_probe_passes_every_honest_entry(name, small):
    tab = calibration(name, data=_small(name) if small else None)
    assert problems(tab) == []
    moved = tab["moved"].dropna()
    assert (moved <= 1.0 + 1e-9).all()
    drawn_here = bool(tab.attrs["probe"])  # peers draw in another library: nothing to probe
    assert drawn_here or registry.get(name).family == "peers"


def test_a_custom_spec_is_audited_with_calibration():
    spec = dataclasses.replace(BROKEN_SPECS["broken_low_utility_sensitivity"], name="my_median")
    r = audit(spec, PURE, draws=200, grid="quick", rng=0)
    assert r.calibration is not None and r.flagged
    assert any("0.5" in line or "sensitivity" in line for line in r.calibration)


def test_the_gaussian_claim_is_read_from_the_ledger():
    mine = dataclasses.replace(registry.get("gaussian_public"), name="my_gaussian")
    assert gaussian_ledger(mine, ZCDP, {})
    r = audit(mine, ZCDP, draws=200, grid="quick", stages=False, rng=0)
    assert r.claim.measure == "μ" and r.claim.value == pytest.approx(1.0)
    assert not gaussian_ledger(registry.get("plan"), ZCDP, {})


def test_a_custom_estimator_from_the_command_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_estimators.py").write_text(
        "import dataclasses\n"
        "from dpcore.audit.broken import BROKEN_SPECS\n"
        "spec = dataclasses.replace(BROKEN_SPECS['broken_unclipped_second_stage'], name='mine')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    status = main(["my_estimators:spec", "--epsilon", "1", "--grid", "quick", "--draws", "200"])
    out = capsys.readouterr().out
    assert status == 1
    assert "estimator: mine" in out and "moved its input" in out
    assert main(["my_estimators:nothing", "--draws", "200"]) == 2


def _input(kind, value, sensitivity, scale, columns=1):
    import numpy as np

    from dpcore.mechanisms import StageInput

    return StageInput(
        "s", kind, np.array(value, float), np.array(sensitivity), np.array(scale), columns
    )


@pytest.mark.parametrize(
    ("kind", "before", "after", "sensitivity", "scale", "columns", "want"),
    [
        ("laplace", [0.0, 0.0], [0.3, -0.1], 0.5, 2.0, 1, 0.8),  # ‖δ‖₁ / Δ
        ("laplace", [0.0, 0.0], [0.3, -0.3], [0.3, 0.6], [0.6, 1.2], 2, 0.75),  # Σ|δ|/b / Σ Δ/b
        ("gaussian", [0.0, 0.0], [0.3, 0.4], 1.0, 3.0, 1, 0.5),  # ‖δ‖₂ / Δ
        ("exponential", [[0.0, 0.0]], [[2.0, -2.0]], 0.5, 2.0, 1, 2.0),  # max|δu| / Δu
        ("above_threshold", [5.0, 6.0], [6.0, 6.0], 1.0, 1.0, 1, 1.0),  # max|δ| / 1
    ],
)
def test_movement_in_each_mechanisms_norm(kind, before, after, sensitivity, scale, columns, want):
    from dpcore.audit.probe import movement

    a = _input(kind, before, sensitivity, scale, columns)
    b = _input(kind, after, sensitivity, scale, columns)
    assert movement(a, b) == pytest.approx(want, rel=1e-12)
