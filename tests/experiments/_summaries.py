"""What the summary tests share: the pandas summaries the numpy ones replaced (the reference,
verbatim), the engine's frames and the hand-made ones, and the exact comparison.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7; specs/plan.md §7 (the summaries the
Compare page draws).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore.experiments import ExperimentConfig, run
from dpcore.experiments.summaries import FAILURE_MULTIPLE, guarantee_label
from dpcore.figures.compare import METRIC_LABEL, _fmt, _select, error_figure
from dpcore.figures.style import plain, times

# --------------------------------------------------------------------------------------------
# the reference: the pandas implementations as they were before the numpy summaries (do not
# edit), with the page's number formats (_fmt, plain, times) in the sentences


def ref_summarise(
    frame: pd.DataFrame,
    metric: str = "l2",
    by: Sequence[str] | None = None,
    low: float = 0.1,
    high: float = 0.9,
) -> pd.DataFrame:
    """Median, mean, ``low``–``high`` quantile band, 90th percentile and failure rate of ``err_<metric>``
    per (estimator, setting).

    ``failure_rate`` is the share of runs whose error exceeds ``FAILURE_MULTIPLE`` times the cell's
    median (or that raised); ``max`` the worst run. Also the mean sampling error, clipping bias and
    noise, their medians (``sampling_median`` is the floor drawn beside median lines: the same
    statistic of the same runs), and the runs that failed to run.
    """
    col = f"err_{metric}"
    point = list(dict.fromkeys(by or ["setting", "n", "d", "skew", "budget"]))
    meta_cols = ["estimator", "label", "color", "notion", "family"]
    keys = ["estimator", *[k for k in point if k != "estimator"]]
    work = frame[
        list(
            dict.fromkeys(
                [
                    *keys,
                    col,
                    f"sampling_{metric}",
                    f"clipping_{metric}",
                    f"noise_{metric}",
                    "seconds",
                ]
            )
        )
    ].copy()
    work["_failed"] = (frame["failed"] != "").to_numpy()
    med_cell = work.groupby(keys, sort=False, dropna=False)[col].transform("median")
    work["_blowup"] = work["_failed"] | (work[col] > FAILURE_MULTIPLE * med_cell).to_numpy()
    work["_warned"] = (
        (frame["warnings"].fillna("") != "").to_numpy() if "warnings" in frame else False
    )
    g = work.groupby(keys, sort=False, dropna=False)
    out = g[col].agg(["mean", "median", "max", "count"]).rename(columns={"count": "runs"})
    out["lo"] = g[col].quantile(low)
    out["hi"] = g[col].quantile(high)
    out["p90"] = g[col].quantile(0.9)
    for k in ("sampling", "clipping", "noise"):
        out[k] = g[f"{k}_{metric}"].mean()
    out["sampling_median"] = g[f"sampling_{metric}"].median()
    out["failed"] = g["_failed"].sum().astype(int)
    out["failure_rate"] = g["_blowup"].mean()
    out["warned"] = g["_warned"].sum().astype(int)
    out["seconds"] = g["seconds"].mean()
    out = out.reset_index()
    meta = frame[meta_cols].drop_duplicates("estimator")
    out = out.merge(meta, on="estimator", how="left", sort=False)
    flags = ref_private_flags(frame)
    out["private"] = out["estimator"].map(lambda e: flags[e][0])
    out["neighbouring"] = out["estimator"].map(lambda e: flags[e][1])
    out["guarantee"] = [
        guarantee_label(n, r) for n, r in zip(out["notion"], out["neighbouring"], strict=True)
    ]
    return out[
        list(
            dict.fromkeys(
                [
                    *meta_cols,
                    *keys,
                    "median",
                    "mean",
                    "lo",
                    "hi",
                    "p90",
                    "max",
                    "runs",
                    "failure_rate",
                    "sampling",
                    "sampling_median",
                    "clipping",
                    "noise",
                    "failed",
                    "warned",
                    "seconds",
                    "private",
                    "neighbouring",
                    "guarantee",
                ]
            )
        )
    ]


def ref_private_flags(frame: pd.DataFrame) -> dict[Any, tuple[bool, str]]:
    """Per estimator id: (private, neighbouring relation), from the registry (by the frame's ``name``
    column, else the id); an id the registry does not know counts as private when its ``notion`` is
    not ``"none"`` (hand-made frames in notebooks and tests)."""
    rows = frame.drop_duplicates("estimator")
    out: dict[Any, tuple[bool, str]] = {}
    for r in rows.itertuples(index=False):
        name = str(getattr(r, "name", r.estimator))
        try:
            spec = registry.get(name)
            out[r.estimator] = (spec.private, spec.neighbouring)
        except ValueError:
            out[r.estimator] = (r.notion != "none", str(getattr(r, "neighbouring", "replace-one")))
    return out


def ref_private_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of private estimators: drops the non-private reference and oracle (teaching) estimators."""
    flags = ref_private_flags(frame)
    return frame[frame["estimator"].map(lambda e: flags[e][0]).astype(bool)]


def ref_regret_table(frame: pd.DataFrame, metric: str = "l2") -> pd.DataFrame:
    """Rank private estimators by regret over the sweep, within each guarantee (notion, relation).

    At each setting the regret of an estimator is its **median** error divided by the smallest
    median error of a private estimator *with the same guarantee* there (1 = best); medians so that
    one blow-up cannot dominate, with the failure rate (runs above ``FAILURE_MULTIPLE`` × the cell's
    median) reported beside. The table gives, per guarantee, the geometric-mean regret over the
    sweep (the ranking key), the worst regret, the settings won and the worst failure rate. Rows are
    ordered by guarantee, then rank; estimators of different guarantees are never ranked together.
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
    s = ref_summarise(ref_private_only(frame), metric)
    s = s[np.isfinite(s["median"])]
    if s.empty:
        return pd.DataFrame(columns=cols)
    best = s.groupby(["guarantee", "setting"])["median"].transform("min")
    s = s.assign(regret=s["median"] / best, win=s["median"] == best)
    t = (
        s.groupby(["guarantee", "estimator", "label"], sort=False)
        .agg(
            mean_regret=("regret", lambda r: float(np.exp(np.mean(np.log(r))))),
            worst_regret=("regret", "max"),
            wins=("win", "sum"),
            settings=("regret", "count"),
            failure_rate=("failure_rate", "max"),
        )
        .reset_index()
    )
    t = t.sort_values(["guarantee", "mean_regret", "worst_regret"], kind="stable").reset_index(
        drop=True
    )
    t.insert(1, "rank", t.groupby("guarantee").cumcount() + 1)
    t["wins"] = t["wins"].astype(int)
    # the share of far-off runs over the sweep: the far-off table's number
    t["failure_rate"] = t["estimator"].map(
        ref_tail_table(frame, metric).set_index("estimator")["failure_rate"]
    )
    return t[cols]


def ref_needed_for_target(
    frame: pd.DataFrame,
    target: float,
    by: str = "budget",
    metric: str = "l2",
    fixed: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Accuracy first: the ``by`` value (budget or n) each estimator needs for median error ``target``.

    Interpolates log(error) against log(``by``) linearly between the two sweep points that bracket
    the target (no extrapolation: ``None`` with a reason when the target lies outside the sweep).
    ``fixed`` selects the other swept keys (e.g. ``{"d": 64}``) when the sweep is a grid.
    """
    if by not in ("budget", "n"):
        raise ValueError(f"by must be 'budget' or 'n' (error falls as they grow); got {by!r}.")
    if not (target > 0 and math.isfinite(target)):
        raise ValueError(f"target must be a positive error; got {target!r}.")
    f = frame
    for k, v in (fixed or {}).items():
        f = f[np.isclose(f[k].astype(float), float(v))]
    s = ref_summarise(f, metric).rename(
        columns={"mean": "_mean", "median": "mean"}
    )  # medians, like the chart
    if by == "budget":  # a non-private reference spends no budget: nothing to read off
        s = s[s["notion"] != "none"]
    rows = []
    for (est, label, private), g in s.groupby(["estimator", "label", "private"], sort=False):
        g = g.groupby(by, as_index=False)["mean"].mean().sort_values(by)
        xs, ys = g[by].to_numpy(float), g["mean"].to_numpy(float)
        ok = np.isfinite(ys) & (ys > 0)
        xs, ys = xs[ok], ys[ok]
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
        rows.append(
            {
                "estimator": est,
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


def ref_target_sentence(
    needed: pd.DataFrame, by: str, target: float, metric: str, unit: str = "rho"
) -> str:
    """The accuracy-first result in words: the private estimator that needs least, and the next one.

    Needs at the sweep's smallest value are reported as "at most" (the sweep cannot say how much
    less would do), and ratios below 1.05 as "about the same" (never "1 times more").
    """
    col = f"{by}_needed"
    what = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}.get(unit, "budget") if by == "budget" else "n"
    ok = needed[needed[col].notna() & needed["private"].astype(bool)]
    mlabel = METRIC_LABEL.get(metric, metric)
    if ok.empty:
        return f"No private estimator reaches a median {mlabel} error of {_fmt(target)} within this sweep."

    def amount(row: pd.Series) -> str:
        at_most = str(row["note"]).startswith("already")
        return (
            f"{what} ≤ {_fmt(row[col])} (the sweep's smallest)"
            if at_most
            else f"{what} ≈ {_fmt(row[col])}"
        )

    best = ok.iloc[0]
    words = (
        f"For a median {mlabel} error of {_fmt(target)}, **{best['label']}** needs {amount(best)}"
    )
    if len(ok) > 1:
        other = ok.iloc[1]
        ratio = float(other[col] / best[col])
        both_floor = str(best["note"]).startswith("already") and str(other["note"]).startswith(
            "already"
        )
        if both_floor:
            words += f"; {other['label']} also reaches it at the sweep's smallest {what}: pick a smaller target"
        elif ratio < 1.05:
            words += f"; the next, {other['label']}, needs about the same ({_fmt(other[col])})"
        else:
            words += (
                f"; the next, {other['label']}, needs {_fmt(other[col])} ({times(ratio)} as much)"
            )
    return words + ". Interpolated on the sweep (log–log), never extrapolated."


def ref_headline(
    frame: pd.DataFrame,
    *,
    x: str = "budget",
    metric: str = "l2",
    at: float | None = None,
    versus: str | None = None,
    unit: str = "rho",
    where: Mapping[str, Any] | None = None,
) -> str:
    """The number in words: the best private estimator at one point, per guarantee, by median error.

    Only private estimators (no oracle, no non-private reference) are named, and only against
    estimators with the same guarantee (notion and neighbouring relation); with several guarantees
    there is one clause per guarantee, side by side. Medians over runs, with the failure rate
    (runs above ``FAILURE_MULTIPLE`` × the median) when it is not zero. ``at`` is the ``x`` value
    (default: the middle of the sweep); ``versus`` an estimator id to compare with (default: the
    runner-up within the same guarantee). Example: "At ρ = 0.25, among ρ-zCDP, replace-one
    estimators PLAN has the lowest median ℓ2 error, 0.41, 2.3 times below IOME's (0.94)."
    """
    s = ref_summarise(ref_private_only(frame), metric)
    s = _select(s, where or {})
    s = s[np.isfinite(s["median"])]
    if s.empty:
        return "No private estimator produced an estimate at these settings."
    xs = np.sort(s[x].unique())
    point = (
        xs[len(xs) // 2]
        if at is None
        else xs[np.argmin(np.abs(np.log(xs / at)))]
        if x != "skew"
        else xs[np.argmin(np.abs(xs - at))]
    )
    here = (
        s[np.isclose(s[x], point)]
        .groupby(["guarantee", "estimator", "label"], as_index=False)
        .agg(median=("median", "mean"), failure_rate=("failure_rate", "max"))
        .sort_values("median")
    )
    name = {
        "budget": {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}.get(unit, "budget"),
        "n": "n",
        "d": "d",
        "skew": "α",
    }[x]
    mlabel = METRIC_LABEL.get(metric, metric)
    runs = int(frame["rep"].nunique())
    groups = list(dict.fromkeys(here["guarantee"]))
    clauses = []
    for g in groups:
        h = here[here["guarantee"] == g]
        best = h.iloc[0]
        lead = f"among {g} estimators " if len(groups) > 1 else ""
        text = f"{lead}**{best['label']}** has the lowest median {mlabel} error, {_fmt(best['median'])}"
        if best["failure_rate"] > 0:
            text += f" ({best['failure_rate']:.0%} of its runs above {FAILURE_MULTIPLE:g}× that)"
        others = h.iloc[1:]
        if versus is not None and versus != best["estimator"] and versus in set(h["estimator"]):
            other = h[h["estimator"] == versus].iloc[0]
        elif not others.empty:
            other = others.iloc[0]
        else:
            clauses.append(text)
            continue
        ratio = other["median"] / best["median"] if best["median"] > 0 else math.inf
        if ratio < 1.1:
            text += f", about the same as {other['label']}'s ({_fmt(other['median'])})"
        else:
            text += (
                f", **{plain(ratio, 2)} times below** {other['label']}'s ({_fmt(other['median'])})"
            )
        clauses.append(text)
    out = f"At {name} = {_fmt(point)}, " + "; ".join(clauses) + f" (medians of {runs} runs)."
    if len(groups) > 1:
        out += (
            " Estimators with different guarantees are compared side by side, not ranked: each gets the same "
            "budget by the conversion stated below."
        )
    return out


def ref_views(config_json: str, frame: pd.DataFrame, x: str, metric: str) -> tuple:
    """pages/compare.py's ``_views`` before the numpy summaries (with the reference summaries)."""
    cfg = ExperimentConfig.from_json(config_json)
    versus = "iome_paper" if "iome_paper" in set(frame["estimator"]) else None
    at = {"budget": cfg.budget, "n": cfg.n, "d": cfg.d, "skew": cfg.base_skew()}[x]
    sentence = ref_headline(frame, x=x, metric=metric, at=at, versus=versus, unit=cfg.unit)
    base = (
        frame[np.isclose(frame["budget"], cfg.budget)]
        if x != "budget"
        else frame[np.isclose(frame["budget"], at)]
    )
    rules = (base if not base.empty else frame).drop_duplicates("notion")[["notion", "conversion"]]
    conv_text = "; ".join(
        f"{'pure-DP' if r.notion == 'pure' else 'zCDP'} estimators: {r.conversion}"
        for r in rules.itertuples()
        if r.notion != "none"
    )
    if conv_text:
        sentence += f" Budget conversions there — {conv_text}."
    fig, data = error_figure(frame, x=x, metric=metric, config=cfg)
    return fig.to_dict(), data, sentence, ref_regret_table(frame, metric)


def ref_tail_table(frame: pd.DataFrame, metric: str = "l2", factor: float = 3.0) -> pd.DataFrame:
    """The pandas tail table (before it moved to numpy), kept as the reference."""
    col = f"err_{metric}"
    work = ref_private_only(frame)
    work = work[(work["failed"] == "") & np.isfinite(work[col])]
    if work.empty:
        return pd.DataFrame(
            columns=["estimator", "label", "median", "failure_rate", "worst_ratio", "runs"]
        )
    med = work.groupby(["estimator", "setting"], sort=False)[col].transform("median")
    work = work.assign(_med=med, _fail=work[col] > factor * med)
    per_point = work.groupby(["estimator", "setting"], sort=False).agg(
        m=(col, "median"), mx=(col, "max")
    )
    per_point["ratio"] = per_point["mx"] / per_point["m"].where(per_point["m"] > 0)
    g = work.groupby("estimator", sort=False)
    out = pd.DataFrame(
        {
            "median": per_point.groupby(level=0, sort=False)["m"].median(),
            "failure_rate": g["_fail"].mean(),
            "worst_ratio": per_point.groupby(level=0, sort=False)["ratio"].max(),
            "runs": g.size(),
        }
    ).reset_index()
    out = out.merge(
        frame[["estimator", "label"]].drop_duplicates("estimator"), on="estimator", how="left"
    )
    return out[["estimator", "label", "median", "failure_rate", "worst_ratio", "runs"]]


# --------------------------------------------------------------------------------------------
# frames


def _engine(x: str, reps: int = 4, **kw: Any) -> pd.DataFrame:
    base = ExperimentConfig(
        distribution="gaussian",
        n=300,
        d=4,
        skew=0.0,
        budget=0.5,
        unit="rho",
        seed=3,
        estimators=["empirical", "plan", "iome_paper", "gaussian_private", "pmwm_zcdp"],
        **kw,
    )
    values = {**base.to_dict(), "repetitions": reps, "sweep": {x: base.sweep_around(x)}}
    return run(ExperimentConfig.from_dict(values).to_json(indent=None))


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def _synthetic(seed: int) -> pd.DataFrame:
    """A hand-made frame: 1–5 estimators (one the registry does not know), 1–8 runs per cell,
    NaN and infinite errors, failed and warned runs, ties at zero, rows in or out of order."""
    rng = np.random.default_rng(seed)
    ests = [("plan", "zcdp"), ("iome_paper", "zcdp"), ("empirical", "none"), ("mystery", "pure")]
    ests += [("pmwm_pure", "pure")]

    def value() -> float:
        if rng.random() > 0.1:
            return float(rng.lognormal(-1.0, 1.0))
        return np.nan if rng.random() < 0.7 else np.inf

    rows = []
    for e, notion in ests[: rng.integers(1, 6)]:
        for s, b in enumerate([0.1, 0.3, 1.0]):
            for r in range(int(rng.integers(1, 9))):
                rows.append(
                    {
                        **dict(estimator=e, name=e, label=e.upper(), color="#000", notion=notion),
                        **dict(
                            family="x", neighbouring="replace-one", setting=s, n=100 * (1 + s % 2)
                        ),
                        **dict(d=4, skew=0.0, budget=b, rep=r, conversion="c"),
                        **{f"{k}_l2": value() for k in ("err", "sampling", "clipping", "noise")},
                        "seconds": value(),
                        "failed": "" if rng.random() > 0.1 else "boom",
                        "warnings": "" if rng.random() > 0.2 else "fell back",
                    }
                )
    f = pd.DataFrame(rows)
    if rng.random() < 0.3:
        f.loc[f.index[: len(f) // 3], "err_l2"] = 0.0
    return f.sample(frac=1.0, random_state=seed) if rng.random() < 0.5 else f
