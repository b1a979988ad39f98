"""Page-local controls bound to the URL: a link carries each control's value (``?key=value``),
and the value survives page changes in the session.

A page draws such a control with :func:`url_widget` (or :func:`url_state` before the widget and
:func:`url_sync` after it). Values from a link are read with :func:`url_number` and
:func:`url_json`, which refuse anything malformed, so a broken link falls back to the defaults.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlparse

import streamlit as st

#: Longest URL value a page reads (characters); a longer one is treated as absent.
MAX_URL_VALUE = 4096
#: Deepest nesting of JSON read from a URL value (``yd_bounds`` is ``{column: [lower, upper]}``).
MAX_URL_DEPTH = 3
#: What a malformed URL value raises while it is read (each falls back to the default).
URL_ERRORS = (TypeError, ValueError, OverflowError, RecursionError, AttributeError, KeyError)


def url_value(key: str) -> str | None:
    """A query parameter of the URL the session opened (or of the current query string).

    ``app.py`` rewrites the query string before a page runs, and page links drop page-own
    parameters, so on a session's first run a page's value is recovered from the URL the browser
    opened (``st.context.url``).
    """
    v = st.query_params.get(key)
    if v:
        return str(v) if len(str(v)) <= MAX_URL_VALUE else None
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - no browser context (e.g. under AppTest)
        url = ""
    found = parse_qs(urlparse(url).query).get(key)
    return found[0] if found and len(found[0]) <= MAX_URL_VALUE else None


def _encode(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, float) else str(value)


def url_number(raw: str, *, integer: bool = False) -> float | int:
    """The one reader of numbers in links: a finite float (``-0`` read as ``0``) or an int.

    Raises ``ValueError`` for text longer than 64 characters, ``inf``/``nan``/``1e400`` and, when
    ``integer``, a number with a fraction, so every page falls back to its default on them.

    >>> url_number("-0"), url_number("12", integer=True), url_number("1e3", integer=True)
    (0.0, 12, 1000)
    >>> url_number("1e400")
    Traceback (most recent call last):
    ...
    ValueError: not a finite number: '1e400'
    """
    if not isinstance(raw, str) or len(raw) > 64:
        raise ValueError(f"not a number: {str(raw)[:64]!r}")
    v = float(raw)
    if not math.isfinite(v) or (integer and not v.is_integer()):
        raise ValueError(f"not a finite {'integer' if integer else 'number'}: {raw!r}")
    return int(v) if integer else v + 0.0  # + 0.0 turns -0.0 into 0.0 (one cache key, one label)


def url_json(raw: str, max_depth: int = MAX_URL_DEPTH) -> Any:
    """JSON from a link, refused (``ValueError``) above :data:`MAX_URL_VALUE` characters or
    ``max_depth`` levels of nesting before it is parsed; NaN and infinities are refused too."""
    if not isinstance(raw, str) or len(raw) > MAX_URL_VALUE:
        raise ValueError("the link's value is too long")
    depth = 0
    for ch in raw:  # brackets inside strings count too: a stricter bound, never a looser one
        depth += (ch in "[{") - (ch in "]}")
        if depth > max_depth:
            raise ValueError("the link's value is nested too deeply")
    return json.loads(raw, parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _decode(raw: str, default: Any) -> Any:
    """Parse ``raw`` as the type of ``default`` (raises ``ValueError`` on a malformed value)."""
    if not isinstance(raw, str) or len(raw) > MAX_URL_VALUE:
        raise ValueError("the link's value is too long")
    if isinstance(default, bool):
        if raw not in ("0", "1", "True", "False"):
            raise ValueError(raw)
        return raw in ("1", "True")
    if isinstance(default, int):
        return url_number(raw, integer=True)
    if isinstance(default, float):
        return url_number(raw)
    if isinstance(default, (list, tuple)):
        return [r for r in raw.split(",") if r]
    return raw


def url_state(
    key: str,
    default: Any,
    *,
    valid: Callable[[Any], bool] | None = None,
    parse: Callable[[str], Any] | None = None,
) -> str:
    """Bind the page-local widget ``key`` to the URL and let it survive page changes.

    Call it just before drawing the widget with ``key=key`` (and no ``value=``/``index=``), then
    call :func:`url_sync` with the widget's value. On a session's first visit the value comes from
    the URL (``?key=...``), else ``default``; afterwards it lives in ``st.session_state['_keep_' + key]``,
    which Streamlit does not clear when the widget is off screen (a widget's own state is dropped
    when another page runs). ``valid`` rejects stored or URL values that no longer fit (e.g. options
    that changed); ``parse`` turns the URL text into a value (defaults to the type of ``default``).
    Returns ``key``.
    """
    ss = st.session_state
    keep = f"_keep_{key}"
    read = ss.setdefault("_url_read", set())
    ok = valid or (lambda _v: True)
    if keep not in ss and key not in read:
        read.add(key)
        raw = url_value(key)
        if raw is not None:
            try:
                value = parse(raw) if parse else _decode(raw, default)
                if isinstance(value, float):
                    value += 0.0  # -0.0 -> 0.0
                if not ok(value):
                    raise ValueError("this page cannot show that value")
                ss[keep] = value
            except URL_ERRORS as err:
                refuse_link(key, raw, default, _reason(err))
    if keep in ss and not ok(ss[keep]):
        del ss[keep]
    if key in ss and not ok(ss[key]):
        del ss[key]
    if key not in ss:
        ss[key] = ss.get(keep, default)
    send_values(key)
    show_link_notes(key)
    return key


#: Session key of the notes on link values that were refused (key -> (default used, note)).
_NOTES = "_link_notes"


def refuse_link(key: str, raw: str, default: Any, reason: str) -> None:
    """Record that the link's value ``raw`` for ``key`` was refused for ``reason`` and that
    ``default`` is used instead; :func:`show_link_notes` shows the note on every page."""
    shown = raw if len(raw) <= 40 else raw[:40] + "…"
    note = (
        f"The link's {key} = {shown!r} was not used ({reason.rstrip('.')}); the page uses the "
        f"default {default!r}."
    )
    st.session_state.setdefault(_NOTES, {})[key] = (default, note)


def show_link_notes(*keys: str) -> None:
    """Show the note on each of ``keys`` whose link value was refused, as long as the control
    still holds the default that replaced it (a visitor's own choice ends the note)."""
    notes = st.session_state.get(_NOTES, {})
    for key in keys:
        if key in notes and st.session_state.get(key, notes[key][0]) == notes[key][0]:
            st.warning(notes[key][1], icon=":material/link_off:")


def _reason(err: BaseException) -> str:
    """A short reason for a refused link value (Python's own messages are not shown)."""
    if isinstance(err, ValueError) and str(err) == "this page cannot show that value":
        return str(err)
    return "it is malformed or out of range for this control"


def send_values(*keys: str) -> None:
    """Set these widgets' session values again, so this run sends them to the browser.

    Call it before drawing widgets whose value lives in ``st.session_state`` (drawn with ``key=`` and
    no ``value=``/``index=``). Streamlit sends a widget's value only in a run that set it through the
    session (``set_value``); otherwise the message carries the widget's own default (a multiselect's
    empty list, a select box's first option, a number box's minimum), and a browser that has dropped
    its copy of the value draws that. Seen in use: Compare's estimators drawn empty and its story
    as "Your sidebar settings" after the background refinement's ``st.rerun()``, and the sidebar at
    n = 2, d = 1, ρ = 0, seed 0 after a page change under load, while the server held other values.
    """
    ss = st.session_state
    for key in keys:
        if key in ss:
            ss[key] = ss[key]


def url_sync(key: str, value: Any) -> Any:
    """Record the widget's current ``value`` (session and URL); returns ``value``."""
    st.session_state[f"_keep_{key}"] = value
    st.session_state.setdefault("_page_keys", set()).add(key)
    if value is None:  # no choice made yet (a radio with no default): nothing to carry
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = _encode(value)
    return value


def url_widget(
    widget: Callable[..., Any],
    label: str,
    *args: Any,
    key: str,
    default: Any,
    valid: Callable[[Any], bool] | None = None,
    parse: Callable[[str], Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Draw ``widget(label, *args, key=key, **kwargs)`` bound to the URL (see :func:`url_state`).

    ``widget`` is any Streamlit input (``st.radio``, ``col.slider``, ...); pass no ``value=`` or
    ``index=``: the start value is ``default`` or what the URL or this session said. A value from
    the URL or the session must fit the widget itself (a slider's or number box's range, a choice
    widget's options: :func:`_fits_widget`) and ``valid``, when given, as well.
    """
    fits = _fits_widget(widget, args, kwargs)
    both = fits if valid is None else (lambda v: fits(v) and valid(v))
    url_state(key, default, valid=both, parse=parse)
    return url_sync(key, widget(label, *args, key=key, **kwargs))


def _fits_widget(
    widget: Callable[..., Any], args: tuple, kwargs: dict[str, Any]
) -> Callable[[Any], bool]:
    """Whether a value fits what ``widget(label, *args, **kwargs)`` can show: within a slider's or
    number box's ``min_value``/``max_value``, or one of (for a multiselect: a subset of) a radio's,
    select box's or select slider's ``options`` (positional or keyword, as Streamlit takes them)."""
    name = getattr(widget, "__name__", "")

    def arg(i: int, name_: str) -> Any:
        return kwargs.get(name_, args[i] if len(args) > i else None)

    if name in ("slider", "number_input"):
        lo, hi = arg(0, "min_value"), arg(1, "max_value")

        def in_range(v: Any) -> bool:
            if isinstance(v, bool) or not isinstance(v, int | float):
                return False
            return (lo is None or v >= lo) and (hi is None or v <= hi)

        return in_range
    options = arg(0, "options")
    if options is None or name not in ("radio", "selectbox", "select_slider", "multiselect"):
        return lambda _v: True
    choices = list(options)
    if name == "multiselect":
        return lambda v: isinstance(v, list) and all(c in choices for c in v)
    return lambda v: v in choices


def forget(*keys: str) -> None:
    """Drop page-local values (e.g. when a preset resets the controls it owns) back to their defaults."""
    for key in keys:
        st.session_state.pop(key, None)
        st.session_state.pop(f"_keep_{key}", None)
