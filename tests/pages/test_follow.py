"""A phone follows the lecturer's room (pages/_follow.py) through the app itself: page, slide and
settings; its own seed if it asks; a wrong code gets a clear message; the lecturer sees it."""

from __future__ import annotations

from pages._follow import FOLLOW, LEAD
from pages._rooms import ROOMS


def _lecturer(open_page, **query: str):
    at = open_page("pages/compare.py", {"present": "1", **query}, timeout=300, check=True)
    next(b for b in at.sidebar.button if b.label.startswith("Open a room")).click().run()
    assert not at.exception, at.exception
    code, token = at.session_state[LEAD]
    return at, code, token


def test_a_phone_follows_the_lecturers_page_slide_and_settings(open_page):
    lecturer, code, token = _lecturer(open_page, n="1000", seed="7")
    view = ROOMS.join(code, "probe")
    assert view.page == "pages/compare.py" and dict(view.settings)["n"] == "1000"

    phone = open_page("pages/home.py", {"room": code}, timeout=300, check=True)
    assert phone.session_state[FOLLOW] == code
    assert int(phone.session_state["n"]) == 1000 and int(phone.session_state["seed"]) == 7
    assert phone.session_state["present"] is True
    assert any("Following room" in c.value for c in phone.sidebar.caption)
    assert ROOMS.present(code, token) >= 1

    lecturer.sidebar.number_input(key="n").set_value(1500).run()  # the lecturer moves on
    assert not lecturer.exception, lecturer.exception
    phone.run()
    assert int(phone.session_state["n"]) == 1500


def test_a_phone_may_keep_its_own_seed(open_page):
    lecturer, code, _ = _lecturer(open_page, seed="7")
    phone = open_page("pages/home.py", {"room": code}, timeout=300, check=True)
    phone.sidebar.toggle(key="room_own_seed").set_value(True).run()
    phone.sidebar.number_input(key="seed").set_value(42).run()
    lecturer.sidebar.number_input(key="n").set_value(1200).run()
    phone.run()
    assert int(phone.session_state["n"]) == 1200 and int(phone.session_state["seed"]) == 42


def test_a_wrong_code_says_what_to_do(open_page):
    phone = open_page("pages/home.py", {"room": "QQQQ"}, timeout=300, check=True)
    assert FOLLOW not in phone.session_state
    assert any("check the code" in e.value for e in phone.sidebar.error)
