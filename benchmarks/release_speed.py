"""Release time against simulation time: ``release(...)`` vs the same entry on seeded NumPy noise.

For each entry, d and n: the median wall time of ``registry.run(..., rng=seed)`` (the simulation)
and of :func:`dpcore.release.release` (OpenDP's exact samplers, the accuracy and the certificate
included; the cache of simulated accuracies is emptied before each timed release, so every one
computes its accuracy), their ratio and whether the release meets the goal
``release <= 2 * sim + 0.5 s``; the last column is a release whose simulated accuracy is already
cached (same public parameters). OpenDP is imported and its measurements built by one small
release per entry before timing. An entry that cannot release says why.

Usage::

    .venv/bin/python benchmarks/release_speed.py            # d in {1, 100, 1000}, n in {1e3, 1e5}
    .venv/bin/python benchmarks/release_speed.py --max-cells 2e7 --repeats 3
    .venv/bin/python benchmarks/release_speed.py plan simplex_laplace   # some entries only
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
import warnings

import numpy as np

from dpcore import Budget, registry
from dpcore.release import release

rel_mod = importlib.import_module("dpcore.release")  # the module (dpcore.release is the function)

ENTRIES = {
    "clipped_laplace": Budget.pure(1.0),
    "clipped_box_zcdp": Budget.zcdp(0.5),
    "sum_known_n_laplace_replace": Budget.pure(1.0),
    "simplex_laplace": Budget.pure(1.0),
    "plan": Budget.zcdp(0.5),
    "gaussian_public": Budget.zcdp(0.5),
}


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _fresh_release(name: str, x: np.ndarray, budget: Budget) -> None:
    rel_mod._SIM_RESULTS.clear()
    release(name, x, budget, bounds=(0.0, 1.0), n_public=True)


def row(name: str, d: int, n: int, repeats: int) -> str:
    """One line of the table (times in seconds)."""
    x = np.random.default_rng(0).random((n, d))
    budget = ENTRIES[name]
    sim = _median_time(lambda: registry.run(name, x, budget, rng=0, bounds=(0.0, 1.0)), repeats)
    try:
        release(
            name, x[:50], budget, bounds=(0.0, 1.0), n_public=True
        )  # OpenDP imported, measurements built
        rel = _median_time(lambda: _fresh_release(name, x, budget), repeats)
        cached = _median_time(lambda: release(name, x, budget, bounds=(0.0, 1.0), n_public=True), 1)
    except ValueError as err:
        return f"| {name} | {d} | {n} | {sim:.4f} | refused: {str(err)[:70]} | | | |"
    goal = "yes" if rel <= 2 * sim + 0.5 else "NO"
    return (
        f"| {name} | {d} | {n} | {sim:.4f} | {rel:.4f} | {rel / sim:.1f}x | "
        f"{2 * sim + 0.5:.3f} | {goal} | {cached:.4f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-cells", type=float, default=2e7, help="skip n*d above this (memory)")
    ap.add_argument("entries", nargs="*", help="entries to time (default: all in ENTRIES)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("| entry | d | n | sim s | release s | ratio | goal s (2 sim + 0.5) | meets | cached s |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for name in args.entries or ENTRIES:
        for d in (1, 100, 1000):
            for n in (1_000, 100_000):
                if n * d > args.max_cells:
                    print(f"| {name} | {d} | {n} | skipped (n*d above --max-cells) | | | | | |")
                    continue
                print(row(name, d, n, args.repeats), flush=True)


if __name__ == "__main__":
    main()
