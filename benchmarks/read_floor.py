"""The floor of PLAN's and IOME's reads: how many times each estimator reads the whole array, and
what those reads alone cost against one ``np.sort(x, axis=0)`` of it, timed in the same run.

Run: ``.venv/bin/python benchmarks/read_floor.py [--sizes 10000x2048,100000x256] [--repeats 5]
[--out benchmarks/results/read_floor.md]``

On large arrays every pass of these estimators over the data is one compiled kernel call
(:mod:`dpcore._kernels`, :mod:`dpcore._kernels_quantile`, :mod:`dpcore._kernels_rotation`); the
script counts those calls in one run at the registered defaults (``rho = 1``, the data and public
range of ``benchmarks/plan_speed.py``), the data check's one read among them
(:func:`dpcore._validation.check_data` through :func:`dpcore._kernels.max_magnitude_bits`). A pass costs at least one
read of the array, timed as ``x.sum()`` (numpy's vectorised sum: a read at memory speed). The
floor ``passes * read / sort`` is what the passes would cost if every kernel ran at memory speed
and nothing else (no median, no noise, no Python) took any time: an estimator whose floor is near
its target cannot meet it without reading the data fewer times (docs/speed.md, "PLAN and IOME:
the floor of their reads").
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import numpy as np
from plan_speed import data

from dpcore import _kernels, _kernels_quantile, _kernels_rotation
from dpcore.estimators.iome import iome_paper
from dpcore.estimators.plan import plan_l2

SIZES = [(10_000, 2048), (100_000, 256), (10_000, 256), (10_000, 64), (10_000, 4096)]
#: every kernel that reads the whole array once, by module
PASSES: dict[ModuleType, tuple[str, ...]] = {
    _kernels: (
        "clipped_sum_rows",
        "clipped_sum_columns",
        "centred_norms_columns",
        "weighted_sum_columns",
        "pair_distances_rows",
        "pair_distances_columns",
        "scaled_norms",
        "scaled_weighted_sum",
        "half_squared_pair_diffs",
        "max_magnitude_bits",
    ),
    _kernels_quantile: ("half_squared_columns",),
    _kernels_rotation: ("randomized_hadamard_rows",),
}
ESTIMATORS: dict[str, Callable[..., object]] = {"PLAN": plan_l2, "IOME": iome_paper}


@contextmanager
def counted() -> Iterator[collections.Counter[str]]:
    """Count the calls of every kernel of :data:`PASSES` while the block runs."""
    calls: collections.Counter[str] = collections.Counter()
    saved = [(m, name, getattr(m, name)) for m, names in PASSES.items() for name in names]

    def counting(name: str, fn: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    for m, name, fn in saved:
        setattr(m, name, counting(name, fn))
    try:
        yield calls
    finally:
        for m, name, fn in saved:
            setattr(m, name, fn)


def passes(name: str, x: np.ndarray, bounds: tuple[float, float]) -> tuple[int, dict[str, int]]:
    """Full passes over ``x`` of one run of estimator ``name``, and the kernel calls behind them."""
    with counted() as calls:
        ESTIMATORS[name](x, rho=1.0, bounds=bounds, rng=3)
    return sum(calls.values()), dict(calls)


def cpu(fn: Callable[[], object], repeats: int) -> float:
    """Median CPU seconds of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def row(n: int, d: int, repeats: int) -> list[str]:
    """One table row: the sort, one read, and per estimator its passes and their floor."""
    x, bounds = data(n, d)
    sort = cpu(lambda: np.sort(x, axis=0), max(1, repeats // 2))
    read = cpu(x.sum, repeats)
    cells = [f"{n:,}", str(d), f"{sort:.3f}", f"{read:.4f} ({read / sort:.3f})"]
    for name in ESTIMATORS:
        k, calls = passes(name, x, bounds)
        detail = ", ".join(f"{c} {v}" for c, v in sorted(calls.items()))
        cells.append(f"{k}: {k * read / sort:.2f} ({detail})")
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="", help="comma-separated nxd, e.g. 10000x2048")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, help="also write the table to this markdown file")
    args = ap.parse_args()
    sizes = (
        [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
        if args.sizes
        else SIZES
    )
    head = ["n", "d", "sort s (CPU)", "one read s (of a sort)"]
    head += [f"{e}: passes, floor in sorts (kernel calls)" for e in ESTIMATORS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n, d in sizes:
        lines.append("| " + " | ".join(row(n, d, args.repeats)) + " |")
        print(lines[-1], flush=True)
    note = (
        "Passes: kernel calls that read the whole array (the data check's one among them); "
        "floor = passes x one read / sort, CPU time, median of the repeats."
    )
    text = "\n".join(lines) + "\n\n" + note + "\n"
    print(note)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
