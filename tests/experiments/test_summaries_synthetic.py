"""The numpy summaries against the pandas reference (_summaries.py) on hand-made frames: 1–5
estimators (one the registry does not know), NaN and infinite errors, failed and warned runs,
ties at zero, rows in or out of order; and the comparison can fail.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7; specs/plan.md §7 (the summaries the
Compare page draws).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.experiments import tail_table
from dpcore.experiments.summaries import needed_for_target, private_only, regret_table, summarise
from dpcore.figures.compare import headline
from tests.experiments._summaries import (
    _engine,
    _same,
    _synthetic,
    ref_headline,
    ref_needed_for_target,
    ref_private_only,
    ref_regret_table,
    ref_summarise,
    ref_tail_table,
)


def test_the_reference_can_fail() -> None:
    """The comparison sees a last-bit difference: a mean summed in another order is caught."""
    f = _engine("budget", reps=7)
    s = summarise(f)
    s.loc[3, "mean"] = np.nextafter(s.loc[3, "mean"], np.inf)
    with pytest.raises(AssertionError):
        _same(s, ref_summarise(f))


@pytest.mark.parametrize("seed", range(12))
def test_synthetic_frames(seed: int) -> None:
    f = _synthetic(seed)
    s = summarise(f)
    _same(s, ref_summarise(f))
    _same(private_only(f), ref_private_only(f))
    _same(regret_table(f, summary=s), ref_regret_table(f))
    for target in (0.1, 0.3, 1.0):
        _same(needed_for_target(f, target, summary=s), ref_needed_for_target(f, target))
    for at in (None, 0.3):
        assert headline(f, at=at, summary=s) == ref_headline(f, at=at)


@pytest.mark.parametrize("seed", range(12))
def test_tail_table_on_synthetic_frames(seed: int) -> None:
    f = _synthetic(seed)
    want = ref_tail_table(f)
    if want.empty:
        assert tail_table(f).empty
    else:
        _same(tail_table(f), want)
