"""Tables as the pages show them: readable headers with units, numbers to three significant
figures, and the row of the visitor's current setting highlighted.

The highlight is a background that reads in the light and the dark theme, a bold font, and a
marker column that says it in words ("▶ yours"), so it is never colour only. The data keeps its
own column names (a download or a test reads them); only the headers drawn change
(``column_config`` labels)::

    table, mask = conversion_table(s.budget, s.delta)
    show_table(table, mask, headers=CONVERSION_HEADERS)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from dpcore.experiments.plain import chance
from dpcore.privacy import Budget
from dpcore.theory.risk import Deployment
from dpcore.views.tables import sig3

#: The current row's style: an amber wash (transparent, so light and dark text both read on it).
HIGHLIGHT = "background-color: rgba(255, 164, 28, 0.32); font-weight: bold"
#: The marker column (first, so it stays on screen on a phone), empty but on the current row.
MARK = "current"
#: The marker's default words.
YOURS = "▶ yours"


def readable(name: str) -> str:
    """A column name as a header: words, not snake_case.

    Examples
    --------
    >>> readable("mean_regret"), readable("ρ")
    ('mean regret', 'ρ')
    """
    return str(name).replace("_", " ").strip()


def highlight_row(
    df: pd.DataFrame,
    mask: Sequence[bool] | np.ndarray | pd.Series,
    label: str = YOURS,
    *,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    mark_in: str | None = None,
) -> Styler:
    """``df`` with a first column :data:`MARK` holding ``label`` on the rows of ``mask`` (empty
    elsewhere) and those rows styled :data:`HIGHLIGHT`; numbers formatted by ``formats`` (per
    column), else :func:`sig3`. With ``mark_in``, no column is added: ``label`` follows the
    value of that column on the chosen rows (for a table that must not get wider).

    Parameters
    ----------
    df : DataFrame
        The table, one row per setting.
    mask : sequence of bool
        One per row of ``df``: the current setting's row(s).
    label : str
        The marker's words.
    formats : mapping of str to callable, optional
        Per column, how to print a cell (default :func:`sig3` for every column).
    mark_in : str, optional
        The column whose cells on the chosen rows carry ``label`` (their data unchanged).

    Returns
    -------
    Styler
        For ``st.dataframe`` (Streamlit reads the background colour and the font weight).
    """
    chosen = np.asarray(mask, dtype=bool)
    if chosen.shape != (len(df),):
        raise ValueError(f"mask must hold one bool per row ({len(df)}); got shape {chosen.shape}.")
    out = df.reset_index(drop=True)
    if mark_in is None:
        out.insert(0, MARK, np.where(chosen, label, ""))
    css = np.where(chosen[:, None], HIGHLIGHT, "").repeat(out.shape[1], axis=1)
    style = pd.DataFrame(css, index=out.index, columns=out.columns)
    fmt = {c: (formats or {}).get(str(c), sig3) for c in out.columns if c != MARK}
    styled = out.style.apply(lambda _: style, axis=None).format(fmt)
    if mark_in is not None and chosen.any():
        cell = fmt[mark_in]
        styled = styled.format(
            lambda v: f"{cell(v)}  {label}", subset=(out.index[chosen], [mark_in])
        )
    return styled


def column_labels(
    columns: Sequence[Any], headers: Mapping[str, str] | None = None, wide: str | None = None
) -> dict[str, Any]:
    """``column_config`` for ``st.dataframe``: each column's header (``headers``, else
    :func:`readable`), a narrow, unnamed marker column, and column ``wide`` drawn wide (it
    carries the marker after its value, which the automatic width does not count)."""
    out: dict[str, Any] = {
        str(c): (headers or {}).get(str(c), readable(str(c))) for c in columns if c != MARK
    }
    if MARK in columns:
        out[MARK] = st.column_config.TextColumn(" ", width="small")
    if wide is not None:
        out[wide] = st.column_config.TextColumn(out[wide], width="large")
    return out


def show_table(
    df: pd.DataFrame,
    mask: Sequence[bool] | np.ndarray | pd.Series | None = None,
    label: str = YOURS,
    *,
    headers: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    mark_in: str | None = None,
    **kwargs: Any,
) -> None:
    """Draw ``df`` with readable ``headers``, numbers to three significant figures and, when
    ``mask`` is given, its rows highlighted (:func:`highlight_row`, ``label`` in a marker column
    or after the value of column ``mark_in``); ``kwargs`` go to ``st.dataframe``
    (``hide_index`` and ``width="stretch"`` unless said otherwise)."""
    if mask is None:  # no current row: no empty marker column either
        styled = df.reset_index(drop=True).style.format(
            {c: (formats or {}).get(str(c), sig3) for c in df.columns}
        )
    else:
        styled = highlight_row(df, mask, label, formats=formats, mark_in=mark_in)
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    labels = column_labels(styled.data.columns, headers, None if mask is None else mark_in)
    st.dataframe(styled, column_config=labels, **kwargs)


# ----------------------------------------------------------------------------------------------
# the tables whose rows are settings


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


def error_headers(column: str | None) -> dict[str, str]:
    """Headers of Your data's per-estimator error table (:func:`dpcore.experiments.studies.
    your_data.summary`, renamed as the page shows it), each with its unit: a share of each
    column's range (``column=None``) or ``column``'s own units."""
    unit = "share of range" if column is None else f"{column}, its units"
    return {
        "estimator": "Estimator",
        "guarantee": "Guarantee",
        "median": f"Median error ({unit})",
        "10% of runs": "10% of runs below",
        "90% of runs": "90% of runs below",
        "ranked by": "Ranked by (miss of clipped mean)",
        "runs": "Runs",
        "library": "Peer library",
    }


#: Headers of a privacy ledger (:meth:`dpcore.privacy.Ledger.to_records`, with its estimator).
LEDGER_HEADERS = {
    "estimator": "Estimator",
    "stage": "Stage",
    "spent": "Spent",
    "unit": "Unit",
    "note": "What the stage does",
}

#: Headers of the Binary product page's round and stage tables (the estimator's diagnostics).
BINARY_HEADERS = {
    "round": "Round r",
    "u": "Cap uᵣ",
    "tau": "Threshold τᵣ",
    "size": "|Sᵣ| still in play",
    "radius": "Clip radius B",
    "sensitivity": "Sensitivity",
    "scale": "Noise scale b",
    "promoted": "Coordinates promoted",
    "rows": "Rows m",
    "truncated": "Rows truncated",
    "separation": "Separation τᵣ/b",
    "traffic light": "Separation",
    "stage": "Stage",
    "coords": "Coordinates",
    "norm": "Norm",
    "budget": "Budget (ε)",
}
