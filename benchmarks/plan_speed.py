"""Speed of PLAN, IOME, the Gaussian mechanism with a private radius and PMWM (zCDP) against one
``np.sort(x, axis=0)`` of the same array, timed in the same run.

Run: ``.venv/bin/python benchmarks/plan_speed.py [--repeats 3] [--quick] [--sizes 10000x2048,...]
[--out benchmarks/results/speed.md] [--envelope-medians on|off]``

``--envelope-medians on|off`` (or ``DPMEAN_ENVELOPE_MEDIANS=1|0``) sets
``dpcore.quantiles.exponential.ENVELOPE_MEDIANS`` for this run only (default: the module's, on):
PLAN's full-sort medians drawn without a sort or with one (docs/speed.md, "PLAN, round 8").

For each size the script times the yardstick sort and each estimator at its registered defaults
(``plan_l2``, ``iome_paper``, ``gaussian_private_radius``, ``winsorized_mean_zcdp``; ``rho = 1``)
and the one-pass limit ``x.mean(0)``. Every estimator run is paired with a sort timed right before
it (so load from other processes hits both alike) and the printed ratio is the median over
``repeats`` pairs. Ratios are of CPU time of this process (``time.process_time``, all threads): on
a shared machine it is the steadier one (it does not count time spent waiting for a core); the
wall-clock ratios are written too. Targets (docs/speed.md): PLAN and IOME at most 0.5 sort, PMWM
(zCDP) at most 1 sort, at every size of the table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from dpcore.estimators.gaussian import gaussian_private_radius
from dpcore.estimators.iome import iome_paper
from dpcore.estimators.plan import plan_l2
from dpcore.estimators.winsorized import winsorized_mean_zcdp
from dpcore.quantiles import exponential

#: the two headline sizes, n from 10^4 to 10^6 at d = 256, d from 64 to 4096 at n = 10^4
SIZES = [
    (10_000, 2048),
    (100_000, 256),
    (10_000, 256),
    (1_000_000, 256),
    (10_000, 64),
    (10_000, 1024),
    (10_000, 4096),
]
QUICK = [(4_000, 64)]
TARGETS = {"PLAN": 0.5, "IOME": 0.5, "PMWM (zCDP)": 1.0}

Run = Callable[[np.ndarray, tuple[float, float], int], object]
ESTIMATORS: dict[str, Run] = {
    "PLAN": lambda x, b, r: plan_l2(x, rho=1.0, bounds=b, rng=r),
    "IOME": lambda x, b, r: iome_paper(x, rho=1.0, bounds=b, rng=r),
    "Gaussian (private radius)": lambda x, b, r: gaussian_private_radius(
        x, rho=1.0, bounds=b, rng=r
    ),
    "PMWM (zCDP)": lambda x, b, r: winsorized_mean_zcdp(x, rho=1.0, bounds=b, rng=r),
    "x.mean(0)": lambda x, b, r: x.mean(0),
}


def _time(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def data(n: int, d: int) -> tuple[np.ndarray, tuple[float, float]]:
    """Gaussian C-like data (sigma_i = d / i) around 10 and a public range 100 sigma_max wide."""
    rng = np.random.default_rng(0)
    sigma = d / np.arange(1, d + 1)
    x = 10.0 + rng.standard_normal((n, d)) * sigma
    return x, (10.0 - 100.0 * sigma.max(), 10.0 + 100.0 * sigma.max())


def measure(n: int, d: int, repeats: int) -> tuple[float, dict[str, tuple[float, float]]]:
    """Median sort seconds (CPU) and, per estimator, the median (CPU, wall) ratio to the sort."""
    x, bounds = data(n, d)
    for run in ESTIMATORS.values():  # warm-up (imports, BLAS threads, caches)
        run(x[:200], bounds, 0)
    sorts: list[float] = []
    ratios: dict[str, tuple[float, float]] = {}
    for name, run in ESTIMATORS.items():
        cpu, wall = [], []
        for r in range(repeats):
            s = _time(lambda x=x: np.sort(x, axis=0))
            e = _time(lambda x=x, r=r, run=run: run(x, bounds, r))
            sorts.append(s[1])
            cpu.append(e[1] / s[1])
            wall.append(e[0] / s[0])
        ratios[name] = (statistics.median(cpu), statistics.median(wall))
    return statistics.median(sorts), ratios


def table(rows: list[tuple[int, int, float, dict[str, tuple[float, float]]]]) -> str:
    """The markdown table: one row per size, CPU-time ratio (wall-clock ratio in brackets)."""
    head = ["n", "d", "sort s (CPU)", *ESTIMATORS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n, d, s, ratios in rows:
        cells = [f"{n:,}", str(d), f"{s:.3f}"]
        cells += [f"{c:.2f} ({w:.2f})" for c, w in ratios.values()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="only a small size")
    ap.add_argument("--sizes", default="", help="comma-separated nxd, e.g. 10000x2048,100000x256")
    ap.add_argument("--out", type=Path, help="also write the table to this markdown file")
    env = {"1": "on", "0": "off"}.get(os.environ.get("DPMEAN_ENVELOPE_MEDIANS", ""))
    ap.add_argument(
        "--envelope-medians",
        choices=["on", "off"],
        default=env,
        help="draw PLAN's full-sort medians without a sort (on) or with one (off); default: "
        "the module's ENVELOPE_MEDIANS",
    )
    args = ap.parse_args()
    if args.envelope_medians is not None:
        exponential.ENVELOPE_MEDIANS = args.envelope_medians == "on"
    sizes = QUICK if args.quick else SIZES
    if args.sizes:
        sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]  # type: ignore[misc]
    rows = []
    for n, d in sizes:
        s, ratios = measure(n, d, args.repeats)
        rows.append((n, d, s, ratios))
        print(table(rows[-1:]).splitlines()[-1] if len(rows) > 1 else table(rows), flush=True)
    text = table(rows)
    targets = ", ".join(f"{k} <= {v:g}" for k, v in TARGETS.items())
    note = (
        f"Ratio to one np.sort(x, axis=0) of the same array, CPU time (wall clock in brackets), "
        f"median of {args.repeats}; targets: {targets}; "
        f"ENVELOPE_MEDIANS={exponential.ENVELOPE_MEDIANS}."
    )
    print(note)
    if args.out:
        args.out.write_text(text + "\n\n" + note + "\n")


if __name__ == "__main__":
    main()
