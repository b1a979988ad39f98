"""Class rooms: a lecturer's view that students' phones follow, and the class's votes.

The state is one in-process registry per server (Streamlit runs every session in one process),
guarded by a lock; nothing here imports Streamlit, so it is tested on its own
(``tests/pages/test_rooms.py``) and the page glue (:mod:`pages._follow`) stays thin.

A room carries only what the lecturer shows: the page, the presenter slide, the sidebar settings
(the keys of :data:`VIEW_KEYS`, as URL strings) and the votes on the slide's question. It never
holds anyone's data: :meth:`Rooms.publish` refuses any other key, so an upload on Your data cannot
reach a room. Only the lecturer's token changes the view; students can only join and vote.

Examples
--------
>>> rooms = Rooms(clock=lambda: 0.0)
>>> code, token = rooms.open()
>>> rooms.publish(code, token, page="pages/compare.py", slide=1, settings={"n": "2000"})
1
>>> rooms.join(code, "phone-1").page
'pages/compare.py'
>>> rooms.vote(code, "phone-1", "q", "PLAN"); rooms.tally(code, "q")
{'PLAN': 1}
"""

from __future__ import annotations

import secrets
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from time import monotonic
from types import MappingProxyType

#: letters and digits a projector cannot confuse (no 0/O, 1/I/L, 5/S, 2/Z, 8/B)
ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 4
#: a room closes this long after the lecturer's last change or heartbeat
ROOM_LIFETIME = 3 * 3600.0
#: a student counts as "here" this long after the last poll
PRESENT_WITHIN = 20.0
MAX_ROOMS = 200
MAX_MEMBERS = 500
#: the settings a room carries (the sidebar's, as written in the app's URL); nothing else
VIEW_KEYS = frozenset(
    {"distribution", "skew", "n", "d", "unit", "budget_value", "delta", "seed", "preset"}
)


class RoomError(ValueError):
    """A wrong or expired code, a full room, or a change without the lecturer's token."""


@dataclass(frozen=True)
class View:
    """What a follower shows: the lecturer's page, slide and settings (version counts changes)."""

    version: int = 0
    page: str = ""
    slide_key: str = ""
    slide: int = 0
    settings: Mapping[str, str] = field(default_factory=dict)
    question: str = ""
    revealed: bool = False
    #: when the lecturer made this version (the rooms' clock)
    published: float = 0.0


@dataclass
class _Room:
    token: str
    touched: float
    view: View = View()
    members: dict[str, float] = field(default_factory=dict)
    votes: dict[str, dict[str, str]] = field(default_factory=dict)


class Rooms:
    """The server's rooms (thread-safe). ``clock``: seconds, monotonic (tests pass their own)."""

    def __init__(self, clock: Callable[[], float] = monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._rooms: dict[str, _Room] = {}

    def _live(self, code: str) -> _Room:
        """The open room ``code`` (normalised), or a RoomError naming what to do (lock held)."""
        key = code.strip().upper()
        room = self._rooms.get(key)
        if room is None:
            raise RoomError(
                f"There is no room {key!r}: check the code on the lecturer's slide "
                f"({CODE_LENGTH} letters and digits)."
            )
        if self._clock() - room.touched > ROOM_LIFETIME:
            del self._rooms[key]
            raise RoomError(f"Room {key} has closed: ask the lecturer for the new code.")
        return room

    def _lecturer(self, code: str, token: str) -> _Room:
        room = self._live(code)
        if not secrets.compare_digest(room.token, token):
            raise RoomError("Only the lecturer who opened this room can change what it shows.")
        room.touched = self._clock()
        return room

    def open(self) -> tuple[str, str]:
        """A new room: its code (for the slide) and the lecturer's secret token."""
        with self._lock:
            now = self._clock()
            for key in [k for k, r in self._rooms.items() if now - r.touched > ROOM_LIFETIME]:
                del self._rooms[key]
            if len(self._rooms) >= MAX_ROOMS:
                raise RoomError("Too many rooms are open on this server; try again later.")
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            token = secrets.token_urlsafe(16)
            self._rooms[code] = _Room(token=token, touched=now)
            return code, token

    def close(self, code: str, token: str) -> None:
        """End the room (the lecturer's "Close the room")."""
        with self._lock:
            self._lecturer(code, token)
            del self._rooms[code.strip().upper()]

    def publish(
        self,
        code: str,
        token: str,
        *,
        page: str,
        slide_key: str = "",
        slide: int = 0,
        settings: Mapping[str, str],
        question: str = "",
        revealed: bool = False,
    ) -> int:
        """Show ``page`` with ``settings`` to the room, at presenter slide ``slide`` (kept in the
        session key ``slide_key``); returns the view's version (unchanged when nothing changed,
        so followers do not rerun for nothing)."""
        extra = set(settings) - VIEW_KEYS
        if extra:
            raise RoomError(f"A room carries settings only, not {sorted(extra)}.")
        with self._lock:
            room = self._lecturer(code, token)
            new = View(
                version=room.view.version,
                published=room.view.published,
                page=page,
                slide_key=slide_key,
                slide=int(slide),
                settings=MappingProxyType({k: str(v) for k, v in settings.items()}),
                question=question,
                revealed=revealed,
            )
            if new != room.view:
                room.view = replace(new, version=room.view.version + 1, published=self._clock())
            return room.view.version

    def join(self, code: str, member: str) -> View:
        """Join (or poll) room ``code`` as ``member``: the lecturer's current view."""
        with self._lock:
            room = self._live(code)
            if member not in room.members and len(room.members) >= MAX_MEMBERS:
                raise RoomError("This room is full.")
            room.members[member] = self._clock()
            return room.view

    def since(self, view: View) -> float:
        """Seconds since the lecturer made ``view`` (a follower waits a moment before taking it:
        :data:`pages._follow.FOLLOW_AFTER`)."""
        return self._clock() - view.published

    def leave(self, code: str, member: str) -> None:
        """Stop following (a student's "Leave the room"); a closed room is already left."""
        with self._lock:
            room = self._rooms.get(code.strip().upper())
            if room is not None:
                room.members.pop(member, None)

    def present(self, code: str, token: str) -> int:
        """How many students polled the room recently (the lecturer's "joined" count)."""
        with self._lock:
            room = self._lecturer(code, token)
            now = self._clock()
            return sum(now - seen <= PRESENT_WITHIN for seen in room.members.values())

    def vote(self, code: str, member: str, question: str, choice: str) -> None:
        """``member``'s answer to ``question`` (a later vote replaces an earlier one)."""
        with self._lock:
            room = self._live(code)
            if member not in room.members:
                raise RoomError("Join the room before voting.")
            room.votes.setdefault(question, {})[member] = choice

    def tally(self, code: str, question: str) -> dict[str, int]:
        """The votes on ``question``, by answer, most first."""
        with self._lock:
            room = self._live(code)
            return dict(Counter(room.votes.get(question, {}).values()).most_common())


#: the server's rooms (one process serves every session)
ROOMS = Rooms()
