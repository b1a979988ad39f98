"""``FAILURE_MULTIPLE``, ``summarise``, ``guarantee_label``, ``_private_flags``, ``private_only``,
``regret_table``, ``needed_for_target`` (moved from ``experiments.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore.data.synthetic import generate
from dpcore.experiments.config import ExperimentConfig
from dpcore.privacy import Budget
from dpcore.theory import plan as theory

# --------------------------------------------------------------------------------------------
# summaries


#: A run "fails" when its error exceeds this multiple of the median error of the same estimator at the
#: same point (a blow-up against the estimator's own typical run); summaries state the failure rate
#: next to the median so that one blow-up can neither dominate nor hide (issue 15).
FAILURE_MULTIPLE = 3.0


def summarise(
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
    flags = _private_flags(frame)
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


def guarantee_label(notion: str, neighbouring: str) -> str:
    """A guarantee in words: notion and neighbouring relation (rankings never cross two of them)."""
    if notion == "none":
        return "not private"
    return f"{ {'pure': 'pure ε-DP', 'zcdp': 'ρ-zCDP'}.get(notion, notion) }, {neighbouring}"


def _private_flags(frame: pd.DataFrame) -> dict[Any, tuple[bool, str]]:
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


def private_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of private estimators: drops the non-private reference and oracle (teaching) estimators."""
    flags = _private_flags(frame)
    return frame[frame["estimator"].map(lambda e: flags[e][0]).astype(bool)]


def regret_table(frame: pd.DataFrame, metric: str = "l2") -> pd.DataFrame:
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
    s = summarise(private_only(frame), metric)
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
    return t[cols]


def needed_for_target(
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
    s = summarise(f, metric).rename(
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


#: PLAN's default noise share ρ3 = 0.5625 ρ (specs/plan.md §2; also the private-radius Gaussian mechanism's).
NOISE_SHARE = 0.5625


def theory_frame(summary: pd.DataFrame, cfg: ExperimentConfig, metric: str) -> pd.DataFrame:
    """Idealised theory curves at each sweep point (specs/plan.md §6), where they apply.

    Only for ℓ2 on real or bounded data drawn from the distribution (not contaminated): PLAN's
    noise ``G_2 sqrt(2/ρ3) ||σ||_1 / n`` and the
    Gaussian mechanism's ``sqrt(2/ρ3) sqrt(d) ||σ||_2 / n`` with σ known, clip margin 1 and the noise
    share ``ρ3 = 0.5625 ρ`` (ρ = the user budget in zCDP), combined with the sampling error
    ``||σ||_2 / sqrt(n)`` as ``sqrt(sampling² + noise²)`` (independent errors add in square; the
    sampling part is dropped when the truth is the empirical mean). They are shapes with idealised
    constants, not predictions of each run.
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
    sigmas: dict[tuple[int, float], np.ndarray] = {}
    for r in pts.itertuples(index=False):
        key = (int(r.d), float(r.skew))
        if key not in sigmas:  # the generator's population σ profile (its parameters, not a sample)
            sigmas[key] = generate(
                cfg.distribution, 2, int(r.d), float(r.skew), rng=0, **cfg.data_params
            ).true_std
        sigma = sigmas[key]
        rho = (
            Budget.from_unit(cfg.unit, float(r.budget), cfg.delta)
            .to_native("zcdp", cfg.conversion)  # type: ignore[arg-type]
            .value
        )
        rho3 = NOISE_SHARE * rho
        samp = 0.0 if cfg.truth == "empirical" else theory.sampling_error(sigma, int(r.n), 2.0)
        for name, f in (
            ("PLAN", theory.plan_noise_error),
            ("Gaussian mechanism", theory.gaussian_mechanism_noise_error),
        ):
            noise = f(sigma, int(r.n), rho3, 2.0)
            rows.append(
                {
                    "setting": r.setting,
                    "n": r.n,
                    "d": r.d,
                    "skew": r.skew,
                    "budget": r.budget,
                    "curve": f"theory: {name}",
                    "value": math.hypot(samp, noise),
                }
            )
    return pd.DataFrame(rows, columns=cols)
