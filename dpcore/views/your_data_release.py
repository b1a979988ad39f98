"""Your data's Release mode as pure functions: which estimators can release the chosen columns at
the sidebar's budget, why nothing can be released, which releases form one series, and what the
panel shows of a series (the combination's table, sentences and code). The release itself is not
here: ``pages/_your_data_release.py`` runs :func:`dpcore.release.release` once per click, unseeded
(the OS CSPRNG), charged to the file's odometer (:mod:`dpcore.odometer`), exactly as
``docs/release.md`` describes. Nothing here reads a data value: only public parameters and the
outputs of charged releases.

References: ``docs/release.md``, ``docs/architecture.md`` (Data flow).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore.data.dataset import Dataset
from dpcore.experiments.plain import plus_minus
from dpcore.figures.your_data import accuracy_sentence, is_money, remeasure_table
from dpcore.privacy import Budget
from dpcore.release import Release, refusal
from dpcore.remeasure import Combined, composition
from dpcore.views.settings import DataSettings

__all__ = [
    "DROPPED",
    "RELEASE_DEFAULTS",
    "Combination",
    "Inputs",
    "ReleasePanel",
    "accuracy_lines",
    "certificate_json",
    "combination",
    "failed",
    "n_public_help",
    "panel",
    "release_budget",
    "release_code",
    "release_kwargs",
    "series_key",
    "series_paragraph",
]

#: The estimator a release starts from, by preference (one clipping stage per column).
RELEASE_DEFAULTS = ("clipped_laplace", "clipped_box_zcdp", "plan", "pmwm")


@dataclass(frozen=True)
class Inputs:
    """What the page's form decided: the data, its columns, how the bounds were chosen, the raw
    input (a bundled set's name or the file's bytes) and the rows with missing values."""

    data: Dataset
    columns: list[str]
    mode: str
    share: float | None
    quantiles: tuple[float, float]
    raw: object
    missing: int
    drop_nan: bool = False

    @property
    def dropping(self) -> bool:
        """Whether rows with a blank in the chosen columns are dropped before the release (the
        page's visible choice, stated in what is published without the number)."""
        return bool(self.missing and self.drop_nan)

    def frame(self) -> pd.DataFrame:
        """The chosen columns as the release reads them."""
        return pd.DataFrame(self.data.x, columns=self.columns)


def release_budget(s: DataSettings) -> Budget | None:
    """The sidebar budget as a release counts it (ε or ρ), or None for an (ε, δ) budget.

    Examples
    --------
    >>> str(release_budget(DataSettings(unit="eps", budget_value=1.0)))
    'ε = 1 (pure DP)'
    >>> release_budget(DataSettings(unit="eps_delta", budget_value=1.0)) is None
    True
    """
    if s.unit == "eps":
        return Budget.pure(s.budget_value)
    if s.unit == "rho":
        return Budget.zcdp(s.budget_value)
    return None


def refused(inp: Inputs, b: Budget | None) -> str | None:
    """Why nothing can be released with these inputs, or None."""
    if inp.mode == "data":
        return (
            "Bounds read off the data are not private: choose typed or privately estimated bounds "
            "for a release. Nothing was released."
        )
    if inp.missing and not inp.drop_nan:
        return (
            f'{inp.missing:,} rows have missing values (NaN) in these columns: tick "Drop the '
            'rows with missing values" above (the certificate then says that rows with blanks '
            "were dropped, never how many) or clean the file. Nothing was released and nothing "
            "was charged."
        )
    if b is None:
        return "A release counts ε or ρ: give the sidebar budget as ε or ρ. Nothing was released."
    return None


@dataclass(frozen=True)
class ReleasePanel:
    """The panel before any click: the budget of one release, why nothing can be released (or
    None), and the estimators that can release (names, labels, the one chosen first)."""

    budget: Budget | None
    refused: str | None
    names: tuple[str, ...]
    labels: dict[str, str]
    default: str | None
    relations: dict[str, str] = field(default_factory=dict)


def panel(inp: Inputs, s: DataSettings) -> ReleasePanel:
    """The release panel of ``inp`` at the sidebar's settings ``s``."""
    b = release_budget(s)
    why = refused(inp, b)
    if why is not None or b is None:
        return ReleasePanel(b, why, (), {}, None)
    capable = [
        sp
        for sp in registry.applicable(inp.data.kind, inp.data.d, peers=True)
        if refusal(sp) is None
        and sp.meets(b)
        # rows dropped: the number left depends on the data, so it cannot be declared public
        and not (inp.dropping and str(sp.neighbouring) == "replace-one")
    ]
    if not capable:
        why = f"No estimator can release these columns at {b}. Nothing was released."
        return ReleasePanel(b, why, (), {}, None)
    names = tuple(sp.name for sp in capable)
    first = [n for n in RELEASE_DEFAULTS if n in names] or list(names)  # a box clipper first
    labels = {sp.name: sp.label for sp in capable}
    relations = {sp.name: str(sp.neighbouring) for sp in capable}
    return ReleasePanel(b, None, names, labels, first[0], relations)


#: The rule every release of this page publishes about blanks: stated whether or not the file
#: had any (a statement only when it had would publish that bit of the data, uncharged), never
#: how many rows it dropped (that number depends on the data and no mechanism was charged for it).
DROPPED = (
    "Rows with a blank (missing value) in a released column are dropped before the release; "
    "whether there were any, and how many, is not published."
)


def n_public_help(relation: str, dropping: bool = False) -> str:
    """The help of the checkbox that declares the number of rows public (required under
    replace-one; not offered when rows with blanks are dropped)."""
    if dropping:
        return (
            "Rows with blanks are dropped, so the number of rows left depends on the data and "
            "cannot be declared public; the release buys a noisy count instead."
        )
    if relation == "replace-one":
        return (
            "This estimator protects one person's row being replaced by another, which assumes "
            "the number of rows is public. Tick only if you may publish it; it is then printed in "
            "the certificate. Otherwise choose an add/remove estimator."
        )
    return (
        "This estimator protects adding or removing a row, so the number of rows is private. "
        "Without this box ticked, 10% of each release's budget buys a noisy count for the "
        "accuracy statement; tick it only if you may publish the number of rows."
    )


def series_key(name: str, inp: Inputs, n_public: bool) -> str:
    """Releases are combined only when they measure the same thing: estimator, columns, bounds,
    the raw input and whether the number of rows is public."""
    h = hashlib.sha256()
    for part in (name, inp.columns, inp.mode, inp.share, inp.quantiles):
        h.update(repr(part).encode())
    for b in inp.data.bounds:
        h.update(np.asarray(b, dtype=float).tobytes())
    h.update(inp.raw if isinstance(inp.raw, bytes) else repr(inp.raw).encode())
    return h.hexdigest() + str(n_public)


def release_kwargs(inp: Inputs) -> dict[str, Any]:
    """The bounds keywords of :func:`dpcore.release.release` for the chosen bounds mode."""
    if inp.mode == "public":
        return {"bounds": inp.data.bounds}
    return {"coarse_bounds": inp.data.bounds, "share": inp.share, "quantiles": inp.quantiles}


@dataclass(frozen=True)
class Combination:
    """A series of two or more releases and their inverse-variance combination, as the panel
    shows it: the table (one row per release, then the combination), its labels, the row to
    publish, how the budgets compose, and per column the chart's inputs and sentence."""

    table: pd.DataFrame
    labels: list[str]
    published: np.ndarray
    headers: dict[str, str]
    composes: str

    def chart_inputs(
        self, series: Sequence[Release], combined: Combined, column: str, columns: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray, str]:
        """Means and 95% half-widths of ``column`` (each release, then the combination) and the
        chart's sentence."""
        j = list(columns).index(column)
        best = min(float(r.accuracy[j]) for r in series)
        means = np.array([*(r.mean[j] for r in series), combined.mean[j]])
        accuracy = np.array([*(r.accuracy[j] for r in series), combined.accuracy[j]])
        sentence = (
            f"Combined by inverse variance, the {len(series)} releases of {column} give "
            f"{self.table[column].iloc[-1]} (95%), against ± {plus_minus(0.0, best, is_money(column))[1]} "
            "for the best single "
            "release; combining is post-processing and costs nothing more."
        )
        return means, accuracy, sentence


def combination(
    series: Sequence[Release],
    combined: Combined,
    columns: Sequence[str],
    notion: str,
    spent: float,
    total: float,
    unit: str,
) -> Combination:
    """The panel's view of ``series`` combined (``spent`` of ``total`` in ``unit`` is what the
    file's odometer shows)."""
    comp = composition([r.budget for r in series], notion)
    labels = [f"release {i + 1} ({comp.unit} = {c:.3g})" for i, c in enumerate(comp.costs)]
    labels.append("combined (inverse variance)")
    rows = [(lab, r.mean, r.accuracy) for lab, r in zip(labels, series, strict=False)]
    rows.append((labels[-1], combined.mean, combined.accuracy))
    table = remeasure_table(list(columns), rows)
    return Combination(
        table=table,
        labels=labels,
        published=np.arange(len(table)) == len(table) - 1,  # what the box states
        headers={"release": "Release", **{c: c for c in columns}},
        composes=(
            f"**How the total composes**: {comp.equation()} ({comp.rule}). This file has had "
            f"{unit} = {spent:.4g} of {total:g} spent on it in all. Combined accuracy: "
            f"{combined.method}."
        ),
    )


def failed(err: Exception | str) -> str:
    """The page's message for a release that failed: the reason said once, then that nothing
    was released or charged.

    Examples
    --------
    >>> failed("only 0.1 is left; nothing was released.")
    'The release failed: only 0.1 is left; nothing was released and nothing was charged.'
    """
    why = str(err).strip()
    for tail in ("nothing was released.", "nothing was released"):
        if why.lower().endswith(tail):
            why = why[: -len(tail)].rstrip(" ;,.")
    return f"The release failed: {why}; nothing was released and nothing was charged."


def accuracy_lines(columns: Sequence[str], combined: Combined) -> str:
    """Each column's accuracy statement, as a Markdown list."""
    return "\n".join(
        f"- {accuracy_sentence(c, a)}" for c, a in zip(columns, combined.accuracy, strict=True)
    )


def certificate_json(series: Sequence[Release], combined: Combined) -> str:
    """The certificate to publish (the release's, or the combination's), stating the page's rule
    for blanks (:data:`DROPPED`, the same whatever the file held)."""
    cert = dict(series[0].certificate if len(series) == 1 else combined.certificate)
    cert["preprocessing"] = DROPPED
    return json.dumps(cert, indent=2, ensure_ascii=False)


def series_paragraph(series: Sequence[Release], combined: Combined) -> str:
    """The certificate as a paragraph for a report: the release's, or the combination's with
    each release's own, then the rule for blanks (:data:`DROPPED`, whatever the file held)."""
    tail = f" {DROPPED}"
    if len(series) == 1:
        return series[0].certificate_text() + tail
    g = combined.certificate["guarantee"]
    return (
        f"The published means combine {len(series)} releases of the same columns by inverse "
        f"variance (post-processing). Together they satisfy {g['words']}, composed from "
        f"{g['composition']}.{tail} Each release's own certificate follows: "
        + " ".join(r.certificate_text() for r in series)
    )


def release_code(series: Sequence[Release], inp: Inputs, notion: str) -> str:
    """The dpcore calls behind the combination (run again, they make new releases: new noise,
    and they spend the budgets again)."""
    name = series[-1].certificate["estimator"]["name"]
    n_kw = ", n_public=True" if "n" in series[-1].certificate["public"] else ""
    lo, hi = (np.asarray(b, dtype=float).tolist() for b in inp.data.bounds)
    kw = (
        f"bounds=({lo!r}, {hi!r})"
        if inp.mode == "public"
        else f"coarse_bounds=({lo!r}, {hi!r}), share={inp.share!r}, quantiles={inp.quantiles!r}"
    )
    budgets = ", ".join(
        f"Budget.pure({r.budget.epsilon_value!r})"
        if r.budget.notion == "pure"
        else f"Budget.zcdp({r.budget.rho_value!r})"
        for r in series
    )
    load = (
        f"from dpcore.data import bundled_frame\ndf = bundled_frame({inp.raw!r})\n"
        if isinstance(inp.raw, str)
        else "df = pd.read_csv('your.csv')  # the same file\n"
    )
    return (
        "import pandas as pd\nfrom dpcore.privacy import Budget\nfrom dpcore.release import release\n"
        "from dpcore.remeasure import combine, composition\n" + load + f"budgets = [{budgets}]\n"
        f"# each call is a new release: fresh noise from the OS, and it spends its budget again\n"
        f"releases = [release({name!r}, df[{inp.columns!r}], b, {kw}{n_kw}) for b in budgets]\n"
        "combined = combine(releases)\nprint(combined.mean, combined.accuracy, combined.method)\n"
        f"print(composition([r.budget for r in releases], {notion!r}).equation())\n"
    )
