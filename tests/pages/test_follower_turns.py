"""Following phones rerun in turns (pages/_follow.py ``follower_turn``; docs/classroom.md): a
following phone's run takes one of the few turns and gives it back, even when the run ends in a
rerun or a page switch; the lecturer's run takes none; a phone whose turn does not come runs
anyway (a long run elsewhere never holds the class back)."""

from __future__ import annotations

import threading

import pages._follow as follow_mod
from pages._follow import LEAD


class _Counted:
    """A semaphore that counts its acquisitions and holds."""

    def __init__(self, value: int) -> None:
        self._sem = threading.BoundedSemaphore(value)
        self.taken = 0
        self.held = 0

    def acquire(self, timeout: float | None = None) -> bool:
        got = self._sem.acquire(timeout=timeout)
        if got:
            self.taken += 1
            self.held += 1
        return got

    def release(self) -> None:
        self.held -= 1
        self._sem.release()


def test_a_following_phone_takes_a_turn_and_gives_it_back(open_page, monkeypatch):
    turns = _Counted(follow_mod.FOLLOWER_RUNS)
    monkeypatch.setattr(follow_mod, "_TURNS", turns)
    lecturer = open_page("pages/compare.py", {"present": "1"}, timeout=300, check=True)
    next(b for b in lecturer.sidebar.button if b.label.startswith("Open a room")).click().run()
    code, _ = lecturer.session_state[LEAD]
    assert turns.taken == 0  # the lecturer never waits for a turn

    phone = open_page("pages/home.py", {"room": code}, timeout=300, check=True)
    taken = turns.taken
    assert taken >= 1 and turns.held == 0  # its runs on the room's page (after the switch)

    lecturer.sidebar.number_input(key="n").set_value(1500).run()
    phone.run()
    assert not phone.exception, phone.exception
    assert turns.taken > taken and turns.held == 0
    assert int(phone.session_state["n"]) == 1500

    before = turns.taken
    next(b for b in phone.button if b.label == "Explore on my own").click().run()
    phone.run()
    assert turns.taken == before  # a phone that explores on its own does not wait either


def test_a_phone_runs_even_when_no_turn_comes(open_page, monkeypatch):
    monkeypatch.setattr(follow_mod, "TURN_SECONDS", 0.5)
    code, _ = follow_mod.ROOMS.open()
    phone = open_page("pages/home.py", {"room": code}, timeout=300, check=True)
    held = [follow_mod._TURNS.acquire(timeout=1) for _ in range(follow_mod.FOLLOWER_RUNS)]
    try:
        phone.run()  # every turn is taken: the run goes on after TURN_SECONDS
        assert not phone.exception, phone.exception
        assert any("Following room" in c.value for c in phone.sidebar.caption)
    finally:
        for got in held:
            if got:
                follow_mod._TURNS.release()
