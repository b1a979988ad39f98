"""A following phone's sidebar (app.py, pages/_follow.py; docs/classroom.md): while it follows,
the data and budget controls are the lecturer's and not drawn (each phone reruns at every step,
and a dozen widgets nobody should touch cost every rerun), a line says what they are set to;
"Explore on my own" brings them back with the lecturer's values, kept across the reruns."""

from __future__ import annotations

from pages._follow import FOLLOW, LEAD

DATA_AND_BUDGET = {"distribution", "skew", "n", "d", "unit", "budget_preset", "budget_value"}


def _keys(at) -> set[str]:
    sb = at.sidebar
    widgets = (*sb.selectbox, *sb.slider, *sb.number_input, *sb.radio, *sb.select_slider)
    return {w.key for w in widgets} | {t.key for t in sb.toggle}


def test_a_following_phone_has_the_lecturers_settings_without_their_controls(open_page):
    lecturer = open_page("pages/compare.py", {"present": "1", "n": "1000"}, timeout=300, check=True)
    assert DATA_AND_BUDGET | {"present"} <= _keys(lecturer)
    next(b for b in lecturer.sidebar.button if b.label.startswith("Open a room")).click().run()
    code, _ = lecturer.session_state[LEAD]

    phone = open_page("pages/home.py", {"room": code}, timeout=300, check=True)
    assert phone.session_state[FOLLOW] == code
    assert not (DATA_AND_BUDGET | {"present"}) & _keys(phone)
    assert {"seed", "room_own_seed"} <= _keys(phone)  # a student's own seed stays theirs
    said = [c.value for c in phone.sidebar.caption if "the lecturer's" in c.value]
    assert said and "n = 1,000" in said[0]

    lecturer.sidebar.number_input(key="n").set_value(1500).run()
    assert not lecturer.exception, lecturer.exception
    for _ in range(3):  # reruns without the controls keep the values
        phone.run()
        assert not phone.exception, phone.exception
    assert int(phone.session_state["n"]) == 1500

    next(b for b in phone.button if b.label == "Explore on my own").click().run()
    assert not phone.exception, phone.exception
    assert FOLLOW not in phone.session_state
    assert DATA_AND_BUDGET | {"present"} <= _keys(phone)
    assert phone.sidebar.number_input(key="n").value == 1500
    assert phone.sidebar.toggle(key="present").value is True
