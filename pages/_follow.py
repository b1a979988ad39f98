"""A class that follows the lecturer, and predict-then-reveal questions (the Streamlit side of
:mod:`pages._rooms`).

The lecturer opens a room in the sidebar and shows its code (and a QR code of the join link) on
the slide; a phone that opens ``?room=CODE`` (or types the code) follows the lecturer's page,
slide and settings: :func:`follow` applies a new view before the sidebar is drawn, and a small
fragment polls the room every :data:`POLL_SECONDS` and reruns the app when the view changed. A
student may set their own seed ("My own seed"), which the room then leaves alone. The lecturer
publishes the view after each run (:func:`publish`) and sees how many phones follow.

:func:`predict` asks the class a question before a chart in presenter mode; the chart draws once
the lecturer reveals the answer, with the class's votes next to the run's answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import itertools
import secrets
from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

import segno
import streamlit as st

from pages._rooms import ADDRESS, ROOMS, VIEW_KEYS, RoomError, normalise, shown
from pages._ui import parse_query, set_sidebar

POLL_SECONDS = 2.0
#: a follower takes a new view only this long after the lecturer made it: the lecturer's own
#: slide is drawn first (the projector is what the class sees), then thirty phones rerun their
#: pages on the server's cores, so they follow 1-3 s behind (docs/classroom.md)
FOLLOW_AFTER = 1.0
LEAD, FOLLOW, SEEN = "_room_lead", "_room_follow", "_room_seen"
OWN_SEED = "room_own_seed"
#: the presenter slide the lecturer's page is on: (session key, index), set by pages._present.step
SLIDE = "_slide_now"


#: the browser cookie Streamlit sets for its XSRF check (the same in every tab of a browser)
BROWSER_COOKIE = "_streamlit_xsrf"
#: this server's key for :func:`member_id` (the cookie itself is never kept)
_SERVER_KEY = secrets.token_bytes(32)


def _browser_token(cookie: str) -> bytes:
    """The token in Streamlit's XSRF cookie, the same in every tab of a browser: the cookie is
    ``2|mask|masked token|time``, masked again (a new ``mask``) on each page load, so the token is
    the masked token XOR the mask repeated. Another format is taken as it is."""
    parts = cookie.strip("\"'").split("|")
    if len(parts) == 4 and parts[0] == "2":
        with contextlib.suppress(ValueError):
            mask, masked = bytes.fromhex(parts[1]), bytes.fromhex(parts[2])
            if mask:
                return (
                    bytes(b ^ m for b, m in zip(masked, itertools.cycle(mask))) + parts[3].encode()
                )
    return cookie.encode()


def member_id(cookies: Mapping[str, str], session_token: str) -> str:
    """A member of a room: the browser (its tabs share Streamlit's XSRF cookie token, of which
    only a keyed hash is kept), else this session (``session_token``, when the browser sent no
    cookie). Anonymous either way: nothing about the person."""
    cookie = cookies.get(BROWSER_COOKIE)
    if not cookie:
        return session_token
    return hmac.new(_SERVER_KEY, _browser_token(cookie), hashlib.sha256).hexdigest()[:22]


def _session_token() -> str:
    return st.session_state.setdefault("_room_member", secrets.token_urlsafe(8))


def _member() -> str:
    """This browser's anonymous id in a room (:func:`member_id`): one member, one vote."""
    return member_id(st.context.cookies or {}, _session_token())


def _clients() -> list[str]:
    """Who asks, for the rooms' per-client limits: this session, this browser and, where Streamlit
    knows it, the network address (shared by a class behind one router: a looser limit)."""
    keys = [f"session:{_session_token()}", f"browser:{_member()}"]
    if ip := st.context.ip_address:
        keys.append(f"{ADDRESS}{ip}")
    return keys


def _join(code: str) -> None:
    try:
        ROOMS.join(code, _member(), clients=_clients())
    except RoomError as err:
        st.session_state["_room_error"] = str(err)
        return
    st.session_state[FOLLOW] = normalise(code)
    st.session_state[SEEN] = 0
    st.session_state.pop("_room_error", None)


def follow(page_path: str) -> None:
    """On the page ``page_path``, before the sidebar is drawn: join a room named in the URL
    (``?room=``), and on a follower take a newer view of the lecturer's (settings, presenter
    slide, then the page)."""
    ss = st.session_state
    ss.pop(SLIDE, None)  # the page's presenter bar sets them again as it runs
    ss.pop("_question_now", None)
    linked = normalise(st.query_params.get("room") or "")
    if linked and linked != ss.get(FOLLOW):
        tried, said = ss.get("_room_linked", ("", ""))
        if linked != tried:  # a link's code is tried once, not on every rerun
            _join(linked)
            said = ss.get("_room_error", "")
        ss["_room_linked"] = (linked, said)
        if said:
            ss["_room_error"] = said
    if not (code := ss.get(FOLLOW)):
        return
    try:
        view = ROOMS.join(code, _member())
    except RoomError as err:
        ss["_room_error"] = str(err)
        ss.pop(FOLLOW, None)
        return
    if view.version <= ss.get(SEEN, 0):
        return
    ss[SEEN] = view.version
    values = parse_query(dict(view.settings))
    if ss.get(OWN_SEED):  # written again: a page switch drops widget values not written here
        values["seed"] = ss.get("seed", values.get("seed", 0))
    set_sidebar(values)
    ss["present"] = True
    if view.question:
        ss[f"reveal-{view.question}"] = view.revealed
    if view.slide_key:
        ss[view.slide_key] = view.slide
    if view.page and view.page != page_path:
        st.switch_page(view.page)


def publish(page_path: str, query: dict[str, str]) -> None:
    """After the lecturer's run: show the room this page, slide, settings and question."""
    ss = st.session_state
    if not (lead := ss.get(LEAD)):
        return
    slide_key, slide = ss.get(SLIDE, ("", 0))
    question = ss.get("_question_now", "")
    try:
        ROOMS.publish(
            *lead,
            page=page_path,
            slide_key=slide_key,
            slide=slide,
            settings={k: v for k, v in query.items() if k in VIEW_KEYS},
            question=question,
            revealed=bool(ss.get(f"reveal-{question}")),
        )
    except RoomError as err:  # the room expired under the lecturer
        ss.pop(LEAD, None)
        st.sidebar.error(str(err))


def join_link(code: str) -> str:
    """The address a phone opens to follow room ``code`` (this server's, as the browser sees it)."""
    base = str(st.context.url or "").split("?")[0]
    return f"{base}?{urlencode({'room': code})}"


def _qr_png(link: str) -> bytes:
    """The QR code of ``link`` as a PNG (segno writes PNG without other libraries)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=6, border=2)
    return out.getvalue()


@st.fragment(run_every=POLL_SECONDS)
def _lecturer_status(code: str, token: str) -> None:
    try:
        here = ROOMS.present(code, token)
    except RoomError as err:
        st.error(str(err))
        return
    st.markdown(f"Room **{shown(code)}** · {here} {'phone' if here == 1 else 'phones'} following")


@st.fragment(run_every=POLL_SECONDS)
def _follower_poll(code: str) -> None:
    try:
        view = ROOMS.join(code, _member())
    except RoomError as err:
        st.error(str(err))
        return
    if view.version > st.session_state.get(SEEN, 0) and ROOMS.since(view) >= FOLLOW_AFTER:
        st.rerun(scope="app")
    st.caption(f"Following room **{shown(code)}**: this screen changes with the lecturer's.")


def _open() -> None:
    try:
        st.session_state[LEAD] = ROOMS.open(clients=_clients())
    except RoomError as err:
        st.session_state["_room_error"] = str(err)


def _close() -> None:
    lead = st.session_state.pop(LEAD, None)
    if lead:
        with contextlib.suppress(RoomError):  # already closed
            ROOMS.close(*lead)


def _leave() -> None:
    code = st.session_state.pop(FOLLOW, None)
    if code:
        ROOMS.leave(code, _member())
    st.query_params.pop("room", None)


def _join_typed() -> None:
    _join(st.session_state.get("room_code", ""))


def room_controls() -> None:
    """The sidebar's class room: open one (lecturer), or join one by its code (student)."""
    sb, ss = st.sidebar, st.session_state
    if err := ss.pop("_room_error", None):
        sb.error(err)
    if lead := ss.get(LEAD):
        with sb:
            _lecturer_status(*lead)
        sb.image(_qr_png(join_link(lead[0])), width=180, caption=f"Room {shown(lead[0])}")
        sb.caption(f"Phones join at {join_link(lead[0])}")
        sb.button("Close the room", on_click=_close)
    elif code := ss.get(FOLLOW):
        with sb:
            _follower_poll(code)
        sb.toggle("My own seed", key=OWN_SEED, help="Keep your seed while following the lecturer.")
        sb.button("Leave the room", on_click=_leave)
    else:
        sb.button(
            "Open a room for the class",
            on_click=_open,
            help="Phones that join follow "
            "this screen: page, slide and settings (never any uploaded data).",
        )
        c1, c2 = sb.columns([2, 1])
        c1.text_input("Room code", key="room_code", max_chars=12, placeholder="e.g. KQ7M-XP4A")
        c2.button("Join", on_click=_join_typed)


@st.fragment(run_every=POLL_SECONDS)
def _vote_count(code: str, question_id: str) -> None:
    """The lecturer's count of the phones' votes, kept current while the class votes."""
    votes = sum(ROOMS.tally(code, question_id).values())
    st.caption(f"{votes} {'vote' if votes == 1 else 'votes'} so far.")


def predict(question_id: str, text: str, options: Sequence[str], answer: str) -> bool:
    """In presenter mode, ask ``text`` before a chart; True once the answer is revealed (always
    True out of presenter mode). A follower votes from their phone; the lecturer sees the count
    and reveals; after that everyone sees the class's votes next to the run's ``answer``."""
    ss = st.session_state
    if not ss.get("present"):
        return True
    key = f"reveal-{question_id}"
    ss["_question_now"] = question_id
    if not ss.get(key):
        st.markdown(f"**Predict:** {text}")
    if ss.get(FOLLOW) and not ss.get(key):
        choice = st.radio(
            "Your answer", options, index=None, key=f"vote-{question_id}", horizontal=True
        )
        if choice is not None:
            ROOMS.vote(ss[FOLLOW], _member(), question_id, choice)
            st.caption("Vote sent; the answer appears when the lecturer reveals it.")
        return False
    lead = ss.get(LEAD)
    tally = ROOMS.tally(lead[0], question_id) if lead else {}
    if not ss.get(key):
        st.markdown(" · ".join(f"**{o}**" for o in options))
        if lead:
            _vote_count(lead[0], question_id)
        st.button(
            "Reveal the answer",
            key=f"{key}-button",
            on_click=ss.__setitem__,
            args=(key, True),
            disabled=bool(ss.get(FOLLOW)),
        )
        return False
    if ss.get(FOLLOW):
        tally = ROOMS.tally(ss[FOLLOW], question_id)
    said = ", ".join(f"{k} {v}" for k, v in tally.items()) or "no votes yet"
    in_room = bool(lead or ss.get(FOLLOW))
    st.success(  # one line: the chart below keeps the screen (in a room, the votes replace the
        # question, which the class has just answered)
        f"The run says **{answer}**. The class said: {said}."
        if in_room
        else f"{text} The run says **{answer}**."
    )
    return True
