"""The full audit profile (``make audit``, ``python -m dpcore.audit``): a table per estimator and the
power table of the broken families.

* **Estimators**: every private registered entry at ``ε = 1`` (pure) or ``ρ = 0.5`` (zCDP), at
  :func:`dpcore.audit.audit`'s default settings (OpenDP's peers, at 10-200 ms a call, on the quick
  grid with fewer draws), then the private-bounds path and some public overrides.
* **Power**: each broken family audited ``reps`` times (seeds ``0..reps-1``, cycling over the
  family's members), and how often it was caught (by the black box or a stage audit, or flagged by
  the calibration check).

A single estimator, registered or your own, is audited with ``python -m dpcore.audit TARGET``:
``TARGET`` is a registry name or ``module:attribute`` naming an
:class:`~dpcore.estimate.EstimatorSpec` (the module importable from the current directory). It
runs :func:`dpcore.audit.audit` with the calibration check and its sensitivity probe, and exits
with status 1 when the audit catches a violation or the check flags a stage.

Examples
--------
``python -m dpcore.audit --reps 20`` (the full profile, about an hour on one core);
``python -m dpcore.audit --reps 5 --draws 1000 --only power`` (a reduced run);
``python -m dpcore.audit my_estimators:my_spec --rho 0.5 --grid quick`` (a custom estimator).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence
from typing import Any

from dpcore import registry
from dpcore.audit._calibration import default_budget
from dpcore.audit.broken import resolve
from dpcore.audit.estimate_loss import AuditResult, audit
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget

PURE = Budget.pure(1.0)
ZCDP = Budget.zcdp(0.5)

#: Broken family -> (members as (name, variant, budget)).
FAMILIES: dict[str, list[tuple[str, str, Budget]]] = {
    "no clamp": [("broken_no_clamp", "honest", PURE)],
    "full ε per coordinate": [("broken_full_eps_per_coordinate", "honest", PURE)],
    "exact mean for n ≥ 20": [("broken_exact_mean_large_n", "honest", PURE)],
    "sensitivity understated (box from the data, unclipped stage, Δu = 0.5)": [
        ("broken_data_box", "honest", PURE),
        ("broken_unclipped_second_stage", "honest", PURE),
        ("broken_low_utility_sensitivity", "honest", PURE),
    ],
    "30% noise cut, one-stage Laplace": [
        ("clipped_laplace", "noise_cut", PURE),
        ("sum_known_n_laplace_replace", "noise_cut", PURE),
    ],
    "30% noise cut, one-stage Gaussian": [
        ("gaussian_public", "noise_cut", ZCDP),
        ("clipped_box_zcdp", "noise_cut", ZCDP),
        ("simplex_gauss", "noise_cut", ZCDP),
    ],
    "30% noise cut, PLAN's final stage": [("plan", "noise_cut", ZCDP)],
    "30% noise cut, PMWM's mean stage": [
        ("pmwm", "noise_cut", PURE),
        ("pmwm_zcdp", "noise_cut", ZCDP),
    ],
    "noise halved (PLAN, PMWM, IOME, WWM)": [
        ("plan", "noise_halved", ZCDP),
        ("pmwm", "noise_halved", PURE),
        ("iome_paper", "noise_halved", ZCDP),
        ("wwm_smith", "noise_halved", PURE),
    ],
}
#: Public overrides audited in the profile (entry, overrides).
OVERRIDES: list[tuple[str, dict[str, Any]]] = [
    ("gaussian_public", {"radius": 0.25}),
    ("pmwm_zcdp", {"mean_noise": "per_coordinate"}),
    ("wwm_smith", {"widen": 2.0}),
    ("plugin_laplace", {"split": 0.8}),
    ("sa_pmwm", {"statistic": "median"}),
]
#: Entries audited through the private-bounds path of the Your data page.
PRIVATE_BOUNDS = ("clipped_laplace", "gaussian_public", "pmwm")


def _fmt(r: AuditResult) -> str:
    cal = (
        "—" if r.calibration is None else ("ok" if not r.calibration else "; ".join(r.calibration))
    )
    return (
        f"| {r.estimator} | {r.claim.describe()} | {r.method} | {r.claim.measure}̂ = "
        f"{r.lower:.3f} | {r.pair.key}, {r.pair.cell}, T = {r.event.statistic} | {cal[:90]} | "
        f"{r.verdict} |"
    )


HEADER = (
    "| estimator | claim | method | audited bound | pair, statistic | calibration | verdict |\n"
    "|---|---|---|---|---|---|---|"
)


def estimator_table(draws: int, out: Any = sys.stdout) -> None:
    """Audit every private registered entry, then the private-bounds path and the overrides."""
    print("## Every registered estimator (ε = 1 or ρ = 0.5, confidence 0.99)\n", file=out)
    print(HEADER, file=out, flush=True)
    for spec in registry.all_estimators():
        if spec.notion == "none":
            continue
        budget = PURE if spec.notion == "pure" else ZCDP
        kw: dict[str, Any] = {"draws": draws}
        if spec.name.startswith("peer_opendp"):
            kw = {"draws": 200, "screen": 100, "grid": "quick"}
        print(_fmt(audit(spec.name, budget, rng=0, **kw)), file=out, flush=True)
    print("\n## The private-bounds path (Your data) and public overrides\n", file=out)
    print(HEADER, file=out, flush=True)
    for name in PRIVATE_BOUNDS:
        budget = PURE if registry.get(name).notion == "pure" else ZCDP
        r = audit(name, budget, path="private bounds", draws=draws, grid="small", rng=0)
        print(_fmt(r).replace(f"| {name} |", f"| {name} (private bounds) |"), file=out, flush=True)
    for name, over in OVERRIDES:
        budget = PURE if registry.get(name).notion == "pure" else ZCDP
        r = audit(name, budget, overrides=over, draws=draws, rng=0)
        print(_fmt(r).replace(f"| {name} |", f"| {name} {over} |"), file=out, flush=True)


def power_table(reps: int, draws: int, out: Any = sys.stdout) -> None:
    """Each broken family audited ``reps`` times at the default settings: caught k/N."""
    print(f"\n## Power: caught k/N per broken family ({reps} audits each)\n", file=out)
    print("| family | caught | of which by the calibration check only | bounds seen |", file=out)
    print("|---|---|---|---|", file=out, flush=True)
    for family, members in FAMILIES.items():
        caught = cal_only = 0
        seen = []
        for seed in range(reps):
            name, variant, budget = members[seed % len(members)]
            r = audit(name, budget, variant=variant, draws=draws, rng=seed)
            caught += r.verdict != "no violation found"
            cal_only += r.verdict == "calibration flags"
            seen.append(f"{r.lower / r.claim.value:.2f}")
        print(
            f"| {family} | {caught}/{reps} | {cal_only} | bound/claim: {', '.join(seen)} |",
            file=out,
            flush=True,
        )


def load_spec(target: str) -> EstimatorSpec:
    """The estimator ``target`` names: a registry (or broken-on-purpose) name, or
    ``module:attribute`` for an :class:`~dpcore.estimate.EstimatorSpec` of your own."""
    if ":" not in target:
        return resolve(target)
    module, attribute = target.split(":", 1)
    if "" not in sys.path:
        sys.path.insert(0, "")  # a module next to where the command runs
    spec = getattr(importlib.import_module(module), attribute)
    if not isinstance(spec, EstimatorSpec):
        raise ValueError(f"{target} is a {type(spec).__name__}, not a dpcore EstimatorSpec.")
    return spec


def audit_one(target: str, budget: Budget | None, draws: int, grid: str | None, out: Any) -> int:
    """Audit one estimator (calibration and probe included): status 1 when anything is caught,
    2 when it cannot be audited (the reason is printed)."""
    try:
        spec = load_spec(target)
        r = audit(spec, budget or default_budget(spec), draws=draws, grid=grid, rng=0)
    except (ValueError, ImportError, AttributeError) as err:
        print(f"cannot audit {target}: {err}", file=out)
        return 2
    for key, value in r.summary().items():
        print(f"{key}: {value}", file=out)
    return 0 if r.verdict == "no violation found" else 1


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dpcore.audit [TARGET] [--reps N] [--draws M] [--only estimators|power]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "target", nargs="?", help="one estimator: a registry name or module:attribute (a spec)"
    )
    ap.add_argument("--epsilon", type=float, help="pure budget of a TARGET audit")
    ap.add_argument("--rho", type=float, help="zCDP budget of a TARGET audit")
    ap.add_argument("--grid", choices=["default", "small", "quick"], help="pairs of a TARGET audit")
    ap.add_argument("--reps", type=int, default=20, help="audits per broken family")
    ap.add_argument("--draws", type=int, default=2000, help="evaluation draws per data set")
    ap.add_argument("--only", choices=["estimators", "power"], default=None)
    args = ap.parse_args(argv)
    if args.target is not None:
        budget = (
            Budget.pure(args.epsilon)
            if args.epsilon is not None
            else Budget.zcdp(args.rho)
            if args.rho is not None
            else None
        )
        return audit_one(args.target, budget, args.draws, args.grid, sys.stdout)
    t0 = time.perf_counter()
    if args.only != "power":
        estimator_table(args.draws)
    if args.only != "estimators":
        power_table(args.reps, args.draws)
    print(f"\n(ran in {time.perf_counter() - t0:.0f} s)")
    return 0
