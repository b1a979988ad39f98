"""One cell of the PLAN paper's Gaussian grid at many seeds, error split by source.

Run: ``.venv/bin/python benchmarks/paper_grid_cell.py [--case C] [--d 16] [--reps 1000]
[--rhos 0.125,0.1875] [--extra plan_as_published] [--authors PATH]`` (written up in
``docs/estimators/paper-grid.md``).

Runs the empirical mean, ``plan`` and ``iome_paper`` (and the ``--extra`` estimators) on the
cell's data (the configuration of ``benchmarks/paper_grid.py``, new data every run) at every ρ of
the grid (or the ``--rhos``) and prints, per
estimator and ρ: the median ℓ2 error to the true mean, the medians of its three sources (sampling
error of the data, clipping bias, privacy noise: ``dpcore.metrics``' split), and the median over
runs of the error divided by the empirical mean's error on the same data.

It then asks how far the median of 50 runs (the paper's and its authors' code's number of runs per
cell) moves from one set of 50 data sets to the next: the 5%-95% range of the empirical mean's
50-run median over bootstrap resamples of the runs, next to the median of all runs.

With ``--authors`` (the authors' ``gaussianA.csv``, ``gaussianB.csv`` or ``gaussianC.csv`` in
``benchmarks/data/authors``, columns ``Algorithm, d, rho, r, run, error``), it prints the same
medians of the authors' runs at that ``d`` (α for case B), the ratio of each of their algorithms
to their empirical mean on the same data, and the chance that 50 fresh data sets give an
empirical-mean median at or below theirs (from the exact distribution of ``‖x̄ − μ‖``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paper_grid  # noqa: E402

from dpcore import experiments  # noqa: E402

AUTHORS = {
    "Empirical mean (non-private)": "empirical",
    "PLAN": "plan",
    "PLAN-E-ULTIMATE++": "plan",  # their PLAN's name in the A and B files
    "Instance optimal": "iome_paper",
}


def ours(
    case: str,
    d: int,
    reps: int,
    seed: int,
    rhos: list[float] | None = None,
    extra: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Every run of the cell at every ρ of the grid (or ``rhos``), with the error split."""
    cfg = paper_grid.configs(reps, quick=False, before=False)[case]
    key = "skew" if case == "B" else "d"
    budgets = rhos or paper_grid.RHOS
    chunk = {
        **cfg,
        "seed": seed,
        "estimators": [*cfg["estimators"], *extra],
        "sweep": {key: [float(d)], "budget": budgets},
    }
    return experiments.run(chunk)


def per_run_ratio(frame: pd.DataFrame, key: list[str]) -> pd.Series:
    """Median over runs of (estimator error / empirical mean's error on the same data)."""
    wide = frame.pivot_table(index=[*key, "rep"], columns="estimator", values="err_l2")
    ratio = wide.div(wide["empirical"], axis=0).drop(columns="empirical")
    return ratio.groupby(level=key).median().stack()


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Median error and median of each source per (ρ, estimator), and the per-run ratio."""
    cols = ["err_l2", "sampling_l2", "clipping_l2", "noise_l2"]
    out = frame.groupby(["budget", "estimator"])[cols].median()
    out["ratio to empirical"] = per_run_ratio(frame, ["budget"])
    return out


def fifty_run_median_spread(errors: np.ndarray, runs: int = 50, draws: int = 4000) -> tuple:
    """5%, 50% and 95% quantiles of the median of ``runs`` runs drawn from ``errors``."""
    g = np.random.default_rng(0)
    meds = np.median(g.choice(errors, size=(draws, runs), replace=True), axis=1)
    return tuple(np.quantile(meds, [0.05, 0.5, 0.95]))


def sampling_error_cdf(case: str, d: int, draws: int = 400_000) -> np.ndarray:
    """Sorted draws of the empirical mean's ℓ2 error ``‖x̄ − μ‖`` on the cell's distribution
    (``x̄ − μ ~ N(0, diag(σ²)/n)``, drawn directly), for its quantiles and CDF."""
    cfg = paper_grid.configs(1, quick=False, before=False)[case]
    alpha = cfg["skew"] if case != "B" else float(d)  # case B sweeps alpha at d = 512
    dim = d if case != "B" else cfg["d"]
    var = (dim / np.arange(1, dim + 1)) ** alpha / cfg["n"]
    g = np.random.default_rng(1)
    if alpha == 0:  # Σ = I: n ‖x̄ − μ‖² is chi-square with d degrees of freedom
        return np.sort(np.sqrt(g.chisquare(dim, draws) / cfg["n"]))
    return np.sort(np.sqrt((g.standard_normal((draws, dim)) ** 2 * var).sum(axis=1)))


def chance_fifty_run_median_below(draws: np.ndarray, x: float, runs: int = 50) -> float:
    """P(the median of ``runs`` independent errors <= x) = P(Binomial(runs, F(x)) >= runs/2)."""
    p = np.searchsorted(draws, x) / draws.size
    return float(stats.binom.sf(runs // 2 - 1, runs, p))


def authors(path: Path, d: int, case: str = "C") -> pd.DataFrame:
    """The authors' medians at ``d`` (α for case B) and each algorithm's per-run ratio to their
    empirical mean."""
    raw = pd.read_csv(path)
    raw = raw[(raw["r" if case == "B" else "d"] == d) & raw["Algorithm"].isin(AUTHORS)].copy()
    raw["estimator"] = raw["Algorithm"].map(AUTHORS)
    raw = raw.rename(columns={"rho": "budget", "run": "rep", "error": "err_l2"})
    out = raw.groupby(["budget", "estimator"])[["err_l2"]].median()
    out["ratio to empirical"] = per_run_ratio(raw, ["budget"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="C")
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2024, help="the grid's seed (2024) or another")
    ap.add_argument(
        "--rhos",
        type=lambda v: [float(t) for t in v.split(",")],
        default=None,
        help="comma-separated budgets (default: the grid's)",
    )
    ap.add_argument(
        "--extra", default="", help="comma-separated estimators to run as well (plan_as_published)"
    )
    ap.add_argument("--authors", type=Path, default=None)
    args = ap.parse_args()
    pd.set_option("display.width", 160)
    extra = tuple(e for e in args.extra.split(",") if e)
    frame = ours(args.case, args.d, args.reps, args.seed, args.rhos, extra)
    print(f"case {args.case}, d = {args.d}, {args.reps} runs per rho (seed {args.seed})")
    print(summary(frame).round(4).to_string())
    one_rho = frame["budget"] == frame["budget"].max()  # the data do not depend on ρ
    emp = frame[(frame["estimator"] == "empirical") & one_rho]["err_l2"]
    lo, mid, hi = fifty_run_median_spread(emp.to_numpy(float))
    print(
        f"\nempirical mean, all {emp.size} runs: median {np.median(emp):.4f}; the median of 50 "
        f"runs: 5% {lo:.4f}, 50% {mid:.4f}, 95% {hi:.4f}"
    )
    for name in ("empirical", "plan", "iome_paper", *extra):
        e = frame[(frame["estimator"] == name)]["err_l2"].to_numpy(float)
        print(f"{name}: worst run {e.max():.4f} = {e.max() / np.median(e):.2f}x the median")
    draws = sampling_error_cdf(args.case, args.d)
    print(f"theory: the median of the empirical mean's error is {np.median(draws):.4f}")
    if args.authors is not None:
        theirs = authors(args.authors, args.d, args.case)
        print(f"\nauthors' runs at d = {args.d}:")
        print(theirs.round(4).to_string())
        for rho, row in theirs.xs("empirical", level="estimator").iterrows():
            p = chance_fifty_run_median_below(draws, float(row["err_l2"]))
            print(f"rho = {rho:g}: P(a 50-run empirical median <= theirs) = {p:.4f}")


if __name__ == "__main__":
    main()
