"""Class rooms (pages/_rooms.py): codes, the lecturer's token, expiry, votes, and that a room
carries settings only."""

from __future__ import annotations

import threading

import pytest

from pages._rooms import ALPHABET, CODE_LENGTH, PRESENT_WITHIN, ROOM_LIFETIME, RoomError, Rooms


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
    clock.now += ROOM_LIFETIME + 1
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
    """Followers wait a moment after a change (pages._follow.FOLLOW_AFTER) so the lecturer's own
    slide is drawn first; a publish that changes nothing keeps the view's age."""
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
