"""Stage-by-stage audits of multi-stage estimators, with the other stages' public outputs fixed.

A black-box audit of a whole multi-stage estimator has little power: on a tiny worst-case pair the
private centre, variances, radius or interval vary from run to run and hide a noise error in the
final release. Given the earlier stages' outputs, though, the final stage is one mechanism of known
form, private on its own at the budget its ledger line charges; fixing those outputs to public
values (which a stage's guarantee must hold for) and auditing that stage alone has full power:

* **PLAN's final noisy sum** (PLAN family): :func:`dpcore.estimators.plan.plan_core` at a fixed
  centre 0, variances 1 and clip radius 1, on rows far on either side of the centre (so the
  changed row's clipped contribution flips from ``+C·u`` to ``−C·u``, the full ℓ2 sensitivity
  ``2C``). A Gaussian release, so audited against ``μ = √(2ρ_noise)``.
* **PMWM's winsorized mean** (``pmwm``, ``pmwm_zcdp``):
  :func:`dpcore.estimators.winsorized.noisy_winsorized_mean` at a fixed interval ``[0, 1]`` on the
  box pairs: Laplace (pure ε₃) or Gaussian (``μ = √(2ρ₃)``).

The stage's budget is read off the entry's own ledger at the audited budget (the line named
:attr:`StageAudit.ledger_stage`), so the audit checks the split the entry really uses. Together
with the white-box :func:`dpcore.audit.calibration` check of every stage's noise
against its charge, this covers what the black box cannot see.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import mechanisms, registry
from dpcore.audit.neighbours import NeighbourPair, pairs_for
from dpcore.audit.runners import Runner
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget, Ledger

#: Rows of the PLAN stage pairs sit this far from the fixed centre, per coordinate.
PLAN_ROW = 5.0
#: The stage pairs' grid (a stage at fixed inputs has nothing that changes with n or d but the
#: sensitivity, so two of each suffice).
STAGE_N = (2, 200)
STAGE_D = (1, 4)


@dataclass(frozen=True)
class StageAudit:
    """One stage audited on its own.

    Attributes
    ----------
    key, label : str
        Identifier and a phrase for tables ("PLAN's final noisy sum at a fixed centre and radius").
    ledger_stage : str
        Prefix of the entry's ledger stage that charges this stage's budget.
    notion : {"pure", "zcdp"}
    gaussian : bool
        A Gaussian release (audited against ``μ = √(2ρ)``).
    pairs : callable
        ``pairs(n, d) -> list of NeighbourPair`` for the stage.
    runner : callable
        ``runner(spec, pair, amount) -> Runner`` running the stage at ``amount`` (ε or ρ).
    """

    key: str
    label: str
    ledger_stage: str
    notion: str
    gaussian: bool
    pairs: Callable[[int, int], list[NeighbourPair]]
    runner: Callable[[EstimatorSpec, NeighbourPair, float], Runner]

    def grid(self, ns: Sequence[int] = STAGE_N, ds: Sequence[int] = STAGE_D) -> list[NeighbourPair]:
        """The stage's pairs over ``n`` in ``ns`` and ``d`` in ``ds``."""
        return [p for n in ns for d in ds for p in self.pairs(int(n), int(d))]


def _call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``func`` with the keywords it names (a stage helper's signature may gain or lose its
    ``ledger``), inside a ledger stage so a mechanism has somewhere to write."""
    named = inspect.signature(func).parameters
    kw = {k: v for k, v in kwargs.items() if k in named}
    with mechanisms.stage(Ledger(kwargs.get("notion", "zcdp")), "audited stage"):
        return func(*args, **kw)


def _plan_pairs(n: int, d: int) -> list[NeighbourPair]:
    a = PLAN_ROW
    plus, minus = np.full((n, d), a), np.full((n, d), -a)
    lab = f"{n} rows at {{}}{a:g} in d = {d} (centre 0, radius 1); D′ moves the last to {{}}{a:g}"
    return [
        NeighbourPair(
            "flip-down",
            lab.format("+", "−"),
            plus,
            np.vstack([plus[:-1], minus[:1]]),
            "replace-one",
            (-a, a),
        ),
        NeighbourPair(
            "flip-up",
            lab.format("−", "+"),
            minus,
            np.vstack([minus[:-1], plus[:1]]),
            "replace-one",
            (-a, a),
        ),
    ]


def _plan_runner(spec: EstimatorSpec, pair: NeighbourPair, amount: float) -> Runner:
    from dpcore.estimators.plan import plan_core

    d = pair.d

    def run(x: np.ndarray, g: np.random.Generator) -> np.ndarray:
        core = _call(plan_core, x, np.zeros(d), np.ones(d), 1.0, rho_noise=amount, rng=g)
        return np.asarray(core.mean, float)

    return run


def _pmwm_pairs(n: int, d: int) -> list[NeighbourPair]:
    return pairs_for("replace-one", n=n, d=d, bounds=(0.0, 1.0))


def _pmwm_runner(spec: EstimatorSpec, pair: NeighbourPair, amount: float) -> Runner:
    from dpcore.estimators.winsorized import noisy_winsorized_mean

    d = pair.d
    lo, hi = np.zeros(d), np.ones(d)
    notion = spec.notion
    mean_noise = spec.params.get("mean_noise", "joint")

    def run(x: np.ndarray, g: np.random.Generator) -> np.ndarray:
        out = _call(
            noisy_winsorized_mean,
            x,
            lo,
            hi,
            notion=notion,
            mean_noise=mean_noise,
            budget=amount,
            ledger=Ledger(notion),
            rng=g,
        )
        return np.asarray(out.mean, float)

    return run


PLAN_STAGE = StageAudit(
    "plan-noisy-sum",
    "PLAN's final noisy sum at a fixed centre and radius",
    "noisy sum",
    "zcdp",
    True,
    _plan_pairs,
    _plan_runner,
)


def _pmwm_stage(spec: EstimatorSpec) -> StageAudit:
    return StageAudit(
        "pmwm-mean",
        "PMWM's winsorized mean at a fixed interval [0, 1]",
        "winsorized mean",
        spec.notion,
        spec.notion == "zcdp",
        _pmwm_pairs,
        _pmwm_runner,
    )


def stages_for(spec: EstimatorSpec) -> list[StageAudit]:
    """The stage audits that apply to ``spec`` (empty for a one-stage estimator)."""
    if spec.family == "PLAN":
        return [PLAN_STAGE]
    if spec.func.__name__ in ("winsorized_mean", "winsorized_mean_zcdp"):
        return [_pmwm_stage(spec)]
    return []


def stage_amount(
    spec: EstimatorSpec, stage: StageAudit, budget: Budget, overrides: dict[str, Any]
) -> float:
    """The budget (ε or ρ) the entry's ledger charges ``stage`` at ``budget``.

    Raises
    ------
    ValueError
        If the entry's ledger has no stage of that name.
    """
    from dpcore.audit._calibration import default_data

    est = registry.get(spec.name).run(default_data(spec.name), budget, rng=0, **overrides)
    amounts = [v for k, v in est.ledger.by_stage().items() if k.startswith(stage.ledger_stage)]
    if not amounts:
        raise ValueError(f"{spec.name}'s ledger has no stage {stage.ledger_stage!r}.")
    return float(sum(amounts))


def stage_budget(stage: StageAudit, amount: float, noise: float = 1.0) -> float:
    """The amount that multiplies the stage's noise by ``noise``: ``ε/noise`` or ``ρ/noise²``."""
    return amount / noise if stage.notion == "pure" else amount / noise**2
