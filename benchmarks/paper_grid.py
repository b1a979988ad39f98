"""PLAN and IOME on the PLAN paper's Gaussian grid: median, p90 and worst run per cell.

Run: ``.venv/bin/python benchmarks/paper_grid.py [--reps 50] [--quick] [--before] [--out FILE]``
(or ``make paper-grid``).

Cases (docs/estimators/plan.md §7, Table 1, with the authors' ranges, §10.4; one cell at
many seeds: benchmarks/paper_grid_cell.py and docs/estimators/paper-grid.md):

* A: n = 4000, Σ = I, mean 0, public range ±25 √d, d ∈ {16, ..., 2048};
* B: n = 10⁴, d = 512, σᵢ² = (d/i)^α, α ∈ {0, 0.5, ..., 2}, mean 10, range ±50 d √σ_max;
* C: as B with α = 2, d ∈ {16, ..., 2048}.

ρ ∈ {1/16, 1/8, 1/4, 1/2, 1} everywhere. Every cell runs the empirical mean, ``plan`` and
``iome_paper`` (the robust defaults: CoinPress centres, PLAN's capped private variances, both
with the 0.2%-step log-grid radius) through :func:`dpcore.experiments.run` with a process pool of
two; ``--before`` adds the paper's own steps (``plan`` with ``center_step="paper",
radius_step="paper"`` and ``iome_as_published``) for comparison (``--only-before``: those alone).
The ℓ2 error is to the true mean.
A cell passes when its worst run is within 3x its median.

With ``--out`` the file is written as the run goes: a header first, then each chunk's table (one
``d``, or one ``alpha`` for case B, at one budget) as soon as it finishes (``--order`` puts chosen
chunks first), and the full table with the summary at the end, so an interrupted run still leaves
every finished chunk.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dpcore import experiments

RHOS = [1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0]
ROBUST = ["empirical", "plan", "iome_paper"]
BEFORE = [
    {
        "name": "plan",
        "id": "plan_before",
        "params": {"center_step": "paper", "radius_step": "paper"},
    },
    {"name": "iome_as_published", "id": "iome_before"},
]


def configs(
    reps: int,
    quick: bool,
    before: bool,
    only_before: bool = False,
    subset: dict[str, list[float]] | None = None,
) -> dict[str, dict]:
    ests = ["empirical", *BEFORE] if only_before else ROBUST + (BEFORE if before else [])
    common = {
        "distribution": "gaussian",
        "unit": "rho",
        "estimators": ests,
        "repetitions": reps,
        "seed": 2024,
        "truth": "population",
        "resample": "data",
        "metric": "l2",
    }
    a_d = [16, 64, 256, 1024] if quick else [16, 32, 64, 128, 256, 512, 1024, 2048]
    c_d = [16, 256, 1024] if quick else [16, 32, 64, 128, 256, 512, 1024, 2048]
    b_a = [0.0, 1.0, 2.0] if quick else [0.0, 0.5, 1.0, 1.5, 2.0]
    sub = subset or {}
    a_d, c_d, b_a = sub.get("a_d", a_d), sub.get("c_d", c_d), sub.get("b_alpha", b_a)
    b_rho = sub.get("b_rho", RHOS)
    return {
        "A": {
            **common,
            "name": "grid_a",
            "data_params": {"mean": 0.0},
            "n": 4000,
            "d": 16,
            "skew": 0.0,
            "budget": 1.0,
            "sweep": {"d": a_d, "budget": RHOS},
            "bounds": {"half_width": 25.0, "scale": "sqrt_d", "center": 0.0},
        },
        "B": {
            **common,
            "name": "grid_b",
            "data_params": {"mean": 10.0},
            "n": 10_000,
            "d": 512,
            "skew": 0.0,
            "budget": 1.0,
            "sweep": {"skew": b_a, "budget": b_rho},
            "bounds": {"half_width": 50.0, "scale": "d_sqrt_max_sigma", "center": 10.0},
        },
        "C": {
            **common,
            "name": "grid_c",
            "data_params": {"mean": 10.0},
            "n": 10_000,
            "d": 16,
            "skew": 2.0,
            "budget": 1.0,
            "sweep": {"d": c_d, "budget": RHOS},
            "bounds": {"half_width": 50.0, "scale": "d_sqrt_max_sigma", "center": 10.0},
        },
    }


def chunks(
    cfgs: dict[str, dict], cases: str, order: str | None
) -> list[tuple[str, str, float, float]]:
    """``(case, sweep key, value, rho)`` per chunk: the ``order`` chunks first, then the rest."""
    every = []
    for case in cases:
        key = "skew" if case == "B" else "d"
        every += [
            (case, key, float(v), float(r))
            for v in cfgs[case]["sweep"][key]
            for r in cfgs[case]["sweep"]["budget"]
        ]
    first = []
    for item in (order or "").split(","):
        if item.strip():
            case, value, rho = [*item.strip().split(":"), "*", "*"][:3]
            first += [
                c
                for c in every
                if c[0] == case
                and (value == "*" or float(value) == c[2])
                and (rho == "*" or float(rho) == c[3])
                and c not in first
            ]
    return first + [c for c in every if c not in first]


def table(frame: pd.DataFrame, case: str) -> pd.DataFrame:
    """One row per (cell, estimator): median, p90, max, max/median and the failure rate
    (runs beyond 3x the cell's median)."""

    def stats(e: pd.Series) -> pd.Series:
        v = e.to_numpy(float)
        med = float(np.median(v))
        return pd.Series(
            {
                "median": med,
                "p90": float(np.quantile(v, 0.9)),
                "max": float(v.max()),
                "max/median": float(v.max() / med) if med > 0 else np.inf,
                "fail>3x": float(np.mean(v > 3 * med)),
                "runs": v.size,
            }
        )

    out = (
        frame.groupby(["d", "skew", "budget", "estimator"], sort=True)["err_l2"]
        .apply(stats)
        .unstack()
    )
    out = out.reset_index()
    out.insert(0, "case", case)
    return out


def to_markdown(t: pd.DataFrame) -> str:
    cols = [
        "case",
        "d",
        "skew",
        "budget",
        "estimator",
        "median",
        "p90",
        "max",
        "max/median",
        "fail>3x",
        "runs",
    ]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in t[cols].iterrows():
        cells = [
            str(r["case"]),
            f"{int(r['d'])}",
            f"{r['skew']:g}",
            f"{r['budget']:g}",
            str(r["estimator"]),
            f"{r['median']:.4g}",
            f"{r['p90']:.4g}",
            f"{r['max']:.4g}",
            f"{r['max/median']:.2f}",
            f"{r['fail>3x']:.0%}",
            f"{int(r['runs'])}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    args = _parser().parse_args()
    cfgs = configs(
        args.reps,
        args.quick,
        args.before,
        args.only_before,
        {k: v for k in ("a_d", "c_d", "b_alpha", "b_rho") if (v := getattr(args, k)) is not None},
    )
    if args.out is not None:  # written as it goes: a partial run leaves every finished chunk
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            f"# PLAN / IOME on the paper's Gaussian grid ({args.reps} runs per cell)\n\n"
            "Each table is appended when its chunk (one d, or one alpha for case B, at one rho) finishes.\n"
        )
    parts = []
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        for case, key, value, rho in chunks(cfgs, args.cases, args.order):
            t = _run_chunk(cfgs[case], case, key, value, rho, pool, args.out)
            if t is None:
                continue
            parts.append(t)
            if args.csv is not None:  # rewritten after each chunk, like --out
                pd.concat(parts, ignore_index=True).to_csv(args.csv, index=False)
    allt = pd.concat(parts, ignore_index=True)
    summary = _summary(allt)
    print(summary)
    if args.out is not None:
        with args.out.open("a") as fh:
            fh.write("\n## All cells\n\n" + to_markdown(allt) + "\n" + summary + "\n")


def _parser() -> argparse.ArgumentParser:
    """The command line's options."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="a subset of d and alpha")
    ap.add_argument(
        "--before", action="store_true", help="also run the paper's own steps (as published)"
    )
    ap.add_argument(
        "--only-before",
        action="store_true",
        help="only the paper's own steps (and the empirical mean)",
    )
    ap.add_argument("--cases", default="ABC")
    ap.add_argument(
        "--order",
        default=None,
        help="run these (case:value[:rho]) chunks first, e.g. 'C:1024,B:2,A:*:0.125' (value = d, "
        "or alpha for B; '*' = any; no rho = every rho); the rest of --cases follows",
    )
    for key in ("a_d", "c_d", "b_alpha", "b_rho"):
        ap.add_argument(
            f"--{key.replace('_', '-')}",
            type=lambda v: [float(t) for t in v.split(",")],
            default=None,
            help="comma-separated override of that sweep",
        )
    ap.add_argument("--out", type=Path, default=None, help="write the markdown table here")
    ap.add_argument(
        "--csv",
        type=Path,
        default=None,
        help="also write every finished chunk's rows (median, p90, max, ...) to this CSV",
    )
    return ap


def _run_chunk(
    cfg: dict,
    case: str,
    key: str,
    value: float,
    rho: float,
    pool: concurrent.futures.Executor,
    out: Path | None,
) -> pd.DataFrame | None:
    """One chunk's table, printed and appended to ``out``; None (with a note) when refused."""
    # One experiments.run per (d or alpha, rho): the data and estimator seeds are
    # addressed by content (dpcore.experiments.engine), so the chunks give the same
    # numbers as one run of the whole case.
    chunk = {**cfg, "sweep": {key: [value], "budget": [rho]}}
    t0 = time.perf_counter()
    try:
        frame = experiments.run(chunk, executor=pool)
    except ValueError as err:  # refused by dpcore.limits: noted, skipped
        note = f"case {case}, {key} = {value:g}, rho = {rho:g}: skipped ({err})"
        print(note, flush=True)
        if out is not None:
            with out.open("a") as fh:
                fh.write(f"\n{note}\n")
        return None
    t = table(frame, case)
    head = (
        f"case {case}, {key} = {value:g}, rho = {rho:g}: {len(frame)} runs in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print(head, flush=True)
    print(to_markdown(t), flush=True)
    if out is not None:
        with out.open("a") as fh:
            fh.write(f"\n{head}\n\n{to_markdown(t)}\n")
    return t


def _summary(allt: pd.DataFrame) -> str:
    """How many (cell, estimator) pairs had a run beyond 3x the median, and which."""
    private = allt[allt["estimator"] != "empirical"]
    bad = private[private["max/median"] > 3]
    return (
        f"\n{len(private)} (cell, estimator) pairs; {len(bad)} with a run beyond 3x the median: "
        + (
            ", ".join(
                f"{r.case} d={int(r.d)} α={r.skew:g} ρ={r.budget:g} {r.estimator} ({r._9:.1f}x)"
                for r in bad.itertuples()
            )
            or "none"
        )
    )


if __name__ == "__main__":
    main()
