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
