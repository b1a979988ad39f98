"""Our paper grid next to the PLAN authors' own runs, cell by cell.

Run: ``.venv/bin/python benchmarks/paper_grid_authors.py [OURS ...] [--authors DIR] [--out FILE]``
(``make paper-grid`` runs it after the grid).

``OURS`` is what ``benchmarks/paper_grid.py`` wrote: its ``--csv`` file (one row per cell and
estimator, with ``median`` and ``max``) or its markdown ``--out`` file (the same rows as tables);
several files are merged, a later file's row replacing an earlier one's. ``DIR`` holds the
authors' ``gaussianA.csv``, ``gaussianB.csv`` and ``gaussianC.csv`` (``benchmarks/data/authors``,
copied unchanged from their experiments repository; README.md there says from where): one row per
run, columns ``Algorithm, d, rho, r, run, error`` (ℓ2 error to the true mean, 50 runs per cell).

A cell is a (case, d, α, ρ, estimator) for which the authors have runs: their ``PLAN`` (named
``PLAN-E-ULTIMATE++`` in cases A and B) is our ``plan`` and their ``Instance optimal`` our
``iome_paper`` (docs/estimators/paper-grid.md). It passes when our median error is at most
1.25x theirs and our worst run at most 3x their worst. Each row also gives the ratio of the
two empirical means' medians on each side's own data (no privacy, so a ratio away from 1 is the
draw of the data sets, not an estimator), and the median ratio divided by it (``÷ empirical``: how
far our estimator's median is from theirs beyond what the data sets explain). A cell the authors
have and we did not run counts against us ("not run").
"""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent
AUTHORS_DIR = ROOT / "data" / "authors"
#: The authors' algorithm names and ours.
NAMES = {
    "PLAN": "plan",
    "PLAN-E-ULTIMATE++": "plan",
    "Instance optimal": "iome_paper",
    "Empirical mean (non-private)": "empirical",
}
PRIVATE = ("plan", "iome_paper")
KEYS = ["case", "d", "skew", "budget", "estimator"]
MEDIAN_TOL = 1.25
WORST_TOL = 3.0


def authors_runs(folder: Path = AUTHORS_DIR) -> pd.DataFrame:
    """Every run of the authors' A, B and C grids with our names: ``KEYS`` + ``err_l2``."""
    parts = []
    for case in "ABC":
        raw = pd.read_csv(folder / f"gaussian{case}.csv")
        raw = raw[raw["Algorithm"].isin(NAMES)]
        parts.append(
            pd.DataFrame(
                {
                    "case": case,
                    "d": raw["d"].astype(int),
                    "skew": raw["r"].astype(float),
                    "budget": raw["rho"].astype(float),
                    "estimator": raw["Algorithm"].map(NAMES),
                    "err_l2": raw["error"].astype(float),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Median, worst run and number of runs per cell of a per-run frame."""
    g = runs.groupby(KEYS, sort=True)["err_l2"]
    return pd.DataFrame({"median": g.median(), "max": g.max(), "runs": g.size()}).reset_index()


def _markdown_rows(text: str) -> pd.DataFrame:
    """The table rows of a ``paper_grid.py`` markdown file (header ``| case | d | ...``)."""
    rows = [ln for ln in text.splitlines() if re.match(r"^\| [ABC] \|", ln)]
    header = "case,d,skew,budget,estimator,median,p90,max,max/median,fail>3x,runs"
    body = "\n".join(",".join(c.strip() for c in ln.strip("|").split("|")) for ln in rows)
    return pd.read_csv(io.StringIO(header + "\n" + body))


def ours(paths: list[Path]) -> pd.DataFrame:
    """Our per-cell ``median``, ``max``, ``runs`` and ``source`` (the file's name) from
    ``paper_grid.py`` CSV or markdown files; a later file's row replaces an earlier one's."""
    parts = []
    for path in paths:
        t = pd.read_csv(path) if path.suffix == ".csv" else _markdown_rows(path.read_text())
        parts.append(t[[*KEYS, "median", "max", "runs"]].assign(source=path.name))
    frame = pd.concat(parts, ignore_index=True)
    frame["d"] = frame["d"].astype(int)
    frame[["skew", "budget"]] = frame[["skew", "budget"]].astype(float)
    return frame.drop_duplicates(KEYS, keep="last").reset_index(drop=True)


def compare(
    our: pd.DataFrame,
    their: pd.DataFrame,
    median_tol: float = MEDIAN_TOL,
    worst_tol: float = WORST_TOL,
) -> pd.DataFrame:
    """One row per cell the authors have (private estimators only), with both sides and a verdict.

    ``our`` and ``their`` are per-cell summaries (``KEYS``, ``median``, ``max``; ``their`` from
    :func:`summarise`). The verdict is ``pass``, ``median`` (our median above ``median_tol`` x
    theirs), ``worst`` (our worst run above ``worst_tol`` x their worst), ``median+worst`` or
    ``not run``. ``empirical ratio`` is our empirical mean's median over theirs in that cell.
    """
    cells = their[their["estimator"].isin(PRIVATE)]
    if "source" not in our:
        our = our.assign(source="")
    m = cells.merge(our, on=KEYS, how="left", suffixes=("_theirs", "_ours"))
    emp = (
        our[our["estimator"] == "empirical"]
        .drop(columns="source")
        .merge(their[their["estimator"] == "empirical"], on=KEYS[:-1], suffixes=("_o", "_t"))
    )
    emp["empirical_ratio"] = emp["median_o"] / emp["median_t"]
    m = m.merge(emp[[*KEYS[:-1], "empirical_ratio"]], on=KEYS[:-1], how="left")
    m["median_ratio"] = m["median_ours"] / m["median_theirs"]
    m["worst_ratio"] = m["max_ours"] / m["max_theirs"]
    m["beyond_data"] = m["median_ratio"] / m["empirical_ratio"]
    slow = m["median_ratio"] > median_tol
    wide = m["worst_ratio"] > worst_tol
    m["verdict"] = np.select(
        [m["median_ours"].isna(), slow & wide, slow, wide],
        ["not run", "median+worst", "median", "worst"],
        default="pass",
    )
    return m.sort_values(KEYS).reset_index(drop=True)


def summary(table: pd.DataFrame) -> str:
    """``N of M cells pass`` and the misses, one line each."""
    ok = table["verdict"] == "pass"
    lines = [f"{int(ok.sum())} of {len(table)} cells pass"]
    ran = table.dropna(subset=["source"])
    if ran["source"].nunique() > 1:
        counts = ran.groupby("source", sort=False)["verdict"]
        lines += [f"  {name}: {int((v == 'pass').sum())} of {v.size} pass" for name, v in counts]
    for _, row in table[~ok].iterrows():
        lines.append(
            f"- {row['case']} d={row['d']} α={row['skew']:g} ρ={row['budget']:g} "
            f"{row['estimator']}: {row['verdict']}"
            + (
                ""
                if row["verdict"] == "not run"
                else f" (median {row['median_ours']:.4g} vs {row['median_theirs']:.4g}, "
                f"{row['median_ratio']:.2f}x; worst {row['max_ours']:.4g} vs "
                f"{row['max_theirs']:.4g}, {row['worst_ratio']:.2f}x)"
            )
        )
    return "\n".join(lines)


def to_markdown(table: pd.DataFrame) -> str:
    cols = ["case", "d", "α", "ρ", "estimator", "ours: median", "theirs: median", "ratio"]
    cols += ["ours: worst", "theirs: worst", "ratio", "empirical ratio", "÷ empirical", "verdict"]
    several = table["source"].dropna().nunique() > 1
    cols += ["ours from"] if several else []
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]

    def num(v: float, fmt: str) -> str:
        return "—" if pd.isna(v) else format(v, fmt)

    for _, r in table.iterrows():
        cells = [r["case"], str(int(r["d"])), f"{r['skew']:g}", f"{r['budget']:g}"]
        cells += [r["estimator"], num(r["median_ours"], ".4g"), num(r["median_theirs"], ".4g")]
        cells += [num(r["median_ratio"], ".2f"), num(r["max_ours"], ".4g")]
        cells += [num(r["max_theirs"], ".4g"), num(r["worst_ratio"], ".2f")]
        cells += [num(r["empirical_ratio"], ".2f"), num(r["beyond_data"], ".2f")]
        cells += ["**" + r["verdict"] + "**"]
        cells += [str(r["source"]) if isinstance(r["source"], str) else "—"] if several else []
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ours", type=Path, nargs="+", help="paper_grid.py --csv or --out files")
    ap.add_argument("--authors", type=Path, default=AUTHORS_DIR)
    ap.add_argument("--out", type=Path, default=None, help="write the markdown table here")
    args = ap.parse_args()
    table = compare(ours(args.ours), summarise(authors_runs(args.authors)))
    text = (
        f"Our median ≤ {MEDIAN_TOL}x the authors' and our worst run ≤ {WORST_TOL:g}x their worst "
        f"(ours: {', '.join(str(p) for p in args.ours)}).\n\n"
        + to_markdown(table)
        + "\n\n"
        + summary(table)
        + "\n"
    )
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
