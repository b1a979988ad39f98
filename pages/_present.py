"""Presenter mode: large fonts, no code or download buttons, one idea per screen, arrow keys to step.

The mode is a session flag (``st.session_state["present"]``) bound to the URL as ``?present=1`` by
``app.py``; :func:`pages._ui.chart` reads :func:`presenting` to leave out its downloads and code.
Streamlit has no keyboard API, so :func:`keyboard` adds a tiny same-origin script (in a hidden
``st.iframe`` frame) that turns ← / → (and PageUp / PageDown, as sent by presentation
clickers) into clicks on the "◀ Previous" / "Next ▶" buttons of :func:`step`.

:class:`Deck` steps through a long page one section at a time without restructuring it: the page
marks where each section starts, everything still runs (the slide pack needs every chart), and a
style rule hides what is not on the current screen. :func:`slides_button` offers the charts a page
drew as one HTML deck (:func:`dpcore.figures.slides.deck_html`), one panel per slide where asked.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

import streamlit as st

from dpcore.figures.slides import deck_html, split_subplots
from pages._window import add_once, probe_buttons, probe_script

PREV, NEXT = "◀ Previous", "Next ▶"

#: The page's main column and its top-level blocks (one per element, columns row or container).
_MAIN = '[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]'
_TOP = _MAIN + " > "

#: chart text grows with the screen: the scale the charts are drawn at from a window of at least
#: (width, height) px (the page's key handler tells the app its window: :func:`screen_buttons`)
SCREENS = ((0, 0, 1.0), (1600, 900, 1.25), (2400, 1350, 1.6), (3200, 1800, 2.0))
#: session key: the scale of this presenter's screen (:data:`SCREENS`)
SCREEN = "_screen_scale"
_SCREEN_LABEL = "dp-screen-{}"
#: the screen's class in the page (pages/_window.py): the scale of the largest of
#: :data:`SCREENS` the window fills
_SCREEN_CLASS = (
    "function (w, h) { let scale = 1; for (const [mw, mh, z] of "
    + json.dumps([list(x) for x in SCREENS])
    + ") { if (w >= mw && h >= mh) { scale = z; } } return scale; }"
)

_CSS = f"""
<style>
  /* presenter mode: large type, no chrome, a compact title */
  .stApp [data-testid="stMarkdownContainer"] p,
  .stApp [data-testid="stMarkdownContainer"] li {{ font-size: 1.3rem; line-height: 1.45; }}
  /* a table a page writes in its text, as large as the text (pages/_tables.py sizes its own) */
  .stApp [data-testid="stMarkdownContainer"] :is(th, td) {{ font-size: 1.3rem; }}
  .stApp h1 {{ font-size: 2.1rem; padding: 0; white-space: nowrap; overflow: hidden;
              text-overflow: ellipsis; }}
  .stApp h2, .stApp h3 {{ font-size: 1.8rem; }}
  .stApp [data-testid="stCaptionContainer"] {{ font-size: 1.1rem; }}
  [data-testid="stMainBlockContainer"] {{ padding-top: 1.25rem; padding-bottom: 1rem; }}
  [data-testid="stMain"] :not([class*="st-key-dp-notes-"]) > [data-testid="stExpander"],
  [data-testid="stMain"] [data-testid="stDownloadButton"] {{ display: none; }}
  [class*="st-key-dp-keys"], [data-testid="stDecoration"], [data-testid="stMainMenu"],
    [data-testid="stToolbarActions"], [data-testid="stAppDeployButton"] {{ display: none; }}
  /* the header draws nothing but the button that opens the sidebar (the room, the settings) */
  header[data-testid="stHeader"] {{ background: transparent; pointer-events: none; }}
  header[data-testid="stHeader"] button {{ pointer-events: auto; }}
  /* a page without steps is one screen: its first chart right under the title, as high as the
     screen leaves, its speaker notes after it, the rest of the page below (cheap selectors only:
     a :has() over a chart's SVG is re-checked on every redraw) */
  {_MAIN}:not(:has(> * > .st-key-dp-start)) > :nth-child(1 of :has(> [data-testid="stHeading"]))
    {{ order: -2; }}
  {_MAIN}:not(:has(> * > .st-key-dp-start)) > :nth-child(1 of [class*="st-key-chart-"]),
  {_MAIN}:not(:has(> * > .st-key-dp-start)) > :nth-child(1 of [class*="st-key-chart-"]) + *
    {{ order: -1; }}
  {_MAIN}:not(:has(> * > .st-key-dp-start)) > :has(.dp-phone-title):has(
    + :nth-child(1 of [class*="st-key-chart-"])) {{ order: -1; }}
  /* ... under the heading of its section (the page marks it: heading()) */
  {_MAIN}:not(:has(> * > .st-key-dp-start)) > :has(> [class*="st-key-dp-head-"]) {{ order: -1; }}
  {_MAIN}:not(:has(> * > .st-key-dp-start)) > :nth-child(1 of [class*="st-key-chart-"])
    {{ height: calc(100dvh - 11.5rem - 4vh); overflow: hidden; }}
  /* a chart's title is a line above it (dpcore.figures.style.for_projector): no legend reaches
     it; the chart's text is at least 16 px, more on a larger screen (chart_scale) */
  .stApp [data-testid="stElementContainer"]:has(.dp-phone-title) {{ display: block; }}
  .stApp .dp-phone-title {{ font-size: max(1.35rem, 3vh); margin: 0 0 -0.6rem 0; }}
  .st-key-dp-screen {{ display: none; }}
  /* a spinner shown while a run works floats in the top corner: in the slide's flow it pushed
     the chart under it down by its height, past the bottom of a 720-px screen (PLAN's steps) */
  [data-testid="stMain"] [data-testid="stElementContainer"]:has(.stSpinner)
    {{ position: fixed; top: 0.4rem; right: 1rem; width: auto; z-index: 1000; }}
</style>
"""

#: A deck is one screen: under the page's title, the bar and the chart's title line (about 4% of
#: the screen: pages/_ui.chart writes it in presenter mode), a slide's chart is as high as the
#: window leaves (its paragraph folded into speaker notes below it, its heading in the bar).
#: The chart's block clips it: a new figure is first drawn at its own layout height (PLAN's
#: steps: 490 px) and fitted to the block some 80 ms later (longer on a busy laptop), and in
#: between it ran past the bottom of a 720-px screen (784 px).
_FIT = f"""
  {_TOP}[class*="st-key-chart-"] {{ height: calc(100dvh - 18rem - 4vh); min-height: 12rem;
    overflow: hidden; }}
  {_MAIN}:has(> * > .st-key-dp-start) h2, {_MAIN}:has(> * > .st-key-dp-start) h3
    {{ display: none; }}
"""

#: the key handler, run in the page's own window (not in the frame that adds it): a listener made
#: in a frame dies with the frame, and Streamlit drops the frame at every page switch, so the
#: arrows stopped stepping after the lecturer changed page from the sidebar (docs/classroom.md)
_HANDLER = """
(function () {
  function click(labels) {
    const buttons = Array.from(document.querySelectorAll('button'));
    for (const label of labels) {
      const b = buttons.find(x => x.innerText.trim() === label && x.offsetParent !== null);
      if (b) { if (!b.disabled) { b.click(); } return; }
    }
  }
  // the app draws its charts for this window: a hidden button per other screen size says which
%PROBE%
  document.addEventListener('keydown', function (ev) {
    const t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) { return; }
    if (ev.key === 'ArrowRight' || ev.key === 'PageDown') { click(%FORWARD%); ev.preventDefault(); }
    if (ev.key === 'ArrowLeft' || ev.key === 'PageUp') { click(%BACK%); ev.preventDefault(); }
  });
})();
"""

#: the join slide's button (pages/_follow.py): → starts the lecture from it
START = "Start ▶"


#: session key: True while a presenter-mode page draws a section that is not on the screen (set by
#: :class:`Deck`, cleared by :func:`new_run`); :func:`pages._ui.chart` then records the chart for the
#: slide pack and the notebook but does not send it to the browser (a hidden chart still costs the
#: server its JSON and the browser its drawing, on the lecturer's laptop and every following phone)
OFF_SCREEN = "_deck_off_screen"


def new_run() -> None:
    """Start a run with nothing hidden (called by the app before the page runs)."""
    st.session_state.pop(OFF_SCREEN, None)


def off_screen() -> bool:
    """Whether what the page draws now is hidden by the presenter-mode deck (see :data:`OFF_SCREEN`)."""
    return bool(st.session_state.get(OFF_SCREEN, False))


#: session key: the room a phone follows (set and cleared by pages/_follow.py)
FOLLOWING = "_room_follow"


def following() -> bool:
    """Whether this session is a phone following a lecturer's room (its deck then steps with the
    lecturer's, never on its own)."""
    return bool(st.session_state.get(FOLLOWING))


def presenting() -> bool:
    """Whether presenter mode is on (sidebar toggle, ``?present=1``)."""
    return bool(st.session_state.get("present", False))


#: the most rows a scatter draws in presenter mode: a projector (and a following phone) shows the
#: cloud's shape as well with 500 points as with 2,000, and every drawn point is one SVG element
#: the browser lays out again at each redraw (docs/classroom.md: a PLAN slide's redraw in headless
#: Chromium took 0.9-4.9 s with 2,000 points and 0.3-0.9 s with 500)
PRESENT_POINTS = 500


def drawn_points(most: int) -> int:
    """How many rows a scatter draws: ``most``, or :data:`PRESENT_POINTS` in presenter mode."""
    return min(most, PRESENT_POINTS) if presenting() else most


def style() -> None:
    """Large fonts and no code/download chrome, the arrow keys and the screen's size (call once
    per run when :func:`presenting`)."""
    st.markdown(_CSS, unsafe_allow_html=True)
    keyboard()
    screen_buttons()


def chart_scale() -> float:
    """The scale presenter-mode charts are drawn at on this screen (:data:`SCREENS`; 1 until the
    browser has said, and out of presenter mode)."""
    return float(st.session_state.get(SCREEN, 1.0)) if presenting() else 1.0


def screen_buttons() -> None:
    """Hidden buttons, one per screen size but this session's: the page's key handler clicks
    the one for its window (at the start, and when the window changes), so the charts are laid
    out with text for that screen (Streamlit cannot read a window's size itself). The buttons
    drawn tell a test which size the session has heard: all but that one."""
    now = st.session_state.get(SCREEN, 1.0)
    classes = [(f"{scale:g}", scale) for *_, scale in SCREENS]  # as the page's script writes it
    probe_buttons(st, "dp-screen", _SCREEN_LABEL, classes, SCREEN, now)


def keys_script() -> str:
    """The frame's HTML that adds the page's key handler (→ / PageDown: "Start ▶" or "Next ▶",
    ← / PageUp: "◀ Previous"; only a shown, enabled button is clicked)."""
    probe = probe_script("dp-screen", _SCREEN_LABEL, _SCREEN_CLASS, every_ms=250, retry_ms=2000)
    handler = (
        _HANDLER.replace("%FORWARD%", json.dumps([START, NEXT]))
        .replace("%BACK%", json.dumps([PREV]))
        .replace("%PROBE%", probe)
    )
    return add_once(handler, "__dpmeanKeys")


def keyboard(key: str = "dp-keys") -> None:
    """← / → (PageUp / PageDown) click "◀ Previous" / "Next ▶" (a same-origin frame, not drawn,
    that adds :func:`keys_script`'s handler to the page once: it survives page switches).
    ``key``: the frame's container, one per call in a run (``dp-keys...``: not drawn)."""
    with st.container(key=key):  # drawn as nothing (its script still runs): see _CSS
        st.iframe(keys_script(), height=1)


def step(titles: Sequence[str], key: str) -> int:
    """One idea per screen: Previous/Next buttons over ``titles``; returns the index to show.

    The index lives in ``st.session_state[key]``; the buttons are disabled at either end.
    """
    n = len(titles)
    i = min(max(int(st.session_state.get(key, 0)), 0), n - 1)
    led = following()  # a phone in a room: the lecturer steps (its banner says so)

    def move(delta: int) -> None:
        st.session_state[key] = min(max(i + delta, 0), n - 1)

    c1, c2, c3 = st.columns([1, 4, 1])
    c1.button(
        PREV,
        key=f"{key}-prev",
        on_click=move,
        args=(-1,),
        disabled=led or i == 0,
        width="stretch",
    )
    title = html.escape(titles[i], quote=True)
    c2.markdown(  # the slide's takeaway on one line, its number in small type before it
        "<div style='text-align:center; white-space:nowrap; overflow:hidden; "
        f"text-overflow:ellipsis' title='{i + 1} / {n} · {title} (← → to step)'>"
        f"<span style='font-size:1rem; color:#6b7785'>{i + 1} / {n} · </span>"
        f"<b style='font-size:1.55rem'>{title}</b></div>",
        unsafe_allow_html=True,
    )
    c3.button(
        NEXT,
        key=f"{key}-next",
        on_click=move,
        args=(1,),
        disabled=led or i == n - 1,
        width="stretch",
    )
    st.session_state["_slide_now"] = (key, i)  # a class room follows it (pages/_follow.py)
    return i


def heading(text: str, key: str, level: str = "subheader") -> None:
    """The heading (``st.header`` or ``st.subheader``: ``level``) of the chart a page without
    steps shows first: presenter mode moves the page's first full-width chart under the page's
    title, and this heading with it, so the slide states its question above the chart (an
    unmarked heading stays where it is, below the chart). One per page, at top level."""
    with st.container(key=f"dp-head-{key}"):
        getattr(st, level)(text)


def paragraph(text: str, key: str, label: str = "Speaker notes") -> None:
    """A paragraph of the page; in presenter mode folded under ``label`` (the chart keeps the
    screen; a slide whose chart has its own speaker notes names this fold apart)."""
    if presenting():
        st.expander(label, key=f"dp-notes-{key}").markdown(text)
    else:
        st.markdown(text)


def _empty_block(key: str) -> None:
    """A top-level block with the class ``st-key-<key>`` (an empty container is not drawn at all)."""
    st.container(key=key).markdown("<span></span>", unsafe_allow_html=True)


class Deck:
    """One idea per screen on a long page: ``mark()`` where each section starts, ``end()`` after.

    Out of presenter mode this draws nothing. In it, the constructor draws :func:`step`'s bar and a
    style rule that leaves on screen only the page's title, the bar and the current section: every
    top-level block between the bar and the current section's mark, and from the next mark on, is
    hidden. The marks are empty keyed containers (Streamlit gives each the class ``st-key-<key>``),
    so plain sibling selectors find them. One mark may start several slides (``mark("(a)", "(b)")``:
    e.g. one panel of a figure per slide; the page asks :meth:`showing` which).
    """

    def __init__(self, titles: Sequence[str], key: str) -> None:
        self.titles = list(titles)
        self.on = presenting()
        self.index = step(self.titles, key) if self.on else -1
        self._count = 0
        if not self.on:
            return
        st.session_state[OFF_SCREEN] = True  # from the bar to the current section: hidden
        _empty_block("dp-start")
        # a mark is a keyed container, the child of its top-level block (a :has() over the whole
        # block would be re-checked on every redraw of a chart in it)
        mark = '> [class*="st-key-dp-mark-"]'
        here = f':has({mark}[class*="-s{self.index}-"])'
        other = f':has({mark}:not([class*="-s{self.index}-"]))'
        hide = [  # (:has() may not nest, :not() may hold it)
            f"{_TOP}:has(> .st-key-dp-start) ~ :not({here}, {here} ~ *)",  # bar .. section
            f"{_TOP}{here} ~ {other}",  # the next section's mark ...
            f"{_TOP}{here} ~ {other} ~ *",  # ... and everything after it
            f"{_TOP}:has({mark})",  # the (empty) marks themselves
        ]
        st.markdown(
            "<style>" + ", ".join(hide) + " { display: none !important; }" + _FIT + "</style>",
            unsafe_allow_html=True,
        )

    def _mark(self, indices: Sequence[int]) -> None:
        if self.on:
            st.session_state[OFF_SCREEN] = self.index not in indices
            self._count += 1
            _empty_block(f"dp-mark-{self._count}-" + "".join(f"s{k}-" for k in indices))

    def mark(self, *titles: str) -> None:
        """The section(s) ``titles`` start here."""
        self._mark([self.titles.index(t) for t in titles])

    def end(self) -> None:
        """The last section ends here: what follows is not on any screen."""
        self._mark([len(self.titles)])

    def showing(self, title: str) -> bool:
        """Whether ``title`` is on screen (always, out of presenter mode)."""
        return not self.on or self.titles[self.index] == title


def slides_button(
    title: str, slides: Sequence[tuple[str, str, int | None]], *, subtitle: str, key: str
) -> None:
    """A sidebar download of this page's charts as one HTML deck (built only when clicked).

    ``slides``: ``(heading, chart name, panel)``, the chart as :func:`pages._ui.chart` drew it
    under that name in this run, and ``panel`` the index of one of its panels or None for all.
    """
    drawn = st.session_state.get("_ui_charts", {})

    def build() -> str:
        out = []
        for heading, name, panel in slides:
            if name in drawn:
                fig, sentence, _ = drawn[name]
                out.append(
                    (heading, sentence, fig if panel is None else split_subplots(fig)[panel])
                )
        return deck_html(title, out, subtitle=subtitle)

    st.sidebar.download_button(
        "Slides of this page (HTML)",
        build,
        file_name=f"{key}-slides.html",
        mime="text/html",
        key=f"{key}_deck",
        on_click="ignore",
        help="One self-contained HTML deck of this page's charts, one idea per slide (← → to "
        "step), for a talk.",
    )
