"""IOME's family default ``iome`` and its registered variants (each an :class:`IomeSpec`,
``dataclasses.replace`` of ``iome``).

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §10.17.
"""

from __future__ import annotations

import dataclasses

from dpcore.estimate import Cost, Default
from dpcore.estimators._options import Family
from dpcore.estimators.iome.spec import IomeSpec

#: What every registered variant shares (zCDP, replace-one; units and relations follow).
IOME_FAMILY = Family(
    family="IOME",
    data_kinds=frozenset({"real", "bounded", "binary"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)


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

IOME_FAMILY.register(
    "iome_original",
    "IOME (original)",
    400,
    iome_original,
    color="#fd8d3c",
    detail="IOME (original parameters)",
    description="Random Hadamard rotation, private coordinate medians by binary search (10 steps), "
    "shifted clipped mean; the original code's parameters.",
)


IOME_FAMILY.register(
    "iome_as_published",
    "IOME as published",
    410,
    iome_as_published,
    color="#fc9272",
    detail="IOME as published (binary-search radius)",
    description="Reproduction of the PLAN authors' IOME: 20 noisy halvings of the radius range with 1% of the "
    "budget; one early wrong turn leaves the radius hundreds of times too large in about one run in ten.",
)
IOME_FAMILY.register(
    "iome_paper",
    "IOME",
    420,
    iome_paper,
    color="#D55E00",
    cost=Cost(per_value_us=0.25, overhead_ms=9.0),
    detail="IOME (PLAN paper's parameters, robust centre and radius)",
    default=Default(rank=20),
    description="IOME with the PLAN authors' changes (20 search steps, a doubled clip offset, 1%/99% "
    "radius/noise split), the centre found by CoinPress's shrinking ball and the radius by the "
    "exponential mechanism on a log grid.",
)
