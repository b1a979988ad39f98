"""A step of PLAN step by step's deck computes no view (docs/classroom.md, "Prefetching the next
slide"): every slide is drawn from the one view of the page's settings, so the next slide's view
is in the cache before the lecturer steps, and there is nothing left to compute ahead."""

from __future__ import annotations

import functools

import dpcore.views.plan as plan
from tests.pages._apptest import open_page

PAGE = "pages/plan_step_by_step.py"
#: small data, and a seed no other test draws (the view is not in the shared cache yet)
QUERY = {"n": "600", "d": "6", "seed": "70911", "present": "1"}


def test_every_slide_is_drawn_from_the_first_slides_view(monkeypatch):
    records: list[plan.PlanSettings] = []
    original = plan.view

    @functools.wraps(original)  # the same name: pages._views.cached keeps it in the same cache
    def counted(settings: plan.PlanSettings) -> plan.PlanView:
        records.append(settings)
        return original(settings)

    monkeypatch.setattr(plan, "view", counted)
    at = open_page(PAGE, QUERY, check=True)
    assert len(records) == 1  # the first slide computed the page's view
    for slide in range(1, 8):
        next(b for b in at.button if b.label == "Next ▶").click().run()
        assert not at.exception, at.exception
        assert at.session_state["plan_slide"] == slide
        assert len(records) == 1, f"slide {slide + 1} computed a view of its own: {records[1:]}"
