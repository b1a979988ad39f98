"""Class rooms (pages/_rooms.py): codes, the lecturer's token, expiry, votes, that a room
carries settings only, and that no client can use the rooms up (lifetime with the lecturer's
heartbeat, live members only, per-client limits, a code space too large to guess)."""

from __future__ import annotations

import threading

import pytest

from pages._rooms import (
    ADDRESS,
    ADDRESS_FACTOR,
    ALPHABET,
    CODE_LENGTH,
    MAX_MEMBERS,
    MAX_ROOMS,
    MEMBER_IDLE,
    OPENS_PER_HOUR,
    PRESENT_WITHIN,
    ROOM_IDLE,
    ROOMS_PER_CLIENT,
    WRONG_CODES,
    WRONG_CODES_WINDOW,
    RoomError,
    Rooms,
    shown,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def rooms(clock: Clock) -> Rooms:
    return Rooms(clock=clock)


def test_a_code_is_short_and_unambiguous(rooms):
    codes = {rooms.open()[0] for _ in range(50)}
    assert len(codes) == 50
    assert all(len(c) == CODE_LENGTH and set(c) <= set(ALPHABET) for c in codes)
    assert not set(ALPHABET) & set("0O1IL5S2Z8B")


def test_a_follower_gets_the_lecturers_view_and_a_version_only_on_change(rooms):
    code, token = rooms.open()
    v1 = rooms.publish(
        code,
        token,
        page="pages/compare.py",
        slide_key="cmp_slide",
        slide=2,
        settings={"n": "2000", "seed": "3"},
    )
    assert (
        rooms.publish(
            code,
            token,
            page="pages/compare.py",
            slide_key="cmp_slide",
            slide=2,
            settings={"n": "2000", "seed": "3"},
        )
        == v1
    )  # nothing changed
    view = rooms.join(code.lower(), "phone")  # codes are read case-insensitively
    assert (view.page, view.slide_key, view.slide, dict(view.settings)) == (
        "pages/compare.py",
        "cmp_slide",
        2,
        {"n": "2000", "seed": "3"},
    )
    v2 = rooms.publish(
        code,
        token,
        page="pages/compare.py",
        slide_key="cmp_slide",
        slide=3,
        settings={"n": "2000", "seed": "3"},
    )
    assert v2 == v1 + 1 and rooms.join(code, "phone").slide == 3


def test_only_the_lecturer_changes_the_view(rooms):
    code, _ = rooms.open()
    with pytest.raises(RoomError, match="Only the lecturer"):
        rooms.publish(code, "a-guess", page="pages/home.py", settings={})


def test_a_room_carries_settings_never_data(rooms):
    code, token = rooms.open()
    with pytest.raises(RoomError, match="settings only"):
        rooms.publish(code, token, page="pages/your_data.py", settings={"csv": "a,b\n1,2"})
    assert rooms.join(code, "phone").version == 0


def test_a_wrong_or_expired_code_says_what_to_do(rooms, clock):
    with pytest.raises(RoomError, match="check the code"):
        rooms.join("QQQQ", "phone")
    code, _ = rooms.open()
    clock.now += ROOM_IDLE + 1
    with pytest.raises(RoomError, match="has closed"):
        rooms.join(code, "phone")
    with pytest.raises(RoomError, match="check the code"):  # and it is gone
        rooms.join(code, "phone")


def test_the_lecturer_sees_who_is_following_now(rooms, clock):
    code, token = rooms.open()
    for k in range(30):
        rooms.join(code, f"phone-{k}")
    assert rooms.present(code, token) == 30
    clock.now += PRESENT_WITHIN + 1
    rooms.join(code, "phone-0")
    assert rooms.present(code, token) == 1
    rooms.leave(code, "phone-0")
    assert rooms.present(code, token) == 0


def test_votes_count_once_per_phone_and_need_a_member(rooms):
    code, _ = rooms.open()
    with pytest.raises(RoomError, match="Join the room"):
        rooms.vote(code, "stranger", "q", "PLAN")
    for k, choice in enumerate(["PLAN", "IOME", "PLAN", "Gaussian"]):
        rooms.join(code, f"p{k}")
        rooms.vote(code, f"p{k}", "q", choice)
    rooms.vote(code, "p3", "q", "PLAN")  # changed their mind
    assert rooms.tally(code, "q") == {"PLAN": 3, "IOME": 1}
    assert rooms.tally(code, "other") == {}


def test_thirty_phones_at_once_lose_no_vote(rooms):
    code, _ = rooms.open()

    def phone(k: int) -> None:
        for _ in range(50):
            rooms.join(code, f"p{k}")
        rooms.vote(code, f"p{k}", "q", "PLAN" if k % 3 else "IOME")

    threads = [threading.Thread(target=phone, args=(k,)) for k in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert rooms.tally(code, "q") == {"PLAN": 20, "IOME": 10}


def test_a_closed_room_is_gone(rooms):
    code, token = rooms.open()
    rooms.close(code, token)
    with pytest.raises(RoomError):
        rooms.join(code, "phone")


def test_a_view_knows_when_the_lecturer_made_it(rooms, clock):
    """A view carries when the lecturer made it; a publish that changes nothing keeps its age."""
    code, token = rooms.open()
    clock.now = 10.0
    rooms.publish(code, token, page="pages/compare.py", settings={"n": "2000"})
    clock.now = 10.4
    assert rooms.since(rooms.join(code, "phone")) == pytest.approx(0.4)
    clock.now = 12.0
    rooms.publish(code, token, page="pages/compare.py", settings={"n": "2000"})  # no change
    assert rooms.since(rooms.join(code, "phone")) == pytest.approx(2.0)
    rooms.publish(code, token, page="pages/compare.py", slide=1, settings={"n": "2000"})
    assert rooms.since(rooms.join(code, "phone")) == 0.0


# ---- nothing one client can use up ----------------------------------------------------------


def test_a_room_closes_when_its_lecturer_stops_beating_and_lives_while_they_do(rooms, clock):
    """The lecturer's status polls every 2 s (``present``): the room lives as long as that
    session does, and closes ROOM_IDLE seconds after it ends (it was 3 hours)."""
    code, token = rooms.open()
    for _ in range(100):  # a long lecture with the tab open
        clock.now += 60.0
        rooms.present(code, token)
    rooms.join(code, "phone")
    assert ROOM_IDLE <= 300.0
    clock.now += ROOM_IDLE + 1  # the lecturer closed the tab
    with pytest.raises(RoomError, match="has closed"):
        rooms.join(code, "phone")


def test_rooms_of_gone_lecturers_free_the_server(rooms, clock):
    for k in range(MAX_ROOMS):
        rooms.open(clients=[f"session:{k}"])
    with pytest.raises(RoomError, match="Too many rooms"):
        rooms.open(clients=["session:lecturer"])
    clock.now += ROOM_IDLE + 1  # none of those sessions kept its room alive
    rooms.open(clients=["session:lecturer"])


def test_one_client_cannot_open_every_room(rooms, clock):
    """A client (a browser or a session) holds ROOMS_PER_CLIENT rooms at once and opens
    OPENS_PER_HOUR an hour; an address (a class behind one router) ADDRESS_FACTOR times that."""
    for _ in range(ROOMS_PER_CLIENT):
        rooms.open(clients=["browser:b", "session:s1"])
    with pytest.raises(RoomError, match="already have rooms open"):
        rooms.open(clients=["browser:b", "session:s2"])  # a fresh session, the same browser
    rooms.open(clients=["browser:other"])  # another lecturer is not held back
    opened = ROOMS_PER_CLIENT
    while opened < OPENS_PER_HOUR:  # closing rooms does not reset the hourly count
        code, token = rooms.open(clients=["browser:c"])
        rooms.close(code, token)
        opened += 1
    for k in range(ROOMS_PER_CLIENT * ADDRESS_FACTOR):
        rooms.open(clients=[f"browser:x{k}", f"{ADDRESS}10.0.0.1"])
    with pytest.raises(RoomError, match="already have rooms open"):
        rooms.open(clients=["browser:fresh", f"{ADDRESS}10.0.0.1"])


def test_opens_per_hour_are_counted_per_client(rooms, clock):
    for _ in range(OPENS_PER_HOUR):
        code, token = rooms.open(clients=["browser:c"])
        rooms.close(code, token)
    with pytest.raises(RoomError, match="in the last hour"):
        rooms.open(clients=["browser:c"])
    clock.now += 3601.0
    rooms.open(clients=["browser:c"])


def test_members_who_stop_polling_drop_out_and_free_their_place(rooms, clock):
    code, token = rooms.open()
    for k in range(MAX_MEMBERS):
        rooms.join(code, f"fresh-session-{k}")
    with pytest.raises(RoomError, match="full"):
        rooms.join(code, "student")
    clock.now += MEMBER_IDLE + 1
    rooms.present(code, token)  # the lecturer is still there
    rooms.join(code, "student")  # those sessions stopped polling: room for a real student
    assert rooms.present(code, token) == 1


def test_wrong_codes_are_limited_per_client_and_then_tell_nothing(rooms, clock):
    code, token = rooms.open()
    wrong = "".join(reversed(code)) if code != code[::-1] else "A" * CODE_LENGTH
    for _ in range(WRONG_CODES):
        with pytest.raises(RoomError, match="check the code"):
            rooms.join(wrong, "guesser", clients=["browser:g"])
    with pytest.raises(RoomError, match="Too many wrong room codes"):
        rooms.join(code, "guesser", clients=["browser:g", "session:new"])  # right code, refused
    rooms.join(code, "student", clients=["browser:s"])  # others still join
    for _ in range(int(WRONG_CODES_WINDOW // 60) + 1):
        clock.now += 60.0
        rooms.present(code, token)  # the lecturer is still there
    rooms.join(code, "guesser", clients=["browser:g"])


def test_a_code_space_too_large_to_guess_and_easy_to_type(rooms):
    assert len(ALPHABET) ** CODE_LENGTH >= 10**9
    code, _ = rooms.open()
    typed = shown(code).lower().replace("-", " ")  # "kq7m xp4a"
    assert rooms.join(typed, "phone").version == 0
    assert len(shown(code)) <= 9


def test_one_vote_per_browser_whatever_its_tabs(rooms):
    """The page makes a browser's tabs one member (pages._follow.member_id); the room keeps one
    vote per member, the last one."""
    from pages._follow import member_id

    code, _ = rooms.open()
    token, ts = bytes.fromhex("00112233445566778899aabbccddeeff"), "1795000000"

    def cookie(mask: bytes) -> dict[str, str]:  # Streamlit masks it anew on each page load
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(token))
        return {"_streamlit_xsrf": f"2|{mask.hex()}|{masked.hex()}|{ts}"}

    tabs = [member_id(cookie(bytes([k, 7, 9, 200])), f"session-{k}") for k in range(5)]
    assert len(set(tabs)) == 1 and token.hex() not in tabs[0]
    for k, tab in enumerate(tabs):
        rooms.join(code, tab)
        rooms.vote(code, tab, "q", "PLAN" if k < 4 else "IOME")
    other = member_id({"_streamlit_xsrf": "2|01020304|0a0b0c0d0e0f|1795000001"}, "session-9")
    rooms.join(code, other)
    rooms.vote(code, other, "q", "PLAN")
    assert rooms.tally(code, "q") == {"IOME": 1, "PLAN": 1}
    assert member_id({}, "session-1") != member_id({}, "session-2")  # no cookie: one per tab


def test_a_follower_waiting_for_the_next_view_wakes_when_the_lecturer_publishes(rooms):
    """A follower's poll waits in :meth:`Rooms.wait` and takes the new slide as soon as it is
    published (the old follower saw it only at its next poll, 2 s later, plus 1 s on purpose)."""
    code, token = rooms.open()
    seen = rooms.publish(code, token, page="pages/compare.py", settings={})
    assert rooms.wait(code, seen, timeout=0.0) is False  # nothing new
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(rooms.wait(code, seen, timeout=60.0)))
    waiter.start()
    rooms.publish(code, token, page="pages/compare.py", slide=1, settings={})
    waiter.join(timeout=60.0)
    assert woke == [True]
    assert rooms.wait(code, seen, timeout=0.0) is True  # already newer: no wait
    rooms.close(code, token)
    assert rooms.wait(code, seen + 1, timeout=0.0) is True  # a closed room ends the wait too
