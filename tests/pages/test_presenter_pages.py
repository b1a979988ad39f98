"""Presenter mode on Compare and PLAN step by step under streamlit.testing: one idea per
screen through :class:`pages._present.Deck` (a bar with Previous/Next, a mark per section and a
style rule that hides the rest), PLAN's steps (a)-(d) one panel per screen, and a slide pack of
each page in the sidebar."""

from __future__ import annotations

import base64
import json
import re

from streamlit.testing.v1 import AppTest

from tests.pages._apptest import open_page


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _next(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Next ▶").click().run()
    assert not at.exception
    return at


def _style(at: AppTest) -> str:
    return next(
        m.value for m in at.markdown if m.value.startswith("<style>") and "dp-mark" in m.value
    )


def test_plan_steps_one_panel_per_screen_then_one_idea_per_screen():
    at = open_page("pages/plan_step_by_step.py", {"n": "600", "d": "6", "present": "1"}, check=True)
    assert at.session_state["present"] is True
    titles = []
    for k in range(4):
        specs = _specs(at)
        # the current step's panel alone: the other slides' charts are not sent (they are kept
        # for the slide pack and the notebook)
        assert len(specs) == 1
        # its title is a line above the chart in presenter mode (no legend can reach it there)
        assert specs[0]["layout"]["title"]["text"] == ""
        lines = [h.proto.body for h in at.get("html") if '<p class="dp-phone-title' in h.proto.body]
        titles.append(re.sub(r"<[^>]*>", "", lines[-1]))
        assert f'-s{k}-"]' in _style(at)
        _next(at)
    assert titles == [
        "(a) raw data and the true mean",
        "(b) recentred, then scaled",
        "(c) clipped to the ball of radius C",
        "(d) back in original space: the private mean",
    ]
    assert at.session_state["plan_slide"] == 4  # the noise ellipse, alone on its slide
    assert len(_specs(at)) == 1
    # every chart of the page is still kept for the slide pack and the notebook
    assert len(at.session_state["_ui_charts"]) >= 5
    # presenter mode: no chart downloads or code; the slide pack is in the sidebar
    keys = [b.key for b in at.get("download_button")]
    assert "plan_deck" in keys
    assert not any(k and k.startswith("download-plan_") for k in keys)
    assert not [e for e in at.expander if e.label == "Show the code"]
    # the slide's paragraph is folded into speaker notes, the slide keeps the chart
    assert [e for e in at.expander if e.label == "Speaker notes"]


def _rows_drawn(spec: dict) -> int:
    """How many data rows a PLAN step panel draws (its kept and clipped rows' markers)."""
    return sum(
        len(t["x"]) if isinstance(t["x"], list) else len(base64.b64decode(t["x"]["bdata"])) // 8
        for t in spec["data"]
        if str(t.get("name", "")).startswith("row ")
    )


def test_presenter_mode_draws_fewer_rows_and_says_so():
    """On a projector and a following phone the cloud keeps its shape with fewer points, and each
    point is an SVG element the browser lays out again at every redraw (docs/classroom.md)."""
    from pages._present import PRESENT_POINTS

    query = {"n": "3000", "d": "4"}
    at = open_page("pages/plan_step_by_step.py", {**query, "present": "1"}, check=True)
    assert _rows_drawn(_specs(at)[0]) == PRESENT_POINTS < 2000
    notes = " ".join(m.value for e in at.expander for m in e.markdown)
    assert f"{PRESENT_POINTS} of the 3,000 rows are drawn" in notes  # the speaker notes say so
    at = open_page("pages/plan_step_by_step.py", query, check=True)
    assert _rows_drawn(_specs(at)[0]) == 2000  # out of presenter mode: the page's 2,000
    assert "2,000 of the 3,000 rows are drawn" in " ".join(m.value for m in at.markdown)


def test_compare_story_steps_through_five_screens():
    at = open_page(
        "pages/compare.py", {"n": "500", "d": "8", "present": "1"}, timeout=180, check=True
    )
    bar = "\n".join(m.value for m in at.markdown)
    assert "1 / 5 · </span><b" in bar and ">The story</b>" in bar  # the number, then the title
    style = _style(at)
    assert '-s0-"]' in style and "display: none" in style
    for k in range(1, 5):
        _next(at)
        assert at.session_state["cmp_slide"] == k
        assert f'-s{k}-"]' in _style(at)
    assert next(b for b in at.button if b.label == "Next ▶").disabled
    assert "compare_deck" in [b.key for b in at.get("download_button")]
    at.toggle(key="present").set_value(False).run()
    assert not at.exception
    assert not [m for m in at.markdown if "dp-mark" in m.value]
