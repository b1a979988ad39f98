"""``FAILURE_MULTIPLE``, ``summarise``, ``guarantee_label``, ``_private_flags``, ``private_only``,
``regret_table``, ``needed_for_target`` (moved from ``experiments.py``).

These run on every Compare view, so they compute in numpy on the frame's columns (one
:class:`Groups` per grouping, every group's statistics at once) instead of a dozen pandas groupbys
each, with pandas' own grouped arithmetic so the numbers are unchanged bit for bit;
tests/experiments/test_summaries_fast.py keeps the pandas versions as the reference. ``regret_table`` and
``needed_for_target`` take the ``summary`` a caller has already computed.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from dpcore import registry
from dpcore.data.synthetic import generate
from dpcore.experiments.config import ExperimentConfig
from dpcore.privacy import Budget
from dpcore.theory import plan as theory

# --------------------------------------------------------------------------------------------
# summaries


#: The columns that make a sweep point (a summary's cells are estimator × point).
_POINT = ("setting", "n", "d", "skew", "budget")

#: A run is **far off** when its error exceeds this multiple of the median error of the same
#: estimator at the same point (a blow-up against the estimator's own typical run); summaries state
#: the share of far-off runs next to the median so that one blow-up can neither dominate nor hide.
#: One definition everywhere (the glossary's "far-off run"): at one point, the share of that
#: point's runs; for an estimator over a sweep, :func:`far_off_share`, the share of all its runs.
FAILURE_MULTIPLE = 3.0


#: The parts of an error a summary averages (``<part>_<metric>`` columns).
_PARTS = ("sampling", "clipping", "noise")


# --------------------------------------------------------------------------------------------
# group arithmetic in numpy: the same numbers as pandas' groupby, bit for bit


class Groups:
    """Rows grouped by equal key values, numbered as pandas' ``groupby(keys, sort=sort)`` numbers
    them: by first appearance (``sort=False``; a missing key value is a group of its own, as with
    ``dropna=False``) or in sorted key order. ``codes`` gives each row's group, ``first`` each
    group's first row, ``sizes`` its number of rows.
    """

    def __init__(self, columns: Sequence[Any], sort: bool = False) -> None:
        n = len(columns[0]) if len(columns) else 0
        codes = np.zeros(n, dtype=np.int64)
        for c in columns:  # one integer per distinct combination, renumbered after each key
            k, uniques = pd.factorize(c, sort=sort, use_na_sentinel=False)
            codes = pd.factorize(codes * len(uniques) + k, sort=sort)[0]
        self.codes = codes
        self.count = int(codes.max()) + 1 if n else 0
        self.first = np.unique(codes, return_index=True)[1]
        self.sizes = np.bincount(codes, minlength=self.count)
        #: rows already in group order (pandas then sums a group's rows with ``np.add.reduceat``)
        self.monotonic = bool(np.all(codes[1:] >= codes[:-1]))
        self._order = np.argsort(codes, kind="stable")
        starts = np.cumsum(self.sizes) - self.sizes
        self._pos = np.arange(n) - starts[codes[self._order]]

    def padded(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per row) as one row per group, in the frame's row order, NaN-padded."""
        out = np.full((self.count, int(self.sizes.max(initial=0))), np.nan)
        out[self.codes[self._order], self._pos] = values[self._order]
        return out

    def members(self) -> list[np.ndarray]:
        """Each group's rows, in row order."""
        return np.split(self._order, np.cumsum(self.sizes)[:-1]) if self.count else []

    def mean(self, values: np.ndarray) -> np.ndarray:
        """Mean of each group's non-NaN ``values`` (NaN for none), as pandas' grouped ``mean``
        computes it: ``np.add.reduceat`` over the groups divided by their sizes when the rows are
        in group order without a NaN (as pandas 3.1 does), else Kahan-compensated sums in row
        order (its Cython kernel; the compensation is reset when it turns NaN, as for an infinite
        value), looping over the positions within a group, each step vectorised over the groups."""
        values = np.asarray(values, dtype=float)
        if _REDUCEAT_MEAN and self.monotonic and self.count and not np.isnan(values).any():
            return np.add.reduceat(values, np.cumsum(self.sizes) - self.sizes) / self.sizes
        padded = self.padded(values)
        total, comp, nobs = (np.zeros(self.count) for _ in range(3))
        with np.errstate(invalid="ignore"):
            for v in padded.T:
                ok = ~np.isnan(v)
                y = v - comp
                t = total + y
                c = t - total - y
                comp = np.where(ok, np.where(np.isnan(c), 0.0, c), comp)
                total = np.where(ok, t, total)
                nobs += ok
            return np.where(nobs > 0, total / np.maximum(nobs, 1), np.nan)

    def max(self, values: np.ndarray) -> np.ndarray:
        """Largest non-NaN value per group (NaN for a group without one), as pandas' ``max``."""
        out = np.full(self.count, -np.inf)
        np.fmax.at(out, self.codes, values)
        return np.where(self.tally(~np.isnan(values)) > 0, out, np.nan)

    def tally(self, flags: np.ndarray) -> np.ndarray:
        """Number of true ``flags`` per group (integers)."""
        return np.bincount(self.codes, weights=flags, minlength=self.count).astype(np.int64)


#: pandas 3.1 sums the groups of rows already in group order with ``np.add.reduceat`` (its
#: ``_reduceat_aggregate``), which rounds differently from its Kahan-summing Cython kernel.
_REDUCEAT_MEAN = hasattr(pd.core.groupby.ops.BaseGrouper, "_reduceat_aggregate")


def point_medians(cells: Groups, values: np.ndarray) -> np.ndarray:
    """Each of ``cells``' groups' median of ``values`` (one per row), skipping NaN (NaN for a
    group without a value), as pandas' grouped ``median`` gives it."""
    return _order_stats(cells.padded(np.asarray(values, dtype=float)), ())[0]


def _order_stats(
    padded: np.ndarray, qs: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Per row of ``padded`` (groups × positions), skipping NaN: the median, the maximum and the
    ``qs`` quantiles with pandas' linear interpolation (``v[i] + (v[i+1] - v[i]) * frac`` at
    ``i + frac = q (count - 1)``), as pandas' grouped ``median``/``max``/``quantile`` give them."""
    srt = np.sort(padded, axis=1)  # NaN last
    cnt = (~np.isnan(padded)).sum(axis=1)
    rows = np.arange(srt.shape[0])
    last = max(srt.shape[1] - 1, 0)

    def at(i: np.ndarray) -> np.ndarray:
        return srt[rows, np.clip(i, 0, last)] if srt.shape[1] else np.full(len(rows), np.nan)

    none = cnt == 0
    with np.errstate(invalid="ignore"):
        half = cnt // 2
        a, b = at(half), at(half - 1)
        median = np.where(none, np.nan, np.where(cnt % 2 == 1, a, (a + b) / 2))
        top = np.where(none, np.nan, at(cnt - 1))
        quantiles = []
        for q in qs:
            qi = q * (cnt - 1.0)
            i = qi.astype(np.int64)
            frac = qi % 1.0
            v = at(i)
            quantiles.append(
                np.where(none, np.nan, np.where(frac == 0.0, v, v + (at(i + 1) - v) * frac))
            )
    return median, top, quantiles


def summarise(
    frame: pd.DataFrame,
    metric: str = "l2",
    by: Sequence[str] | None = None,
    low: float = 0.1,
    high: float = 0.9,
) -> pd.DataFrame:
    """Median, mean, ``low``–``high`` quantile band, 90th percentile and share of far-off runs of
    ``err_<metric>`` per (estimator, setting).

    ``failure_rate`` is the share of the cell's runs that are far off (error above
    ``FAILURE_MULTIPLE`` times the cell's median, or raised); ``max`` the worst run. Also the mean
    sampling error, clipping bias and noise, their medians (``sampling_median`` is the floor drawn
    beside median lines: the same statistic of the same runs), and the runs that failed to run.

    The cells are those of pandas' ``groupby(["estimator", *by], sort=False, dropna=False)``, in
    that order. Every statistic is computed in numpy on the frame's columns for all cells at once,
    with pandas' grouped arithmetic (Kahan-summed means, its median and linear quantile formulas),
    so the numbers are pandas' own, bit for bit (tests/experiments/test_summaries_fast.py keeps a version
    with pandas groupbys as the reference).
    """
    point = list(dict.fromkeys(by or ["setting", "n", "d", "skew", "budget"]))
    meta_cols = ["estimator", "label", "color", "notion", "family"]
    keys = ["estimator", *[k for k in point if k != "estimator"]]
    cells = Groups([frame[k] for k in keys])
    stats = _error_stats(frame, metric, cells, low, high)
    estimators = Groups([frame["estimator"]])
    est = estimators.codes[cells.first]  # each cell's estimator
    stats.update(_guarantee_stats(frame, estimators, est, empty=cells.count == 0))
    meta_rows = estimators.first[est]  # the estimator's first row, as the merge took it
    out: dict[str, Any] = {}
    for c in dict.fromkeys([*meta_cols, *keys, *stats]):
        out[c] = (
            stats[c]
            if c in stats
            else frame[c].array.take(meta_rows if c in meta_cols else cells.first)
        )
    return pd.DataFrame(out)


def _error_stats(
    frame: pd.DataFrame, metric: str, cells: Groups, low: float, high: float
) -> dict[str, Any]:
    """:func:`summarise`'s statistics of the errors, failures and times, one value per cell."""
    col = f"err_{metric}"
    err = frame[col].to_numpy(float)
    padded = cells.padded(err)
    median, top, (lo, hi, p90) = _order_stats(padded, (low, high, 0.9))
    failed = frame["failed"].to_numpy(object) != ""
    blowup = failed | (err > FAILURE_MULTIPLE * median[cells.codes])
    warned = (
        frame["warnings"].to_numpy(object, na_value="") != ""
        if "warnings" in frame
        else np.zeros(len(frame), bool)
    )
    parts = {k: frame[f"{k}_{metric}"].to_numpy(float) for k in _PARTS}
    if frame[col].dtype.kind in "iu":  # pandas keeps an integer column's maximum an integer
        top = top.astype(frame[col].dtype)
    return {
        "median": median,
        "mean": cells.mean(err),
        "lo": lo,
        "hi": hi,
        "p90": p90,
        "max": top,
        "runs": cells.tally(~np.isnan(err)),
        "failure_rate": cells.tally(blowup) / cells.sizes,
        "sampling": cells.mean(parts["sampling"]),
        "sampling_median": _order_stats(cells.padded(parts["sampling"]), ())[0],
        "clipping": cells.mean(parts["clipping"]),
        "noise": cells.mean(parts["noise"]),
        "failed": cells.tally(failed),
        "warned": cells.tally(warned),
        "seconds": cells.mean(frame["seconds"].to_numpy(float)),
    }


def _guarantee_stats(
    frame: pd.DataFrame, estimators: Groups, est: np.ndarray, *, empty: bool
) -> dict[str, Any]:
    """Each cell's ``private``, ``neighbouring`` and ``guarantee`` (``est``: its estimator)."""
    private, neighbouring, spend = _flags(frame, estimators)
    notion = frame["notion"].to_numpy(object)[estimators.first]
    stats: dict[str, Any] = {
        "private": private[est],
        "neighbouring": [neighbouring[e] for e in est],
        "guarantee": [guarantee_label(notion[e], neighbouring[e], spend[e]) for e in est],
    }
    if empty:  # the dtypes pandas gave an empty summary
        stats["private"] = stats["neighbouring"] = pd.Series([], dtype=str)
        stats["guarantee"] = np.array([], float)
    return stats


def guarantee_label(notion: str, neighbouring: str, spend_factor: float = 1.0) -> str:
    """A guarantee in words: notion and neighbouring relation (rankings never cross two of them).

    An estimator that spends more than the budget it is given is its own group, named by what it
    spends:

    >>> guarantee_label("zcdp", "replace-one", 1.5)
    'spends 1.5ρ (as published), replace-one'
    """
    if notion == "none":
        return "not private"
    if spend_factor != 1.0:
        unit = {"pure": "ε", "zcdp": "ρ"}.get(notion, notion)
        return f"spends {spend_factor:g}{unit} (as published), {neighbouring}"
    return f"{ {'pure': 'pure ε-DP', 'zcdp': 'ρ-zCDP'}.get(notion, notion) }, {neighbouring}"


def _flags(frame: pd.DataFrame, estimators: Groups) -> tuple[np.ndarray, list[str], list[float]]:
    """Per estimator (``estimators``' numbering): private (an overspender is not: it does not meet
    the budget it is given), the neighbouring relation and the spend factor; see
    :func:`_private_flags`. One registry look-up per estimator, on its first row."""

    def first(col: str) -> np.ndarray:
        return frame[col].to_numpy(object)[estimators.first]

    names = first("name" if "name" in frame else "estimator")
    notions = first("notion")
    given = first("neighbouring") if "neighbouring" in frame else None
    private, neighbouring = np.zeros(len(names), bool), list[str]()
    spend = [1.0] * len(names)
    for i, name in enumerate(names):
        try:
            spec = registry.get(str(name))
            private[i] = spec.private
            neighbouring.append(spec.neighbouring)
            spend[i] = spec.spend_factor
        except ValueError:
            private[i] = notions[i] != "none"
            neighbouring.append(str(given[i]) if given is not None else "replace-one")
    return private, neighbouring, spend


def _private_flags(frame: pd.DataFrame) -> dict[Any, tuple[bool, str]]:
    """Per estimator id: (private, neighbouring relation), from the registry (by the frame's ``name``
    column, else the id); an id the registry does not know counts as private when its ``notion`` is
    not ``"none"`` (hand-made frames in notebooks and tests)."""
    estimators = Groups([frame["estimator"]])
    private, neighbouring, _ = _flags(frame, estimators)
    ids = frame["estimator"].to_numpy(object)[estimators.first]
    return {e: (bool(p), r) for e, p, r in zip(ids, private, neighbouring, strict=True)}


def private_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of private estimators: drops the non-private reference and oracle (teaching) estimators."""
    return frame[private_rows(frame)]


def private_rows(frame: pd.DataFrame) -> np.ndarray:
    """Which rows :func:`private_only` keeps, as a boolean array (for callers that read a few
    columns of those rows: no copy of the frame)."""
    estimators = Groups([frame["estimator"]])
    return _flags(frame, estimators)[0][estimators.codes]


def far_off_share(frame: pd.DataFrame, metric: str = "l2") -> dict[Any, float]:
    """Per estimator id: the share of its runs over the whole sweep that are far off (error above
    :data:`FAILURE_MULTIPLE` × the median of the same estimator at the same point), among the runs
    that completed with a finite error (runs that raised are reported apart). The ranking, the
    far-off table (:func:`dpcore.experiments.engine.tail_table`) and the story callouts all state
    this number.
    """
    err = frame[f"err_{metric}"].to_numpy(float)
    ok = (frame["failed"].to_numpy(object) == "") & np.isfinite(err)
    ids = frame["estimator"].to_numpy(object)[ok]
    if not ids.size:
        return {}
    cells = Groups([ids, frame["setting"].to_numpy()[ok]])
    median = _order_stats(cells.padded(err[ok]), ())[0]
    far = err[ok] > FAILURE_MULTIPLE * median[cells.codes]
    est = Groups([ids])
    share = est.tally(far) / est.sizes
    return dict(zip(ids[est.first], share.tolist(), strict=True))


def regret_table(
    frame: pd.DataFrame, metric: str = "l2", *, summary: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Rank private estimators by regret over the sweep, within each guarantee (notion, relation).

    At each setting the regret of an estimator is its **median** error divided by the smallest
    median error of a private estimator *with the same guarantee* there (1 = best); medians so that
    one blow-up cannot dominate, with the share of far-off runs (above ``FAILURE_MULTIPLE`` × the
    median at their point) reported beside. The table gives, per guarantee, the geometric-mean regret over the
    sweep (the ranking key), the worst regret, the settings won and the share of far-off runs over
    the sweep (``failure_rate``, :func:`far_off_share`). Rows are
    ordered by guarantee, then rank; estimators of different guarantees are never ranked together.

    ``summary``: ``summarise(frame, metric)`` when the caller has it already (a page view computes
    it once for the chart, the headline and this table).
    """
    cols = [
        "guarantee",
        "rank",
        "estimator",
        "label",
        "mean_regret",
        "worst_regret",
        "wins",
        "settings",
        "failure_rate",
    ]
    s = summarise(frame, metric) if summary is None else summary
    median = s["median"].to_numpy(float)
    keep = np.flatnonzero(s["private"].to_numpy(bool) & np.isfinite(median))
    if not keep.size:
        return pd.DataFrame(columns=cols)
    median = median[keep]
    guarantee = s["guarantee"].to_numpy(object)[keep]
    points = Groups([guarantee, s["setting"].to_numpy()[keep]])
    best = np.full(points.count, np.inf)
    np.minimum.at(best, points.codes, median)
    best = best[points.codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        regret = median / best
    rows = Groups([guarantee, s["estimator"].to_numpy(object)[keep], s["label"].array[keep]])
    # the geometric mean as pandas' Series.mean takes it (NaN skipped, NumPy's pairwise sum): one
    # short call per estimator
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(regret)
    mean_regret = np.empty(rows.count)
    for g, members in enumerate(rows.members()):
        r = logs[members]
        seen = float(np.count_nonzero(~np.isnan(r)))
        m = np.add.reduce(np.where(np.isnan(r), 0.0, r)) / seen if seen else np.nan
        mean_regret[g] = float(np.exp(m))
    worst = rows.max(regret)
    order = np.lexsort((worst, mean_regret, _ranks(guarantee[rows.first])))
    first = keep[rows.first[order]]
    g_sorted = guarantee[rows.first][order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    far = far_off_share(frame, metric)
    block = np.cumsum(np.r_[True, g_sorted[1:] != g_sorted[:-1]]) - 1
    return pd.DataFrame(
        {
            "guarantee": s["guarantee"].array.take(first),
            "rank": np.arange(len(order)) - starts[block] + 1,
            "estimator": s["estimator"].array.take(first),
            "label": s["label"].array.take(first),
            "mean_regret": mean_regret[order],
            "worst_regret": worst[order],
            "wins": rows.tally(median == best)[order],
            "settings": rows.tally(~np.isnan(regret))[order],
            "failure_rate": [far.get(e, np.nan) for e in s["estimator"].array.take(first)],
        }
    )


def _select(df: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """Rows of ``df`` whose ``where`` columns are close to the given values."""
    for k, v in where.items():
        df = df[np.isclose(df[k].astype(float), float(v))]
    return df


def nargsort(values: np.ndarray) -> np.ndarray:
    """The order pandas' ``sort_values`` gives one float column: NumPy's quicksort of the values
    that are not NaN (stable for the few rows of a table), then the NaN ones in place."""
    nan = np.isnan(values)
    idx = np.arange(len(values))
    return np.r_[idx[~nan][values[~nan].argsort(kind="quicksort")], idx[nan]]


def _ranks(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the distinct ``values`` in sorted order (missing last), as pandas'
    ``sort_values`` orders a column."""
    return pd.factorize(values, sort=True, use_na_sentinel=False)[0]


def needed_for_target(
    frame: pd.DataFrame,
    target: float,
    by: str = "budget",
    metric: str = "l2",
    fixed: Mapping[str, Any] | None = None,
    *,
    summary: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Accuracy first: the ``by`` value (budget or n) each estimator needs for median error ``target``.

    Interpolates log(error) against log(``by``) linearly between the two sweep points that bracket
    the target (no extrapolation: ``None`` with a reason when the target lies outside the sweep).
    ``fixed`` selects the other swept keys (e.g. ``{"d": 64}``) when the sweep is a grid.
    ``summary``: ``summarise(frame, metric)`` when the caller has it already.
    """
    if by not in ("budget", "n"):
        raise ValueError(f"by must be 'budget' or 'n' (error falls as they grow); got {by!r}.")
    if not (target > 0 and math.isfinite(target)):
        raise ValueError(f"target must be a positive error; got {target!r}.")
    if summary is not None and set(fixed or {}) <= set(_POINT):  # the frame's cells at ``fixed``
        s = _select(summary, fixed or {})
    else:
        s = summarise(_select(frame, fixed or {}), metric)
    if by == "budget":  # a non-private reference spends no budget: nothing to read off
        s = s[s["notion"].to_numpy(object) != "none"]
    est = s["estimator"].to_numpy(object)
    labels = s["label"].to_numpy(object)
    privates = s["private"].to_numpy()
    at = s[by].to_numpy(float)
    medians = s["median"].to_numpy(float)  # medians, like the chart
    rows = []
    groups = Groups([est, labels, privates])
    for members in groups.members():
        first = members[0]
        est_, label, private = est[first], labels[first], privates[first]
        if pd.isna(est_) or pd.isna(label) or pd.isna(private):  # groupby drops missing keys
            continue
        need, note = _read_off(*_curve(at[members], medians[members]), target, by)
        rows.append(
            {
                "estimator": est_,
                "label": label,
                "private": bool(private),
                f"{by}_needed": need,
                "note": note,
            }
        )
    out = pd.DataFrame(
        rows, columns=["estimator", "label", "private", f"{by}_needed", "note"]
    )  # columns even when empty
    if not out.empty:
        out = out.sort_values(f"{by}_needed", na_position="last", kind="stable").reset_index(
            drop=True
        )
    return out


def _curve(at: np.ndarray, medians: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One estimator's median error at each ``by`` value ``at`` (in increasing order; the mean of
    the medians where a value has several cells), the points with a positive finite error."""
    points = Groups([at], sort=True)  # the mean median at each ``by`` value
    xs = at[points.first]
    ys = (
        points.mean(medians)
        if points.count < len(at)
        else medians[points.first]  # one cell per value: its median
    )
    ok = np.isfinite(ys) & (ys > 0)
    return xs[ok], ys[ok]


def _read_off(xs: np.ndarray, ys: np.ndarray, target: float, by: str) -> tuple[float | None, str]:
    """The ``by`` value where the curve ``(xs, ys)`` reaches ``target`` (log-log interpolation
    between the bracketing points), or ``None`` and the reason it cannot be read off."""
    need, note = None, ""
    if xs.size == 0:
        note = "no successful runs"
    elif ys.min() > target:
        note = f"needs more than {by} = {xs.max():g} (the sweep's largest)"
    elif ys[0] <= target:
        need, note = float(xs[0]), f"already at {by} = {xs[0]:g} (the sweep's smallest)"
    else:
        for i in range(len(xs) - 1):
            y0, y1 = ys[i], ys[i + 1]
            if (y0 - target) * (y1 - target) <= 0 and y0 != y1:
                t = (math.log(target) - math.log(y0)) / (math.log(y1) - math.log(y0))
                need = float(
                    math.exp(math.log(xs[i]) + t * (math.log(xs[i + 1]) - math.log(xs[i])))
                )
                break
        if need is None:
            note = "error not monotone across the sweep"
    return need, note


#: PLAN's default noise share ρ3 = 0.5625 ρ (docs/estimators/plan.md §2; also the private-radius
#: Gaussian mechanism's).
NOISE_SHARE = 0.5625


def median_norm(variances: np.ndarray) -> float:
    """The median of ``||Z||_2`` for a Gaussian vector of independent coordinates with
    ``variances``: ``||Z||_2^2`` is a weighted sum of χ²₁ variables, matched in mean and variance
    by ``c χ²_k`` (Patnaik 1949: ``c = Σv²/Σv``, ``k = (Σv)²/Σv²``), whose median is exact for
    equal variances and within about 3% of the true one for PLAN's skewed profiles.

    >>> round(median_norm(np.ones(1)), 4)  # |N(0, 1)|: its median is 0.6745
    0.6745
    """
    v = np.asarray(variances, dtype=float)
    total, square = float(v.sum()), float(np.sum(v**2))
    if total <= 0.0:
        return 0.0
    c, k = square / total, total**2 / square
    return math.sqrt(c * 2.0 * float(special.gammaincinv(k / 2.0, 0.5)))


def _theory_median(
    sigma: np.ndarray, sampling: float, noise: float, noise_shape: np.ndarray
) -> float:
    """The median ℓ2 error of an idealised estimator whose error is the sampling error (RMS
    ``sampling``, coordinate i's variance ∝ σᵢ²) plus independent Gaussian noise (RMS ``noise``,
    coordinate i's variance ∝ ``noise_shape[i]``)."""
    var = sampling**2 * sigma**2 / np.sum(sigma**2) + noise**2 * noise_shape / np.sum(noise_shape)
    return median_norm(var)


@functools.lru_cache(maxsize=4096)
def _theory_values(
    distribution: str,
    params: str,
    n: int,
    d: int,
    skew: float,
    budget: float,
    unit: str,
    delta: float | None,
    conversion: str,
    empirical: bool,
) -> tuple[float, float]:
    """PLAN's and the Gaussian mechanism's theory medians at one sweep point (see
    :func:`theory_frame`): closed forms of public values only, kept for the whole process (every
    view of the same settings, whatever its seed, draws the same curves)."""
    # the generator's population σ profile (its parameters, not a sample)
    sigma = generate(distribution, 2, d, skew, rng=0, **json.loads(params)).true_std
    rho = Budget.from_unit(unit, budget, delta).to_native("zcdp", conversion).value  # type: ignore[arg-type]
    rho3 = NOISE_SHARE * rho
    samp = 0.0 if empirical else theory.sampling_error(sigma, n, 2.0)
    plan = _theory_median(sigma, samp, theory.plan_noise_error(sigma, n, rho3, 2.0), sigma)
    flat = np.ones_like(sigma)
    gauss = theory.gaussian_mechanism_noise_error(sigma, n, rho3, 2.0)
    return plan, _theory_median(sigma, samp, gauss, flat)


def theory_frame(summary: pd.DataFrame, cfg: ExperimentConfig, metric: str) -> pd.DataFrame:
    """Idealised theory curves at each sweep point (docs/estimators/plan.md §6), where they apply,
    as **medians** over runs: the same statistic as the measured lines they are drawn against.

    Only for ℓ2 on real or bounded data drawn from the distribution (not contaminated): PLAN's
    noise (RMS ``G_2 sqrt(2/ρ3) ||σ||_1 / n``, coordinate i's variance ∝ σᵢ) and the Gaussian
    mechanism's (RMS ``sqrt(2/ρ3) sqrt(d) ||σ||_2 / n``, equal on every coordinate), with σ known,
    clip margin 1 and the noise share ``ρ3 = 0.5625 ρ`` (ρ = the user budget in zCDP), each added
    to the sampling error (RMS ``||σ||_2 / sqrt(n)``, coordinate i's variance σᵢ²/n; dropped when
    the truth is the empirical mean) as independent Gaussian errors; the value is the median of the
    norm of that sum (:func:`median_norm`). They are shapes with idealised constants, not
    predictions of each run.
    """
    cols = ["setting", "n", "d", "skew", "budget", "curve", "value"]
    if (
        metric != "l2" or cfg.kind == "binary" or cfg.unit == "eps"
    ):  # zCDP curves: not run under pure ε
        return pd.DataFrame(columns=cols)
    if cfg.distribution == "contaminated":  # the curves model clean draws; outliers move x̄ itself,
        return pd.DataFrame(columns=cols)  # so they would sit below the non-private mean's error
    rows = []
    pts = summary.drop_duplicates("setting")[["setting", "n", "d", "skew", "budget"]]
    params = json.dumps(cfg.data_params, sort_keys=True, default=str)
    delta = float(cfg.delta) if cfg.delta is not None else None
    for r in pts.itertuples(index=False):
        values = _theory_values(
            cfg.distribution, params, int(r.n), int(r.d), float(r.skew), float(r.budget),
            cfg.unit, delta, cfg.conversion, cfg.truth == "empirical",
        )  # fmt: skip
        for name, value in zip(("PLAN", "Gaussian mechanism"), values, strict=True):
            rows.append(
                {
                    "setting": r.setting,
                    "n": r.n,
                    "d": r.d,
                    "skew": r.skew,
                    "budget": r.budget,
                    "curve": f"theory: {name}",
                    "value": value,
                }
            )
    return pd.DataFrame(rows, columns=cols)
