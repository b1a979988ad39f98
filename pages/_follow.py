"""A class that follows the lecturer, and predict-then-reveal questions (the Streamlit side of
:mod:`pages._rooms`).

The lecturer opens a room in the sidebar and shows its code (and a QR code of the join link) on
the slide; a phone that opens ``?room=CODE`` (or types the code) follows the lecturer's page,
slide and settings: :func:`follow` applies a new view before the sidebar is drawn, and a small
fragment polls the room every :data:`POLL_SECONDS`, waits there for the lecturer's next view
(:data:`WAIT_SECONDS`) and reruns the app as soon as it changes. While it follows, the phone's
deck buttons are disabled and a banner says so (:func:`follow_banner`); "Explore on my own"
leaves the room. A student may set their own seed ("My own seed"), which the room then leaves
alone. The lecturer publishes the view after each run (:func:`publish`), sees how many phones
follow, and shows the room's join slide (:func:`join_slide`: the code and a QR code of a link
built from the public address, :func:`public_address`, never a loopback one).

:func:`predict` asks the class a question before a chart in presenter mode; the chart draws once
the lecturer reveals the answer, with the class's votes next to the run's answer.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import io
import ipaddress
import itertools
import os
import secrets
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from html import escape
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from pages._pool import stop_point
from pages._present import FOLLOWING, START, keyboard
from pages._rooms import ADDRESS, ROOMS, VIEW_KEYS, RoomError, normalise, shown
from pages._sidebar import UNITS
from pages._ui import parse_query, set_sidebar

POLL_SECONDS = 2.0
#: a follower's poll then waits this long for the lecturer's next view (:meth:`Rooms.wait`), in
#: steps of :data:`WAIT_STEP` at which a tap on the phone or a closed tab ends the wait: the
#: phone's session takes a new slide the moment the lecturer's run publishes it, not at its next
#: poll (docs/classroom.md). One step shorter than the poll, so fragment runs never queue up.
WAIT_SECONDS = 1.75
WAIT_STEP = 0.25
LEAD, SEEN = "_room_lead", "_room_seen"
FOLLOW = FOLLOWING
OWN_SEED = "room_own_seed"
#: the join slide is up (set when the lecturer opens a room; "Start ▶" takes it down)
JOIN_SLIDE = "_room_join_slide"
#: the room a phone left with "Explore on my own" (offered again in the sidebar)
LEFT = "_room_left"
#: the public address phones reach this server at: the sidebar's setting, else this variable,
#: else the address the lecturer's browser used (never a loopback one: :func:`public_address`)
PUBLIC, PUBLIC_ENV = "room_public_url", "DPMEAN_PUBLIC_URL"
#: set by the full run before the follower's poll is drawn inline: that run does not wait
_INLINE = "_room_poll_inline"
#: the presenter slide the lecturer's page is on: (session key, index), set by pages._present.step
SLIDE = "_slide_now"


#: the browser cookie Streamlit sets for its XSRF check (the same in every tab of a browser)
BROWSER_COOKIE = "_streamlit_xsrf"
#: this server's key for :func:`member_id` (the cookie itself is never kept)
_SERVER_KEY = secrets.token_bytes(32)
#: session key: this session's :func:`member_id`
_MEMBER = "_room_member_id"


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
    """This browser's anonymous id in a room (:func:`member_id`): one member, one vote. Made once
    per session (a session's cookie is the one its connection sent; reading and unmasking it
    cost a few ms on each of a phone's reruns and polls)."""
    ss = st.session_state
    if _MEMBER not in ss:
        ss[_MEMBER] = member_id(st.context.cookies or {}, _session_token())
    return str(ss[_MEMBER])


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
    st.session_state.pop(LEFT, None)


#: following phones' runs at once (:func:`follower_turn`): one, since their runs share one
#: interpreter lock anyway; each phone then gets the whole lock for its run (at 3 at once the
#: median phone was slower and the p95 no better: docs/classroom.md)
FOLLOWER_RUNS = 1
_TURNS = threading.BoundedSemaphore(FOLLOWER_RUNS)
#: the longest a phone's run waits for its turn (then it runs anyway: a long run elsewhere never
#: holds the class back)
TURN_SECONDS = 2.0


@contextlib.contextmanager
def follower_turn() -> Iterator[None]:
    """Around a following phone's whole run: at most :data:`FOLLOWER_RUNS` of them at once, the
    others wait their turn (in steps of :data:`WAIT_STEP`, at which a closed tab ends the wait).

    When the lecturer steps, every phone of the room reruns at once. Streamlit runs each session
    in a thread of one process, so thirty runs shared one interpreter lock: each of them, and the
    server's loop that sends their screens, got a thirtieth of it, and every phone showed the new
    slide only when all thirty runs were nearly done (docs/classroom.md). In turns, the first
    phones show it after a few runs' time and the lock changes hands far less often. A session
    that does not follow a room (the lecturer's, a phone that explores) never waits."""
    if not st.session_state.get(FOLLOW):
        yield
        return
    got = False
    for _ in range(round(TURN_SECONDS / WAIT_STEP)):
        if got := _TURNS.acquire(timeout=WAIT_STEP):
            break
        stop_point()
    try:
        yield
    finally:
        if got:
            _TURNS.release()


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
    values = parse_query(dict(view.settings))
    if ss.get(OWN_SEED):  # written again: a page switch drops widget values not written here
        values["seed"] = ss.get("seed", values.get("seed", 0))
    set_sidebar(values)
    ss["present"] = True
    if view.question:
        ss[f"reveal-{view.question}"] = view.revealed
    if view.slide_key:
        ss[view.slide_key] = view.slide
    # seen only once applied: a run stopped on the way (a tap on the phone, a rerun) applies the
    # view again in the next run instead of leaving the old slide up until the lecturer's next step
    ss[SEEN] = view.version
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


def lan_address() -> str | None:
    """This machine's address on its network (the interface a packet out would leave by; a UDP
    socket's connect sends nothing), or None when it has none but loopback."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: any routable address picks the interface
        ip = str(s.getsockname()[0])
        return None if ipaddress.ip_address(ip).is_loopback else ip
    return None


def _loopback(host: str) -> bool:
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback or ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def public_address(setting: str, env: str, browser_url: str, lan: str | None) -> tuple[str, str]:
    """The base of the join link (``scheme://host[:port][/path]``, no trailing ``/``) and a note
    for the lecturer ("" when there is nothing to say); the base is "" when there is no address
    a phone could open.

    The address is ``setting`` (the sidebar's), else ``env`` (:data:`PUBLIC_ENV`), else the one
    the lecturer's browser used (``browser_url``: its scheme, host and port). A loopback host
    (``127.0.0.1``, ``localhost``, ``::1``) is never used: no phone can open it. It is replaced by
    ``lan``, this machine's network address, with a note that the server must listen there.

    Examples
    --------
    >>> public_address("", "", "http://127.0.0.1:8501/plan?x=1", "192.168.1.20")[0]
    'http://192.168.1.20:8501'
    >>> public_address("class.example.org", "", "http://127.0.0.1:8501/", None)
    ('http://class.example.org', '')
    """
    browser = urlsplit(browser_url)
    chosen = setting.strip() or env.strip() or f"{browser.scheme}://{browser.netloc}"
    if "://" not in chosen:
        chosen = f"http://{chosen}"
    try:
        parts = urlsplit(chosen)
        scheme, host, port = parts.scheme, parts.hostname or "", parts.port
    except ValueError:  # e.g. a port that is not a number
        scheme, host, port = "", "", None
    if scheme not in ("http", "https") or not host:
        return "", (
            f"{chosen!r} is not an address phones can open: set one like "
            "http://192.168.1.20:8501 in the sidebar (or in DPMEAN_PUBLIC_URL)."
        )
    path = parts.path.rstrip("/")
    if not _loopback(host):
        return f"{parts.scheme}://{parts.netloc}{path}", ""
    if lan is None:
        return "", (
            f"Phones cannot open {host}, this computer's own address, and it has no other: set "
            "the address phones reach the app at in the sidebar (or in DPMEAN_PUBLIC_URL)."
        )
    netloc = f"{lan}:{port}" if port else lan
    return f"{parts.scheme}://{netloc}{path}", (
        f"Phones cannot open {host}: the link uses this computer's network address {lan}. The "
        "app must listen there (make run ADDRESS=0.0.0.0), or set the public address in the "
        "sidebar (or in DPMEAN_PUBLIC_URL)."
    )


def join_address() -> tuple[str, str]:
    """:func:`public_address` for this session: the sidebar's setting, the environment, the
    lecturer's browser and this machine."""
    setting = str(st.session_state.get(PUBLIC) or "")
    env = os.environ.get(PUBLIC_ENV, "")
    return public_address(setting, env, str(st.context.url or ""), lan_address())


def join_link(base: str, code: str) -> str:
    """The link a phone opens to follow room ``code`` at the public address ``base``."""
    return f"{base}/?{urlencode({'room': code})}"


def _qr_png(link: str) -> bytes:
    """The QR code of ``link`` as a PNG (segno writes PNG without other libraries)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=6, border=2)
    return out.getvalue()


def _qr_svg(link: str) -> str:
    """The QR code of ``link`` as an SVG data URI (sharp at any size on the join slide)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", border=2, xmldecl=False, svgns=True)
    return "data:image/svg+xml;base64," + base64.b64encode(out.getvalue()).decode()


#: the join slide: the whole screen, above the page and the sidebar; the QR code is more than
#: half the screen's height and the code at least 96 px high at any projector size
_JOIN_CSS = """<style>
.st-key-dp-join { position: fixed; inset: 0; z-index: 1000100; background: #ffffff;
  color: #10161d; padding: 3vh 3vw; overflow: hidden; }
.dp-join { display: flex; align-items: center; gap: 3vw; height: 84vh; }
.dp-join-qr { height: min(62vh, 48vw); aspect-ratio: 1; flex: none; }
.dp-join-text { min-width: 0; }
.dp-join-text p { margin: 0 0 2vh 0; color: #10161d; }
.dp-join-lead { font-size: max(28px, 4.5vh); }
.dp-join-code { font: 700 max(100px, 15vh)/1 ui-monospace, "DejaVu Sans Mono", monospace;
  letter-spacing: 0.02em; white-space: nowrap; }
.dp-join-link { font-size: max(20px, 3vh); overflow-wrap: anywhere; }
.dp-join-note { font-size: max(18px, 2.4vh); color: #9a3412 !important; }
.st-key-dp-keys-join { display: none; }
.st-key-dp-join-start { position: fixed; right: 3vw; bottom: 3vh; width: auto !important; }
.st-key-dp-join button p { font-size: max(20px, 3vh); }
</style>"""


def _hide_join_slide() -> None:
    st.session_state[JOIN_SLIDE] = False


def join_slide() -> None:
    """The lecturer's join slide while it is up: the room's code in large type and a QR code of
    the join link over the whole screen; "Start ▶" (or →) takes it down for the lecture."""
    ss = st.session_state
    if not (lead := ss.get(LEAD)) or not ss.get(JOIN_SLIDE):
        return
    base, note = join_address()
    link = join_link(base, lead[0]) if base else ""
    qr = f'<img class="dp-join-qr" src="{_qr_svg(link)}" alt="QR code of {escape(link)}">'
    with st.container(key="dp-join"):
        st.html(
            _JOIN_CSS
            + '<div class="dp-join">'
            + (qr if link else "")
            + '<div class="dp-join-text">'
            '<p class="dp-join-lead">Follow the lecture on your phone: scan the code, or open '
            "the link and type the room code</p>"
            f'<p class="dp-join-code">{escape(shown(lead[0]))}</p>'
            + (f'<p class="dp-join-link">{escape(link)}</p>' if link else "")
            + (f'<p class="dp-join-note">{escape(note)}</p>' if note else "")
            + "</div></div>"
        )
        st.button(START, key="dp-join-start", on_click=_hide_join_slide)
        keyboard("dp-keys-join")


def _explore() -> None:
    """A student's "Explore on my own": leave the room (the screen stays where it is)."""
    code = st.session_state.get(FOLLOW)
    _leave()
    if code:
        st.session_state[LEFT] = code


def follow_banner() -> None:
    """Above a following phone's page: it follows the lecturer (its deck buttons are off), and
    the way to explore on one's own."""
    if not (code := st.session_state.get(FOLLOW)):
        return
    with st.container(key="dp-follow-banner"):
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.info(
            f"Following the lecturer (room {shown(code)}): this screen moves with theirs, "
            "so its buttons are off.",
            icon=":material/cast_for_education:",
        )
        c2.button("Explore on my own", key="dp-explore", on_click=_explore, width="stretch")


def followed_settings() -> None:
    """A following phone's sidebar, in place of the data and budget controls: they are the
    lecturer's while it follows (a new view writes them, :func:`follow`), and drawing a dozen
    widgets nobody should touch cost each phone's rerun at every step (docs/classroom.md). Their
    values stay in the session (the app sets them again on every run), so "Explore on my own"
    brings the controls back as the lecturer left them."""
    ss = st.session_state
    unit = UNITS.get(str(ss.get("unit")), str(ss.get("unit")))
    st.sidebar.caption(
        f"**Data and privacy budget: the lecturer's** (n = {int(ss.get('n', 0)):,}, "
        f"d = {int(ss.get('d', 0))}, {unit} {float(ss.get('budget_value', 0.0)):g}). "
        "“Explore on my own” gives you the controls."
    )


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
    seen = st.session_state.get(SEEN, 0)
    if view.version > seen:
        st.rerun(scope="app")
    st.caption(f"Following room **{shown(code)}**: this screen changes with the lecturer's.")
    if st.session_state.pop(_INLINE, False):  # drawn in a full run: the page is not held up
        return
    for _ in range(round(WAIT_SECONDS / WAIT_STEP)):
        if ROOMS.wait(code, seen, WAIT_STEP):
            st.rerun(scope="app")
        stop_point()  # a tap on the phone, or the tab closing, ends the wait here


def _open() -> None:
    try:
        st.session_state[LEAD] = ROOMS.open(clients=_clients())
    except RoomError as err:
        st.session_state["_room_error"] = str(err)
        return
    st.session_state[JOIN_SLIDE] = True


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


def _lecturer_controls(lead: tuple[str, str]) -> None:
    sb, ss = st.sidebar, st.session_state
    with sb:
        _lecturer_status(*lead)
    base, note = join_address()
    if base:
        link = join_link(base, lead[0])
        sb.image(_qr_png(link), width=180, caption=f"Room {shown(lead[0])}")
        sb.caption(f"Phones join at {link}")
    if note:
        sb.warning(note)
    sb.button("Show the join slide", on_click=ss.__setitem__, args=(JOIN_SLIDE, True))
    ss.setdefault(PUBLIC, os.environ.get(PUBLIC_ENV, ""))
    sb.text_input(
        "Public address of this app",
        key=PUBLIC,
        placeholder="e.g. http://192.168.1.20:8501",
        help="The address phones open (the join link and QR code). Empty: DPMEAN_PUBLIC_URL, "
        "else the address this browser uses, never 127.0.0.1 or localhost.",
    )
    sb.button("Close the room", on_click=_close)


def room_controls() -> None:
    """The sidebar's class room: open one (lecturer), or join one by its code (student). A wrong
    code's message is on the main screen, where the student looks."""
    sb, ss = st.sidebar, st.session_state
    if err := ss.pop("_room_error", None):
        st.error(err, icon=":material/error:")
    if lead := ss.get(LEAD):
        _lecturer_controls(lead)
    elif code := ss.get(FOLLOW):
        ss[_INLINE] = True
        with sb:
            _follower_poll(code)
        sb.toggle("My own seed", key=OWN_SEED, help="Keep your seed while following the lecturer.")
        sb.button("Leave the room", on_click=_leave)
    else:
        if left := ss.get(LEFT):
            sb.button(f"Follow room {shown(left)} again", on_click=_join, args=(left,))
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
