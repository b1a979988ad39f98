"""A following phone marks the lecturer's view as seen only once it has applied it
(pages/_follow.py ``follow``; docs/classroom.md): a run stopped while it applies the view (a tap
on the phone, a rerun) applies it again in the next run, instead of keeping the old settings and
slide until the lecturer's next step."""

from __future__ import annotations

import pages._follow as follow_mod
from pages._follow import LEAD


def test_a_view_applied_halfway_is_applied_again(open_page, monkeypatch):
    lecturer = open_page("pages/compare.py", {"present": "1"}, timeout=300, check=True)
    next(b for b in lecturer.sidebar.button if b.label.startswith("Open a room")).click().run()
    code, _ = lecturer.session_state[LEAD]
    phone = open_page("pages/home.py", {"room": code}, timeout=300, check=True)
    lecturer.sidebar.number_input(key="n").set_value(1500).run()

    real = follow_mod.set_sidebar
    stopped: list[bool] = []

    def stopped_once(values):  # the run ends here once, as a rerun or a stop would end it
        if not stopped:
            stopped.append(True)
            raise RuntimeError("run stopped while applying the view")
        real(values)

    monkeypatch.setattr(follow_mod, "set_sidebar", stopped_once)
    phone.run()
    assert stopped and phone.exception  # the first apply was cut short
    phone.run()
    assert not phone.exception, phone.exception
    assert int(phone.session_state["n"]) == 1500
