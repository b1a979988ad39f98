"""The story check of a first result says what it rests on (how many of the repetitions)."""

from __future__ import annotations

from dataclasses import replace

from dpcore.views.compare import PRESETS, CompareSettings, first_reps, shown_config, view
from dpcore.views.settings import DataSettings


def test_a_story_checked_on_its_first_result_says_so() -> None:
    data = DataSettings(**PRESETS["heavy_tails"].sidebar())
    settings = CompareSettings(data=data, preset="heavy_tails")
    first = replace(settings, shown_repetitions=first_reps(settings))
    shown = shown_config(first)
    assert (shown.repetitions, shown.sweep["budget"]) == (1, [0.0625, 0.25, 1.0])
    v = view(first)
    assert v.claim is not None
    kind, text = v.claim
    assert kind == "success", text
    assert "in this first result (seed 0, 1 of 8 repetitions per point" in text
    assert "Medians of 1 runs per point" in text
    assert len(v.frame) == 5 * 3  # the five estimators of the story at 3 budgets, once each
