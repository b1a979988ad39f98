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
    # on the main screen, where the student looks (it was only in the folded sidebar)
    assert any("check the code" in e.value for e in phone.main.error)


def _reveal(at):
    next(b for b in at.button if b.label == "Reveal the answer").click().run()
    assert not at.exception, at.exception


def test_compare_asks_before_its_chart_and_reveals_the_runs_answer(open_page):
    at = open_page("pages/compare.py", {"present": "1"}, timeout=300, check=True)
    asked = [m.value for m in at.markdown if m.value.startswith("**Predict:**")]
    assert asked and "smallest typical error" in asked[0]
    assert "compare_error" not in at.session_state["_ui_charts"]  # no chart before the answer
    _reveal(at)
    data = at.session_state["_ui_charts"]["compare_error"][2]
    rows = data[(data["kind"] == "estimator") & (data["budget"] == data["budget"].min())]
    rows = rows[~rows["estimator"].isin(["empirical"])]
    best = rows.loc[rows["median"].idxmin(), "label"]
    said = [s.value for s in at.success if "The run says" in s.value]
    assert said == [f"{asked[0].removeprefix('**Predict:** ')} The run says **{best}**."]


def test_the_class_votes_from_phones_and_sees_the_tally_after_the_reveal(open_page):
    lecturer, code, _ = _lecturer(open_page)
    phone = open_page("pages/compare.py", {"room": code}, timeout=300, check=True)
    options = next(r for r in phone.radio if r.label == "Your answer").options
    phone.radio(key=next(r.key for r in phone.radio if r.label == "Your answer")).set_value(
        options[0]
    ).run()
    lecturer.run()
    assert any("1 vote so far" in c.value for c in lecturer.caption)
    _reveal(lecturer)
    phone.run()
    said = [s.value for s in phone.success if "The run says" in s.value]
    assert said and f"The class said: {options[0]} 1." in said[0]


def test_one_session_cannot_guess_room_codes(open_page):
    """The sidebar's "Join" counts wrong codes per session (and browser, and address): after
    WRONG_CODES of them the right code is refused too, so the page tells a guesser nothing."""
    from pages._rooms import WRONG_CODES

    code, _ = ROOMS.open()
    phone = open_page("pages/home.py", timeout=300, check=True)

    def join(typed: str) -> None:
        phone.text_input(key="room_code").set_value(typed)
        next(b for b in phone.sidebar.button if b.label == "Join").click().run()
        assert not phone.exception, phone.exception

    for k in range(WRONG_CODES):
        join(f"00000{k:03d}")  # 0 is not in the alphabet: never a room
        assert any("check the code" in e.value for e in phone.main.error)
    join(code)
    assert FOLLOW not in phone.session_state
    assert any("Too many wrong room codes" in e.value for e in phone.main.error)
