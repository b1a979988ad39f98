"""Compare's first slide states its question before its controls (presenter mode's "The story" was
only widgets)."""

from __future__ import annotations

from dpcore.views import compare as cmp
from tests.pages._apptest import open_page
from tests.pages.test_home_first_screen import _leaves


def test_the_story_slide_asks_its_question_before_the_widgets() -> None:
    query = {"n": "500", "d": "8", "present": "1", "preset": "skew_favours_plan"}
    at = open_page("pages/compare.py", query, timeout=180, check=True)
    drawn = list(_leaves(at.main))
    asked = [
        k
        for k, e in enumerate(drawn)
        if e.type == "markdown" and e.value.startswith("**The question:**")
    ]
    preset = next(k for k, e in enumerate(drawn) if getattr(e, "key", None) == "cmp_preset")
    assert asked and asked[0] < preset, [e.type for e in drawn[: preset + 1]]
    assert drawn[asked[0]].value == cmp.question("skew_favours_plan")
    assert "Variance skew favours PLAN" in drawn[asked[0]].value


def _target_fit(at) -> list[str]:
    """The style rules that size the target chart's block below its number input."""
    return [h.proto.body for h in at.get("html") if "st-key-chart-compare_target" in h.proto.body]


def test_the_needs_slide_leaves_room_for_its_target_input() -> None:
    """Slide 5's chart block is shorter than a slide's default (15.5rem), by the height of the
    target input above it, so its x-axis title stays on screen (seen at 1280x720 and 1920x1080)."""
    query = {"n": "500", "d": "8", "present": "1"}
    at = open_page("pages/compare.py", query, timeout=180, check=True)
    for _ in range(4):
        next(b for b in at.button if b.label == "Next ▶").click().run()
    assert not at.exception
    rules = _target_fit(at)
    assert rules and "calc(100dvh - 21rem)" in rules[0], rules
    at = open_page("pages/compare.py", {"n": "500", "d": "8"}, timeout=180, check=True)
    assert _target_fit(at) == []  # out of presenter mode the page scrolls
