"""The Your data page as views: the form (the file's columns, their documented ranges, the
missing values), and the exploration (what clipping does, then every applicable estimator
repeated: a seeded simulation on the user's columns). Release mode is
:mod:`dpcore.views.your_data_release`.

Each is a pure function of frozen records: :class:`Source` (where the rows come from),
:class:`ExploreSettings` (the sidebar's record, the columns, bounds and runs), and
:class:`YourDataSettings` (what the chart shows). :func:`view` computes the whole exploration;
the page calls its parts (:func:`overview`, :func:`runs`, :func:`show`) to cache the runs apart
from the display and to run the peer libraries under a time budget.

Streams (:mod:`dpcore.streams`): estimator ``name``'s runs come from ``"noise:<name>"``.
References: ``docs/architecture.md`` (Data flow), ``docs/release.md`` (Release mode).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore._validation import PrivacyLeakWarning
from dpcore.data import (
    bundled_frame,
    describe_columns,
    from_dataframe,
    load_bundled,
    parse_csv,
    spread_columns,
)
from dpcore.data.dataset import Dataset
from dpcore.estimate import EstimatorSpec
from dpcore.experiments.plain import PlainWords
from dpcore.experiments.studies.your_data import (
    Runs,
    best_few,
    clipping_frame,
    data_spread,
    repeated_runs,
    summary,
)
from dpcore.figures.your_data import FEW, clipping_summary, dots_sentence, is_money, runs_each
from dpcore.limits import MAX_UPLOAD_MB
from dpcore.pool import TimeBudgetExceeded
from dpcore.views.settings import DataSettings
from dpcore.views.your_data_words import box_words, non_numeric_cells, units_note

__all__ = [
    "BOUNDS",
    "FIRST_REPS",
    "MAX_UPLOAD_MB",
    "QUANTILE_OPTIONS",
    "RUN_MODES",
    "SOURCES",
    "ExploreSettings",
    "Form",
    "FormSettings",
    "Overview",
    "Source",
    "TimeBudgetExceeded",
    "YourDataSettings",
    "YourDataView",
    "error_headers",
    "form",
    "ledger",
    "overview",
    "overview_settings",
    "parse_bounds",
    "runs",
    "show",
    "typed_ranges",
    "view",
    "your_dataset",
]

#: The page's two modes.
RUN_MODES = {
    "explore": "Exploration (a seeded simulation)",
    "release": "Release (a real private release)",
}
#: Where the rows come from.
SOURCES = {
    "bundled": "A bundled data set",
    "upload": "Upload a CSV file",
    "paste": "Paste CSV text",
}
#: Where each column's range comes from.
BOUNDS = {
    "public": "I know them (public knowledge)",
    "private": "Estimate them privately with part of the budget",
    "data": "Read them off the data (privacy leak)",
}
#: The lower private quantile used as a bound (the upper is 1 minus it).
QUANTILE_OPTIONS = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1]
#: Runs per estimator of the page's first view (the runs slider's count replaces them in the
#: background). Run ``r`` is child ``r`` of the estimator's stream whatever the count, so these are
#: the full view's first runs. One run, not three: three runs were about half of the first view's
#: CPU, and over 12 seeds at the defaults they were not closer to the 10-run view than one run
#: (the guarantee's best at 10 runs was the best at 3 runs in 1 of 12 seeds and at 1 run in 0; the
#: plain box's estimator 6 and 7 of 12; the best few shared a median 88% and 81% of their
#: estimators). The sentences say how many runs they rest on (docs/speed.md, Your data, rounds 2
#: and 3).
FIRST_REPS = 1


@dataclass(frozen=True, repr=False)
class Source:
    """Where the rows come from: ``kind`` one of :data:`SOURCES`; ``raw`` the bundled set's name,
    or the uploaded file's (or pasted text's) bytes. Its ``repr`` is the notebook's line (a file
    is read again from ``your.csv``, never printed)."""

    kind: str
    raw: bytes | str

    def __repr__(self) -> str:
        if self.kind == "bundled":
            return f"Source('bundled', {self.raw!r})"
        return f"Source({self.kind!r}, open('your.csv', 'rb').read())"

    @property
    def name(self) -> str | None:
        """The bundled set's name, or None."""
        return str(self.raw) if self.kind == "bundled" else None


def frame(source: Source) -> pd.DataFrame:
    """The rows of ``source`` (``ValueError`` naming the fix for a broken file)."""
    if source.kind == "bundled":
        return bundled_frame(str(source.raw))
    raw = source.raw if isinstance(source.raw, bytes) else str(source.raw).encode()
    return parse_csv(raw)


@dataclass(frozen=True)
class FormSettings:
    """The rows and the columns chosen so far (empty before the choice)."""

    source: Source
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Form:
    """What the form shows and offers: the columns' description, the default choice, the
    documented (public) ranges of a bundled set and the rows with missing values in the choice."""

    info: pd.DataFrame
    rows: int
    width: int
    all_columns: tuple[str, ...]
    default_columns: tuple[str, ...]
    documented: Mapping[str, tuple[float, float]]
    missing: int
    table_height: int
    non_numeric: tuple[str, ...] = ()


def form(settings: FormSettings) -> Form:
    """The form of ``settings``."""
    df = frame(settings.source)
    info = describe_columns(df)
    cols = [str(c) for c in df.columns]
    name = settings.source.name
    if name is not None:
        default = [cols[i] for i in spread_columns(load_bundled(name).true_std, 8)]
        lo0, hi0 = load_bundled(name).bounds
        documented = {c: (float(lo0[i]), float(hi0[i])) for i, c in enumerate(cols)}
    else:
        # an identifier is not a quantity to average: not chosen for you
        numeric = info.loc[info["numeric"], "column"].tolist()
        default = [str(c) for c in numeric if not str(c).lower().endswith("id")][:8]
        documented = {}
    chosen = [c for c in settings.columns if c in cols]
    missing = int(df[chosen].isna().any(axis=1).sum()) if chosen else 0
    return Form(
        info,
        len(df),
        df.shape[1],
        tuple(cols),
        tuple(default),
        documented,
        missing,
        min(320, 36 * (len(info) + 1)),
        non_numeric_cells(df),
    )


#: A whole number as a box holds it, which ``int`` and pandas read alike (exactly, as a float).
_WHOLE = re.compile(r"0|-?[1-9][0-9]{0,14}")


def _number(value: object) -> float:
    """A table cell as a float (NaN when it is not a number), as ``pd.to_numeric(...,
    errors="coerce")`` reads it; a float and a plain whole number (what the boxes hold at the
    documented ranges) are read without building a Series (a few ms for the page's 16 boxes)."""
    if type(value) is float:
        return value
    if isinstance(value, str) and _WHOLE.fullmatch(value):
        return float(int(value))
    return float(pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0])


def parse_bounds(
    lower: Iterable[object], upper: Iterable[object], columns: int
) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """The typed bounds as floats, or None unless every one of the ``columns`` has a finite
    lower and upper value (no range is assumed for anyone).

    Examples
    --------
    >>> parse_bounds(["0", 1.5], [10, "2"], 2)
    ((0.0, 1.5), (10.0, 2.0))
    >>> parse_bounds(["0", None], [10, 2], 2) is None
    True
    """
    lo = tuple(_number(v) for v in lower)
    hi = tuple(_number(v) for v in upper)
    if len(lo) != columns or len(hi) != columns:
        return None
    if not all(math.isfinite(v) for v in (*lo, *hi)):
        return None
    return lo, hi


def typed_ranges(
    rows: Iterable[tuple[object, object, object]],
    kept: Mapping[str, tuple[float, float]],
    documented: Mapping[str, tuple[float, float]],
) -> dict[str, tuple[float, float]]:
    """The typed ranges to keep: ``kept`` updated by the table's ``(column, lower, upper)`` rows
    (a finite range that differs from the documented one is kept, any other drops the column).

    Examples
    --------
    >>> typed_ranges([("a", "0", 5), ("b", 0, 1)], {"b": (0, 2)}, {"b": (0.0, 1.0)})
    {'a': (0.0, 5.0)}
    """
    out = dict(kept)
    for column, lower, upper in rows:
        lo, hi = _number(lower), _number(upper)
        if math.isfinite(lo) and math.isfinite(hi) and documented.get(str(column)) != (lo, hi):
            out[str(column)] = (lo, hi)
        else:
            out.pop(str(column), None)
    return out


@dataclass(frozen=True)
class ExploreSettings:
    """The sidebar's record, the rows, the columns and their bounds, and the runs.

    ``lower``/``upper`` are the typed ranges (None when ``mode == "data"``); ``share`` the part of
    the budget spent on private bounds (``mode == "private"``); ``peers`` whether the peer
    libraries take part; ``family`` which runs :func:`runs` makes (``"own"``: dpcore's
    estimators, ``"peers"``: the libraries').
    """

    data: DataSettings
    source: Source
    columns: tuple[str, ...]
    drop_nan: bool = False
    mode: str = "public"
    lower: tuple[float, ...] | None = None
    upper: tuple[float, ...] | None = None
    share: float | None = None
    quantiles: tuple[float, float] = (0.01, 0.99)
    reps: int = 10
    peers: bool = False
    family: str = "own"


def your_dataset(settings: ExploreSettings) -> Dataset:
    """The chosen columns as a :class:`Dataset`, with the typed bounds (or, in mode ``"data"``,
    the data's own range: a privacy leak the page states, so its warning is not repeated)."""
    df = frame(settings.source)
    columns = list(settings.columns)
    if not columns:
        raise ValueError("choose at least one numeric column to average.")
    policy: Literal["error", "drop"] = "drop" if settings.drop_nan else "error"
    if settings.mode == "data":
        with warnings.catch_warnings(record=True):  # the page's warning box says it once
            warnings.simplefilter("always", PrivacyLeakWarning)
            return from_dataframe(df, columns, None, nan_policy=policy)
    if settings.lower is None or settings.upper is None:
        raise ValueError("type a lower and an upper value for every chosen column.")
    bounds = (np.array(settings.lower, dtype=float), np.array(settings.upper, dtype=float))
    return from_dataframe(df, columns, bounds, nan_policy=policy)


@dataclass(frozen=True)
class Overview:
    """The data-level part of the exploration: what clipping does and which estimators run."""

    n: int
    d: int
    kind: str
    bounds: tuple[list[float], list[float]]
    clip: pd.DataFrame
    clip_table: pd.DataFrame
    clip_sentence: str
    spreads: tuple[float, ...]
    spread_all: float
    own: tuple[str, ...]
    theirs: tuple[str, ...]
    intro: str
    zcdp_note: str | None
    over_note: str | None
    error: str | None


def _estimators(
    settings: ExploreSettings, data: Dataset
) -> tuple[list[EstimatorSpec], list[EstimatorSpec]]:
    """The private estimators (no oracle) that apply to ``data``: those that meet the budget,
    and those left out because they do not."""
    budget = settings.data.budget
    applicable = [
        sp
        for sp in registry.applicable(data.kind, data.d, peers=settings.peers)
        if sp.notion != "none" and "oracle" not in sp.name
    ]
    return (
        [sp for sp in applicable if sp.meets(budget)],
        [sp for sp in applicable if not sp.meets(budget)],
    )


def _names(specs: Sequence[EstimatorSpec], family: str) -> tuple[str, ...]:
    """The names of ``specs`` of ``family`` (``"own"``: dpcore's, ``"peers"``: the libraries')."""
    return tuple(sp.name for sp in specs if (sp.family == registry.PEERS) == (family == "peers"))


def overview(settings: ExploreSettings) -> Overview:
    """Clipping before any noise, and the estimators that apply and meet the budget."""
    data = your_dataset(settings)
    cols = list(settings.columns)
    clip = clipping_frame(data, cols)
    specs, left_out = _estimators(settings, data)
    zcdp_out = [sp for sp in left_out if settings.data.unit == "eps" and sp.notion == "zcdp"]
    over = [sp.label for sp in left_out if sp not in zcdp_out]
    return Overview(
        n=data.n,
        d=data.d,
        kind=data.kind,
        bounds=(
            np.asarray(data.bounds[0], dtype=float).tolist(),
            np.asarray(data.bounds[1], dtype=float).tolist(),
        ),
        clip=clip,
        clip_table=clip.rename(
            columns={
                "clipped_share": "share clipped",
                "raw_mean": "raw mean",
                "clipped_mean": "mean of the clipped data",
                "shift": "moved by clipping",
            }
        ),
        clip_sentence=clipping_summary(clip),
        spreads=tuple(data_spread(data, j) for j in range(data.d)),
        spread_all=data_spread(data, None),
        own=_names(specs, "own"),
        theirs=_names(specs, "peers"),
        intro=(
            f"{data.n:,} rows × {data.d} columns treated as **{data.kind}** data; {len(specs)} "
            "estimators apply. Oracle variants would need public variances (this data's own are a "
            "privacy leak) and are left out."
        ),
        zcdp_note=(
            f"{len(zcdp_out)} zCDP estimator{'s are' if len(zcdp_out) > 1 else ' is'} left out: a "
            "pure ε budget cannot be met by a zCDP estimator (ε-DP implies ε²/2-zCDP, not the "
            "reverse). Give the budget as (ε, δ) or ρ to include them."
            if zcdp_out
            else None
        ),
        over_note=(
            "Left out: " + ", ".join(over) + " — each spends more than the budget it is given (as "
            "its authors' code does), so it does not meet this budget."
            if over
            else None
        ),
        error=(
            None
            if specs
            else "no private estimator applies to these columns; choose other columns."
        ),
    )


def overview_settings(settings: ExploreSettings) -> ExploreSettings:
    """``settings`` as :func:`overview` reads them: the seed, the runs' count and family set to
    fixed values (the overview reads the data, the bounds and the budget, no random stream and no
    run), so that every seed and count share one cached overview.

    Examples
    --------
    >>> a = ExploreSettings(DataSettings(seed=1), Source("bundled", "digits"), ("pixel_r1c1",))
    >>> overview_settings(a) == overview_settings(replace(a, data=DataSettings(seed=2), reps=5))
    True
    """
    return replace(settings, data=replace(settings.data, seed=0), reps=1, family="own")


def runs(settings: ExploreSettings) -> Runs:
    """``settings.reps`` runs of each estimator of ``settings.family`` that applies (each on its
    own stream ``"noise:<name>"``): :attr:`Overview.own` or :attr:`Overview.theirs`, chosen
    without the rest of the overview (its clipping table and spreads)."""
    data = your_dataset(settings)
    names = _names(_estimators(settings, data)[0], settings.family)
    return repeated_runs(
        [registry.get(n) for n in names],
        data,
        settings.data.budget,
        int(settings.reps),
        settings.data.streams,
        columns=list(settings.columns),
        private_share=settings.share if settings.mode == "private" else None,
        coarse_bounds=data.bounds,
        quantiles=settings.quantiles,
    )


def merged(parts: Sequence[Runs]) -> Runs:
    """The runs of several families as one."""
    frames = [p.frame for p in parts if not p.frame.empty]
    out = Runs(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame())
    for p in parts:
        out.ledgers.update(p.ledgers)
        out.nonprivate.update(p.nonprivate)
        out.refused.update(p.refused)
    return out


@dataclass(frozen=True)
class YourDataSettings:
    """The exploration and what its chart shows: ``column`` None for the error as a share of each
    column's range, else that column in its own units; ``show_all`` every estimator or the best
    few of each guarantee."""

    explore: ExploreSettings
    column: str | None = None
    show_all: bool = False


@dataclass(frozen=True)
class YourDataView:
    """What the exploration shows below the clipping section."""

    overview: Overview
    runs: Runs
    table: pd.DataFrame
    shown: pd.DataFrame
    column: str | None
    shift: float
    title: str
    sentence: str
    explored: str
    words: PlainWords
    error_table: pd.DataFrame
    error_mask: np.ndarray
    error_headers: dict[str, str]
    caption: str
    nonprivate: pd.DataFrame
    refused: str | None
    ledger_options: tuple[str, ...]
    ledger_default: str
    show_all_label: str
    code: str = field(default="")
    units_note: str | None = None


def show(settings: YourDataSettings, o: Overview, r: Runs) -> YourDataView:
    """The display of runs ``r`` (:func:`runs`, merged) under ``settings`` (``ValueError`` when
    no estimator could run)."""
    es = settings.explore
    if r.frame.empty:
        raise ValueError(
            "no estimator could run on this data: "
            + "; ".join(f"{k}: {v}" for k, v in r.refused.items())
        )
    column = settings.column
    cols = list(es.columns)
    table = summary(r.frame, column)
    shown = table if settings.show_all else best_few(table, FEW)
    j = None if column is None else cols.index(column)
    shift = 0.0 if j is None else float(o.clip["shift"].iloc[j])
    budget = es.data.budget
    explored = column or cols[0]  # the column on the chart, or the first one, in its own units
    words = box_words(r.frame, column, budget, es.data.delta, shift)
    spread = o.spread_all if j is None else o.spreads[j]
    return YourDataView(
        overview=o,
        runs=r,
        table=table,
        shown=shown,
        column=column,
        shift=shift,
        title=f"Every estimator, {runs_each(int(es.reps))}, budget {budget}"
        + (" (not private: bounds read off the data)" if es.mode == "data" else ""),
        sentence=dots_sentence(table, column=column, shift=shift, spread=spread)
        + ("" if settings.show_all else f" Showing {len(shown)} of {len(table)}."),
        explored=explored,
        words=words,
        error_table=table.drop(columns=["color", "name"]).rename(
            columns={"low": "10% of runs", "high": "90% of runs", "rank": "ranked by"}
        ),
        error_mask=(table["estimator"] == words.method).to_numpy(),
        error_headers=error_headers(column),
        caption=_caption(column),
        nonprivate=pd.DataFrame(
            {"estimator": list(r.nonprivate), "diagnostics": list(r.nonprivate.values())}
        ),
        refused=(
            "**Not applicable here** (left out of the chart):\n"
            + "\n".join(f"- {label}: not applicable: {why}" for label, why in r.refused.items())
            if r.refused
            else None
        ),
        ledger_options=tuple(r.ledgers),
        ledger_default=str(shown["estimator"].iloc[0]) if len(shown) else next(iter(r.ledgers)),
        show_all_label=f"Show all {len(table)} estimators (not only the best {FEW} of each "
        "guarantee" + (" and the libraries)" if es.peers else ")"),
        code=_code(settings),
        units_note=units_note(r.frame, o.bounds),
    )


def view(settings: YourDataSettings) -> YourDataView:
    """The whole exploration at ``settings`` (every family, with no time budget)."""
    es = settings.explore
    parts = [runs(es)]
    if es.peers:
        parts.append(runs(replace(es, family="peers")))
    return show(settings, overview(es), merged(parts))


def _caption(column: str | None) -> str:
    """How to read the chart."""
    if column is None:
        return (
            "Each dot is an estimator's median error over the runs, its bar the middle 80% of "
            "runs; the error of a run is each column's distance to the mean of the clipped data as "
            "a share of that column's range (root mean square over columns), so dollars, years and "
            "hours are never added. Choose a column above to see the error in its own units, with "
            "the clipping bias drawn apart from the noise."
        )
    return (
        f"Each dot is an estimator's median of (estimate − raw mean of {column}) over the runs, "
        "its bar the middle 80% of runs. The dotted line is the raw mean, the dashed one the mean "
        "of the clipped data: the distance between them is the clipping bias, the spread around "
        "the dashed line is the noise." + (" In dollars." if is_money(column) else "")
    )


def _code(settings: YourDataSettings) -> str:
    """The notebook's lines for the chart: this view, then the chart from it."""
    return (
        "from dpcore.figures.your_data import dots_chart\n"
        "from dpcore.views.settings import DataSettings\n"
        "from dpcore.views.your_data import ExploreSettings, Source, YourDataSettings, view\n"
        + (
            ""
            if settings.explore.source.kind == "bundled"
            else "# your.csv: the file the page was given\n"
        )
        + f"v = view({settings!r})\n"
        "print(v.overview.clip)\n"
        "fig = dots_chart(v.shown, column=v.column, shift=v.shift)\n"
    )


def ledger(r: Runs, pick: str, mode: str) -> tuple[pd.DataFrame, str]:
    """Estimator ``pick``'s ledger and where its budget went, in words."""
    led = pd.DataFrame(r.ledgers[pick])
    total = float(led["spent"].sum())
    unit = led["unit"].iloc[0]
    if mode == "private":
        spent_bounds = float(led.loc[led["stage"].str.startswith("bounds:"), "spent"].sum())
        return led, (
            f"{pick} spent {spent_bounds:.4g} {unit} ({spent_bounds / total:.0%}) on the private "
            f"bounds and the rest on its own steps; {total:.4g} in all."
        )
    return led, f"{pick} spent {total:.4g} {unit} in all."


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
