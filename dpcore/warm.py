"""Compile every numba kernel of dpcore before a server takes its first visitor.

:func:`dpcore._kernels.warm_up` compiles the eight kernels of ``dpcore/_kernels.py`` from typed
arguments. The other compiled kernels (PMWM's in ``dpcore/_kernels_pmwm.py``, PLAN's medians in
``dpcore/_kernels_quantile.py``, the rotation in ``dpcore/_kernels_rotation.py``, the binary
sampler in ``dpcore/data/binary_rows.py`` and PureDPPDE's row gather in
``dpcore/estimators/binary_product/kernels.py``) compile the first time a large enough run calls
them; :func:`warm_up` makes those runs once, on public synthetic data at the smallest sizes that
take the compiled paths (:data:`dpcore._kernels.MIN_SIZE` values), so that numba writes them all
to its cache. Without it, the first visitor of a fresh machine or container to open Binary
product at its defaults waited about 1.5 s more (its two kernels), and the first large PMWM,
PLAN or IOME run as long again for theirs (deploy/README.md, "Before serving: the compiled
kernels").

``python -m dpcore.warm`` runs it and prints how long it took (deploy/Dockerfile,
``benchmarks/replicas.py``). A simulation: seeded, no release; the runs' numbers are discarded.
"""

from __future__ import annotations

import time

import numpy as np

from dpcore import _kernels


def warm_up() -> list[str]:
    """Compile (or load from numba's cache) every kernel of dpcore: the typed calls of
    :func:`dpcore._kernels.warm_up`, then one run of PLAN, IOME and PMWM on standard normal data
    in two shapes (1,024 x 256 for the rotation and the pair statistics; 131,072 x 4, whose
    2^18 pair statistics take the windowed medians) and one Binary product run at its page's
    defaults. Returns what ran."""
    from dpcore.estimators.iome import iome_paper
    from dpcore.estimators.plan import plan_l2
    from dpcore.estimators.winsorized import winsorized_mean_zcdp
    from dpcore.experiments.studies.binary_product import binary_single_run
    from dpcore.streams import Streams

    done = _kernels.warm_up()
    g = np.random.default_rng(0)
    for n, d in ((_kernels.MIN_SIZE // 256, 256), (_kernels.MIN_SIZE // 2, 4)):
        x = g.standard_normal((n, d))
        bounds = (-10.0, 10.0)
        plan_l2(x, rho=1.0, bounds=bounds, rng=1)
        iome_paper(x, rho=1.0, bounds=bounds, rng=2)
        winsorized_mean_zcdp(x, rho=1.0, bounds=bounds, rng=3)
        done.append(f"plan, iome, pmwm at {n} x {d}")
    binary_single_run("skewed", 512, 300_000, 1.0, Streams(0), flip=False)
    done.append("binary product at 300000 x 512")
    _warm_envelope(g)
    done.append("the envelope medians' kernel (rows and padded blocks)")
    return done


def _warm_envelope(g: np.random.Generator) -> None:
    """Compile the kernel of the medians drawn without a sort
    (:data:`dpcore.quantiles.exponential.ENVELOPE_MEDIANS`, on above the kernels' size) for the two
    layouts it is called with: whole rows, and the rows of a padded block without its ends."""
    from dpcore import _kernels_quantile

    weight = np.exp(-np.abs(np.arange(9) - 4.0))
    z = g.standard_normal((4, 10))
    for rows in (np.ascontiguousarray(z[:, 1:-1]), z[:, 1:-1]):
        _kernels_quantile.envelope_draws(
            rows, np.full(4, -9.0), np.full(4, 9.0), weight, 8, g.random((4, 2, 3))
        )


if __name__ == "__main__":  # python -m dpcore.warm: the deploy's warm-up step
    start = time.process_time()
    steps = warm_up()
    print(
        f"{len(steps)} warm-up steps, every kernel ready, in {time.process_time() - start:.1f} s of CPU"
    )
