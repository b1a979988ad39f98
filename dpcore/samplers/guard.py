"""Python's :mod:`random` refused during a release (:func:`no_stdlib_random`) and the
:class:`UnsafeDraw` error of the release backend.

Part of :mod:`dpcore.samplers` (the module docstring there is the contract).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import random
import sys
import sysconfig
from collections.abc import Callable, Iterator
from typing import Any


class UnsafeDraw(ValueError):
    """An estimator asked the release backend for a draw it cannot make safely."""

    __module__ = "dpcore.samplers"  # its public home (the traceback names it there)


_LIBRARY_KEYS = ("stdlib", "platstdlib", "purelib", "platlib")
#: True while a release runs in this context (:func:`no_stdlib_random`).
_RELEASING: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcore_releasing", default=False)


#: Where the standard library and installed packages live: their own uses of :mod:`random`
#: (``tempfile``'s names, a package's import-time set-up) are not an estimator's draws.
_LIBRARIES = tuple(
    {os.path.realpath(p) for k, p in sysconfig.get_paths().items() if k in _LIBRARY_KEYS}
)


def _drawn_by_a_library() -> bool:
    """Whether the code asking :mod:`random` for a draw (the first frame outside ``random.py``)
    is the standard library's or an installed package's, and not dpcore's."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == random.__file__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return False
    name = str(frame.f_globals.get("__name__", ""))
    if name == "dpcore" or name.startswith("dpcore."):
        return False
    return os.path.realpath(frame.f_code.co_filename).startswith(_LIBRARIES)


def _refusing(name: str, draw: Callable[..., Any], *, method: bool) -> Callable[..., Any]:
    """``draw`` refusing to run for an estimator during a release (``method``: unbound, its first
    argument is the generator, and a :class:`random.SystemRandom` passes)."""

    @functools.wraps(draw)
    def watched(*args: Any, **kwargs: Any) -> Any:
        csprng = method and isinstance(args[0], random.SystemRandom)
        if _RELEASING.get() and not csprng and not _drawn_by_a_library():
            raise UnsafeDraw(
                f"random.{name} (Python's random module) was called during a release; its "
                "Mersenne Twister is seeded and predictable and its floats leak low bits: draw "
                "through dpcore.mechanisms and the release backend instead"
            )
        return draw(*args, **kwargs)

    return watched


def _watch_stdlib_random() -> None:
    """Wrap, once, every draw of Python's :mod:`random`: the module's functions (bound to its
    hidden generator) and the two methods every ``random.Random`` draw goes through (``random`` and
    ``getrandbits``; :class:`random.SystemRandom`, the OS CSPRNG behind :mod:`secrets`, overrides
    both and is not wrapped)."""
    if getattr(random, "_dpcore_watched", False):
        return
    for name in random.__all__:
        f = getattr(random, name)
        if isinstance(getattr(f, "__self__", None), random.Random):
            setattr(random, name, _refusing(name, f, method=False))
    for name in ("random", "getrandbits"):
        setattr(random.Random, name, _refusing(name, getattr(random.Random, name), method=True))
    random._dpcore_watched = True  # type: ignore[attr-defined]


@contextlib.contextmanager
def no_stdlib_random() -> Iterator[None]:
    """Refuse every draw from Python's :mod:`random` module inside the block (a release).

    The refusal is an :class:`UnsafeDraw` naming the function, for a draw asked by dpcore or by
    any code outside the standard library and the installed packages (an estimator); a library's
    own use (``tempfile``'s file names, a package's import-time set-up) is not an estimator's
    draw and passes. It holds in this context only (other threads, e.g. other app sessions, are
    untouched); :mod:`secrets` and :class:`random.SystemRandom` stay available.

    >>> with no_stdlib_random():
    ...     random.random()
    Traceback (most recent call last):
    ...
    dpcore.samplers.UnsafeDraw: random.random (Python's random module) was called during a release; ...
    """
    _watch_stdlib_random()
    token = _RELEASING.set(True)
    try:
        yield
    finally:
        _RELEASING.reset(token)
