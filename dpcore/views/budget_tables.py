"""The Privacy budget page's tables whose rows are settings: the conversion table (one row per ρ)
and the published deployments beside the visitor's budget, each with the row of the visitor's own
setting (the page highlights it). Pure functions of a budget; headers in words.

References: ``docs/reference-budgets.md`` (the deployments), ``docs/architecture.md`` (Data flow).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpcore.experiments.plain import chance
from dpcore.privacy import Budget
from dpcore.theory.risk import Deployment

__all__ = [
    "CONVERSION_RHOS",
    "DEPLOYMENT_HEADERS",
    "conversion_headers",
    "conversion_table",
    "current_rho",
    "deployments_table",
]


def current_rho(budget: Budget) -> float:
    """The ρ a budget stands at on a ρ scale: :meth:`dpcore.privacy.Budget.implied_zcdp` (ρ itself,
    ε²/2 for a pure ε, the largest ρ that converts to an ``(ε, δ)`` budget)."""
    return float(budget.implied_zcdp().value)


#: The ρ values of the Privacy budget page's conversion table.
CONVERSION_RHOS = (0.01, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0)


def conversion_table(budget: Budget, delta: float) -> tuple[pd.DataFrame, np.ndarray]:
    """The conversion table (one row per ρ, the visitor's own ρ among them) and its current row.

    Columns: ``rho``, ``eps_standard`` and ``eps_cks`` (the ε of ``(ε, delta)``-DP that ρ-zCDP
    implies, by the standard bound and by Canonne–Kamath–Steinke) and ``eps_pure`` (the pure ε
    with the same ρ, ``√(2ρ)``); :func:`conversion_headers` names them.
    """
    mine = current_rho(budget)
    rhos = sorted({*CONVERSION_RHOS, *(r for r in [mine] if not _on_grid(r))})
    table = pd.DataFrame(
        {
            "rho": rhos,
            "eps_standard": [Budget.zcdp(r).to_approx(delta, "standard")[0] for r in rhos],
            "eps_cks": [Budget.zcdp(r).to_approx(delta, "cks")[0] for r in rhos],
            "eps_pure": [math.sqrt(2 * r) for r in rhos],
        }
    )
    return table, np.isclose(table["rho"].to_numpy(), mine, rtol=1e-9, atol=0)


def _on_grid(rho: float) -> bool:
    return any(math.isclose(rho, r, rel_tol=1e-9) for r in CONVERSION_RHOS)


def conversion_headers(delta: float) -> dict[str, str]:
    """The conversion table's headers, its δ in words."""
    d = chance(delta)
    return {
        "rho": "ρ (zCDP)",
        "eps_standard": f"ε at δ = {d}, standard bound",
        "eps_cks": f"ε at δ = {d}, Canonne–Kamath–Steinke",
        "eps_pure": "pure ε with the same ρ (√(2ρ))",
    }


#: The reference-budgets table's headers.
DEPLOYMENT_HEADERS = {
    "who": "Who",
    "what": "What was released",
    "published": "Budget published",
    "epsilon": "ε as an odds bound",
    "model": "Model (central or local)",
    "protects": "Protects",
    "source": "Source",
}


def deployments_table(
    rows: Sequence[tuple[Deployment, float, float]], budget: Budget, epsilon: float
) -> tuple[pd.DataFrame, np.ndarray]:
    """Published deployments (:func:`dpcore.theory.risk.deployments_on_scale`) and the visitor's
    ``budget`` (read as ``epsilon``) in one table, smallest ε first, and the visitor's row."""
    published = [
        {
            "who": d.who,
            "what": d.what,
            "published": d.label(),
            "epsilon": eps,
            "model": d.model,
            "protects": d.per,
            "source": d.source,
        }
        for d, eps, _ in rows
    ]
    yours = {
        "who": "You",
        "what": "this page's budget",
        "published": str(budget),
        "epsilon": float(epsilon),
        "model": "central",
        "protects": "one row of the data",
        "source": "the sidebar",
    }
    table = pd.DataFrame([*published, yours])
    mine = np.arange(len(table)) == len(published)
    order = np.argsort(table["epsilon"].to_numpy(), kind="stable")
    return table.iloc[order].reset_index(drop=True), mine[order]
