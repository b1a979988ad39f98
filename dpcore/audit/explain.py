"""Plain words for the Privacy audit page: the claim checked, and the calibration table stage by stage.

Nothing here computes a privacy quantity; it phrases what :func:`dpcore.audit.audit` and
:func:`dpcore.audit.calibration` return, so the page only reads settings, calls dpcore
and draws.

Examples
--------
>>> from dpcore.audit import calibration
>>> calibration_lines(calibration("simplex_gauss"))[0]
'simplex release: noise as required (ratio 1.00), charges ρ = 0.5'
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from dpcore.audit._calibration import problems
from dpcore.audit.estimate_loss import AuditResult, native_budget
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget

_UNIT = {"zcdp": "ρ", "rho": "ρ", "pure": "ε", "eps": "ε"}


def claim_lines(spec: EstimatorSpec, budget: Budget, r: AuditResult) -> tuple[str, str]:
    """The claim audited (native) and, second, how the sidebar's budget became it."""
    native = native_budget(spec, budget)
    conv = budget.to_native(spec.notion)
    first = f"Audited claim: {r.claim.describe()}, {spec.neighbouring} neighbours."
    if spec.spend_factor != 1.0:
        first += f" (This reproduction spends {spec.spend_factor:g}× its budget: {native}.)"
    second = (
        f"Sidebar budget {budget}: {spec.label} is {spec.notion} DP natively, so it runs at "
        f"{conv.rule}."
    )
    return first, second


def _row_words(row: Any, unit: str) -> str:
    if row.stage == "unledgered":
        return f"noise drawn outside the ledger: {row.mechanism} (not checked)"
    ratio = float(row.ratio)
    charge = f"charges {unit} = {float(row.charged):.3g}"
    if math.isnan(ratio):
        return f"{row.stage}: noise not recorded by a mechanism, so not checked; {charge}"
    if math.isclose(ratio, 1.0, rel_tol=1e-9):
        return f"{row.stage}: noise as required (ratio {ratio:.2f}), {charge}"
    if ratio < 1.0:
        return f"{row.stage}: too little noise, {ratio:.2f} of what its charge requires; {charge}"
    return f"{row.stage}: more noise than its charge requires (ratio {ratio:.2f}); {charge}"


def calibration_lines(tab: pd.DataFrame) -> list[str]:
    """One sentence per stage of a calibration table, then one for the total."""
    unit = _UNIT.get(str(tab.attrs.get("unit", "")), str(tab.attrs.get("unit", "")))
    out = [_row_words(row, unit) for row in tab.itertuples(index=False)]
    declared, total = tab.attrs.get("declared"), tab.attrs.get("total")
    if declared is not None and total is not None:
        adds = math.isclose(total, declared, rel_tol=1e-9, abs_tol=1e-15)
        out.append(
            f"in all the stages charge {unit} = {total:.4g}; the declared budget is {declared:.4g}"
            + (": they add up" if adds else ": they do NOT add up")
        )
    moved = tab["moved"].dropna() if "moved" in tab else tab["ratio"].iloc[:0]
    if len(moved):
        worst = float(moved.max())
        out.append(
            "sensitivity probe (worst-case neighbours, same randomness): the largest move of a "
            f"stage's input is {worst:.2f} of the sensitivity it declares"
            + (": within it" if worst <= 1.0 + 1e-9 else ": BEYOND it")
        )
    return out


def calibration_verdict(tab: pd.DataFrame) -> str:
    """One sentence: every stage calibrated, or how many problems the check finds."""
    found = problems(tab)
    if not found:
        return (
            "Every stage draws exactly the noise its charge requires, the charges add up, and no "
            "stage's input moves beyond the sensitivity it declares on a worst-case neighbour."
        )
    return f"The calibration check flags {len(found)} problem(s): " + "; ".join(found)


def parts_table(r: AuditResult) -> pd.DataFrame:
    """The audit's parts (the whole entry, each stage): method, claim, bound, verdict."""
    return pd.DataFrame(
        [
            {
                "what was audited": p.method,
                "claim": p.claim.describe(),
                "audited bound": f"{p.claim.measure}̂ = {p.lower:.3f}",
                "pair": f"{p.pair.label} [{p.pair.cell}]",
                "verdict": "caught" if p.violated else "no violation found",
            }
            for p in (r.parts or (r,))
        ]
    )
