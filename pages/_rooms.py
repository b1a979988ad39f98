"""Class rooms: a lecturer's view that students' phones follow, and the class's votes.

The state is one in-process registry per server (Streamlit runs every session in one process),
guarded by a lock; nothing here imports Streamlit, so it is tested on its own
(``tests/pages/test_rooms.py``) and the page glue (:mod:`pages._follow`) stays thin.

A room carries only what the lecturer shows: the page, the presenter slide, the sidebar settings
(the keys of :data:`VIEW_KEYS`, as URL strings) and the votes on the slide's question. It never
holds anyone's data: :meth:`Rooms.publish` refuses any other key, so an upload on Your data cannot
reach a room. Only the lecturer's token changes the view; students can only join and vote.

Nothing here can be used up by one client (docs/classroom.md, "Room lifetime, codes and limits"):
a room closes :data:`ROOM_IDLE` seconds after the lecturer's last heartbeat (the lecturer's status
polls every 2 s while the tab is open, so the room ends with the lecturer's session); a member
who stops polling for :data:`MEMBER_IDLE` seconds drops out and no longer takes a place; a
client (a session, a browser, an address: the ``clients`` keys the page passes) may hold
:data:`ROOMS_PER_CLIENT` rooms at once and open :data:`OPENS_PER_HOUR` an hour, and try
:data:`WRONG_CODES` wrong codes per :data:`WRONG_CODES_WINDOW` seconds, after which it may join no
new room until the window passes; codes have 8 characters of a 25-letter alphabet
(25**8, about 1.5e11 codes). A member is a browser, not a tab: one vote per member.

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
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from time import monotonic
from types import MappingProxyType

#: letters and digits a projector cannot confuse (no 0/O, 1/I/L, 5/S, 2/Z, 8/B)
ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
#: 25**8, about 1.5e11 codes: with every room of the server open, a guess lands in one with a
#: chance of about 1 in 760 million (shown in two groups of four: ``KQ7M-XP4A``)
CODE_LENGTH = 8
#: a room closes this long after the lecturer's last change or heartbeat (the lecturer's status
#: polls every 2 s, so this is the lecturer's session ending, or a run longer than this)
ROOM_IDLE = 120.0
#: a student counts as "here" this long after the last poll
PRESENT_WITHIN = 20.0
#: a member who has not polled for this long drops out of the room (and frees their place)
MEMBER_IDLE = 60.0
MAX_ROOMS = 200
MAX_MEMBERS = 500
#: rooms one client (a session or a browser) may have open at once, and open in an hour
ROOMS_PER_CLIENT = 2
OPENS_PER_HOUR = 6
#: wrong codes one client may try per window; after that it joins no new room until it passes
WRONG_CODES = 10
WRONG_CODES_WINDOW = 600.0
#: a client key that names a network address (a class behind one router shares it) is held to
#: this many times each limit above
ADDRESS = "address:"
ADDRESS_FACTOR = 10
#: the settings a room carries (the sidebar's, as written in the app's URL); nothing else
VIEW_KEYS = frozenset(
    {"distribution", "skew", "n", "d", "unit", "budget_value", "delta", "seed", "preset"}
)


class RoomError(ValueError):
    """A wrong or expired code, a full room, or a change without the lecturer's token."""


def normalise(code: str) -> str:
    """A typed code as stored: upper case, without the spaces and dashes people type."""
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


def shown(code: str) -> str:
    """A code as the slide shows it: two groups of four (``KQ7M-XP4A``)."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}" if len(code) > 4 else code


def limit_for(key: str, limit: int) -> int:
    """``limit`` for a session or browser key; :data:`ADDRESS_FACTOR` times it for an address."""
    return limit * ADDRESS_FACTOR if key.startswith(ADDRESS) else limit


class Limiter:
    """At most ``limit`` events per key in any ``window`` seconds (:func:`limit_for` an address);
    the caller holds a lock."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = int(limit), float(window)
        self._events: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key, deque())
        while events and now - events[0] > self.window:
            events.popleft()
        return events

    def full(self, keys: Iterable[str], now: float) -> bool:
        """Whether any of ``keys`` has used up its events."""
        return any(len(self._recent(k, now)) >= limit_for(k, self.limit) for k in keys)

    def add(self, keys: Iterable[str], now: float) -> None:
        """Count one event for each of ``keys`` (keys with no recent event are forgotten)."""
        for key in keys:
            self._events[key] = self._recent(key, now)
            self._events[key].append(now)
        if len(self._events) > 10_000:  # a bounded memory whatever the number of clients
            self._events = {k: q for k, q in self._events.items() if self._recent(k, now)}


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
    clients: tuple[str, ...] = ()
    view: View = View()
    members: dict[str, float] = field(default_factory=dict)
    votes: dict[str, dict[str, str]] = field(default_factory=dict)


class Rooms:
    """The server's rooms (thread-safe). ``clock``: seconds, monotonic (tests pass their own)."""

    def __init__(self, clock: Callable[[], float] = monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        #: notified when a room's view changes or a room closes (followers wait on it)
        self._changed = threading.Condition(self._lock)
        self._rooms: dict[str, _Room] = {}
        self._opens = Limiter(OPENS_PER_HOUR, 3600.0)
        self._wrong = Limiter(WRONG_CODES, WRONG_CODES_WINDOW)

    def _expire(self, now: float) -> None:
        """Close the rooms whose lecturer has gone quiet (lock held)."""
        for key in [k for k, r in self._rooms.items() if now - r.touched > ROOM_IDLE]:
            del self._rooms[key]

    def _live(self, code: str) -> _Room:
        """The open room ``code`` (normalised), or a RoomError naming what to do (lock held)."""
        key = normalise(code)
        room = self._rooms.get(key)
        if room is None:
            raise RoomError(
                f"There is no room {shown(key)!r}: check the code on the lecturer's slide "
                f"({CODE_LENGTH} letters and digits)."
            )
        if self._clock() - room.touched > ROOM_IDLE:
            del self._rooms[key]
            raise RoomError(f"Room {shown(key)} has closed: ask the lecturer for the new code.")
        return room

    def _lecturer(self, code: str, token: str) -> _Room:
        room = self._live(code)
        if not secrets.compare_digest(room.token, token):
            raise RoomError("Only the lecturer who opened this room can change what it shows.")
        room.touched = self._clock()
        return room

    def open(self, clients: Iterable[str] = ()) -> tuple[str, str]:
        """A new room: its code (for the slide) and the lecturer's secret token. ``clients``: who
        asks (keys for a session, a browser, an :data:`ADDRESS`), each held to
        :data:`ROOMS_PER_CLIENT` open rooms and :data:`OPENS_PER_HOUR` opens an hour."""
        keys = tuple(k for k in clients if k)
        with self._lock:
            now = self._clock()
            self._expire(now)
            held = Counter(k for r in self._rooms.values() for k in r.clients)
            if any(held[k] >= limit_for(k, ROOMS_PER_CLIENT) for k in keys):
                raise RoomError(
                    "You already have rooms open: close one first (a room whose lecturer's tab "
                    f"is closed ends {ROOM_IDLE / 60:g} minutes later)."
                )
            if self._opens.full(keys, now):
                raise RoomError(
                    f"You opened {OPENS_PER_HOUR} rooms in the last hour: use the one you have, "
                    "or try again later."
                )
            if len(self._rooms) >= MAX_ROOMS:
                raise RoomError("Too many rooms are open on this server; try again later.")
            self._opens.add(keys, now)
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            token = secrets.token_urlsafe(16)
            self._rooms[code] = _Room(token=token, touched=now, clients=keys)
            return code, token

    def close(self, code: str, token: str) -> None:
        """End the room (the lecturer's "Close the room")."""
        with self._lock:
            self._lecturer(code, token)
            del self._rooms[normalise(code)]
            self._changed.notify_all()

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
                self._changed.notify_all()
            return room.view.version

    def join(self, code: str, member: str, clients: Iterable[str] = ()) -> View:
        """Join (or poll) room ``code`` as ``member`` (a browser: its tabs are one member): the
        lecturer's current view. A wrong code counts against each of ``clients`` (the page passes
        them for a code typed or linked, not for its polls of the room it follows); a client past
        :data:`WRONG_CODES` joins no room it is not in until the window passes, right code or not
        (so the answer tells a guesser nothing). A member who has not polled for
        :data:`MEMBER_IDLE` seconds drops out and frees their place."""
        keys = tuple(k for k in clients if k)
        with self._lock:
            now = self._clock()
            room = self._rooms.get(normalise(code))
            if (room is None or member not in room.members) and self._wrong.full(keys, now):
                raise RoomError(
                    f"Too many wrong room codes from here: wait {WRONG_CODES_WINDOW / 60:g} "
                    "minutes, then type the code on the lecturer's slide."
                )
            try:
                room = self._live(code)
            except RoomError:
                self._wrong.add(keys, now)
                raise
            for gone in [m for m, seen in room.members.items() if now - seen > MEMBER_IDLE]:
                del room.members[gone]
            if member not in room.members and len(room.members) >= MAX_MEMBERS:
                raise RoomError("This room is full.")
            room.members[member] = now
            return room.view

    def wait(self, code: str, seen: int, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for room ``code``'s view to pass version ``seen`` (or
        for the room to close); whether it did. A follower waits here between its polls, so it
        takes the lecturer's new slide as soon as it is published instead of at its next poll."""

        def moved() -> bool:
            room = self._rooms.get(normalise(code))
            return room is None or room.view.version > seen

        with self._changed:
            return self._changed.wait_for(moved, timeout=max(0.0, timeout))

    def since(self, view: View) -> float:
        """Seconds since the lecturer made ``view``."""
        return self._clock() - view.published

    def leave(self, code: str, member: str) -> None:
        """Stop following (a student's "Leave the room"); a closed room is already left."""
        with self._lock:
            room = self._rooms.get(normalise(code))
            if room is not None:
                room.members.pop(member, None)

    def present(self, code: str, token: str) -> int:
        """How many students polled the room recently (the lecturer's "joined" count)."""
        with self._lock:
            room = self._lecturer(code, token)
            now = self._clock()
            return sum(now - seen <= PRESENT_WITHIN for seen in room.members.values())

    def vote(self, code: str, member: str, question: str, choice: str) -> None:
        """``member``'s answer to ``question`` (a later vote replaces an earlier one: one vote per
        member, and a member is a browser, however many tabs it has)."""
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
