"""benchmarks/paper_grid.py: which chunks run first (--order), and the grid covers the authors' d."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location(
        "paper_grid", ROOT / "benchmarks" / "paper_grid.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PG = _module()
CFGS = PG.configs(50, quick=False, before=False)


def test_order_by_value_keeps_every_rho() -> None:
    first = PG.chunks(CFGS, "ABC", "C:1024,B:2")[:10]
    assert first == [("C", "d", 1024.0, r) for r in PG.RHOS] + [
        ("B", "skew", 2.0, r) for r in PG.RHOS
    ]


def test_order_by_rho_and_wildcard() -> None:
    every = PG.chunks(CFGS, "ABC", None)
    ordered = PG.chunks(CFGS, "ABC", "A:2048:0.125,C:*:1")
    assert ordered[0] == ("A", "d", 2048.0, 0.125)
    assert ordered[1:9] == [c for c in every if c[0] == "C" and c[3] == 1.0]
    assert sorted(ordered) == sorted(every)  # the rest follows, nothing twice


def test_grid_covers_the_authors_dimensions() -> None:
    """The authors ran A and C at d = 16, ..., 2048 (benchmarks/data/authors)."""
    assert CFGS["A"]["sweep"]["d"] == CFGS["C"]["sweep"]["d"] == [2**k for k in range(4, 12)]
