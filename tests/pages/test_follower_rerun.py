"""What a following phone's rerun of PLAN step by step costs the server (docs/classroom.md): in
presenter mode the page sends only the current slide (what the deck hides is not sent, its
widgets still are), and a chart's kept figure is tidied once, not on every rerun."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

import pages._ui as ui
from tests.pages._apptest import open_page

PAGE = "pages/plan_step_by_step.py"
QUERY = {"n": "600", "d": "6"}


def _texts(at: AppTest) -> str:
    return "\n".join(
        [m.value for m in at.markdown]
        + [h.value for h in at.subheader]
        + [c.value for c in at.caption]
        + [e.label for e in at.expander]
    )


def _next(at: AppTest) -> None:
    next(b for b in at.button if b.label == "Next ▶").click().run()
    assert not at.exception, at.exception


def test_presenter_mode_sends_only_the_current_slide():
    at = open_page(PAGE, QUERY, check=True)
    full = _texts(at)
    assert "adds less noise where the data vary less" in full  # the intro, out of presenter mode
    assert "Where the error comes from" in full and len(at.metric) == 4

    at = open_page(PAGE, {**QUERY, "present": "1"}, check=True)
    shown = _texts(at)
    assert "How to read the panels" in shown  # slide 1: step (a), with its notes
    assert "adds less noise where the data vary less" not in shown  # hidden by the deck
    assert "Where the error comes from" not in shown and "Why the middle ground" not in shown
    assert not at.metric
    # the page's controls are still drawn (their values live on), only hidden
    assert {"plan_p", "plan_var", "plan_e"} <= {w.key for w in (*at.radio, *at.select_slider)}
    for _ in range(7):
        _next(at)
    assert at.session_state["plan_slide"] == 7  # the error split: its heading and the plain box
    shown = _texts(at)
    assert "How to read the panels" not in shown
    assert any("What this means" in m.value for m in at.markdown)


def test_a_kept_figure_is_tidied_once_not_on_every_rerun(monkeypatch):
    tidied: list[int] = []
    tidy = ui.tidy_log_axes

    def counted(fig):
        tidied.append(id(fig))
        return tidy(fig)

    monkeypatch.setattr(ui, "tidy_log_axes", counted)
    # a seed no other test draws: figures not kept yet
    at = open_page(PAGE, {**QUERY, "seed": "90917", "present": "1"}, check=True)
    first = len(tidied)
    # the page's plotly figures, kept by pages._views.drawn (its other charts come as plain dicts
    # with their log axes tidied by the builder: dpcore.figures.dict_figure)
    assert first >= 1
    at.run()
    _next(at)
    assert len(tidied) == first  # the reruns drew the same kept figures without tidying them
