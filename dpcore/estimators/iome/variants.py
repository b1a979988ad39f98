"""IOME's family default ``iome`` and its registered variants (each an :class:`IomeSpec`,
``dataclasses.replace`` of ``iome``).

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §10.17.
"""

from __future__ import annotations

import dataclasses

from dpcore.estimate import REPLACE_ONE, ZCDP_UNITS, Cost, Default, EstimatorSpec, register
from dpcore.estimators.iome.spec import IomeSpec

#: The family default: every option free (``iome(x, rho=..., bounds=..., steps=..., ...)``).
iome = IomeSpec(name="iome")
#: The original code's parameters (``T = 10``, 25%/75% radius/noise split, offset x1).
iome_original = dataclasses.replace(
    iome, steps=10, radius_share=0.25, offset_factor=1.0, name="iome_original"
)
#: The PLAN paper's parameters (``T = 20``, 1%/99% split, offset doubled), the robust log-grid
#: radius and the CoinPress centre.
iome_paper = dataclasses.replace(
    iome, steps=20, radius_share=0.01, offset_factor=2.0, center_step="coinpress", name="iome_paper"
)
#: IOME exactly as the PLAN authors ran it: the paper preset with the binary-search radius.
iome_as_published = dataclasses.replace(
    iome_paper, center_step="binary_search", radius_step="binary_search", name="iome_as_published"
)

register(
    EstimatorSpec(
        name="iome_original",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="IOME (original)",
        detail="IOME (original parameters)",
        order=400,
        color="#fd8d3c",
        notion="zcdp",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=iome_original,
        family="IOME",
        description="Random Hadamard rotation, private coordinate medians by binary search (10 steps), "
        "shifted clipped mean; the original code's parameters.",
    )
)


register(
    EstimatorSpec(
        name="iome_as_published",
        cost=Cost(per_value_us=0.2, overhead_ms=2.0),
        label="IOME as published",
        detail="IOME as published (binary-search radius)",
        order=410,
        color="#fc9272",
        notion="zcdp",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=iome_as_published,
        family="IOME",
        description="Reproduction of the PLAN authors' IOME: 20 noisy halvings of the radius range with 1% of the "
        "budget; one early wrong turn leaves the radius hundreds of times too large in about one run in ten.",
    )
)
register(
    EstimatorSpec(
        name="iome_paper",
        cost=Cost(per_value_us=0.25, overhead_ms=9.0),
        label="IOME",
        detail="IOME (PLAN paper's parameters, robust centre and radius)",
        order=420,
        color="#D55E00",
        notion="zcdp",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="replace-one",
        units=ZCDP_UNITS,
        relations=REPLACE_ONE,
        func=iome_paper,
        family="IOME",
        default=Default(rank=20),
        description="IOME with the PLAN authors' changes (20 search steps, a doubled clip offset, 1%/99% "
        "radius/noise split), the centre found by CoinPress's shrinking ball and the radius by the "
        "exponential mechanism on a log grid.",
    )
)
