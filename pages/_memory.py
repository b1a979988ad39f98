"""The server's long-lived objects out of the cycle collector's way.

A server process holds hundreds of thousands of objects that live as long as it does: Streamlit,
plotly's validators, pandas, the imported pages and the first views in the caches. Python's full
(generation 2) collection walks all of them: about 0.17 s of one student's run, once every few
page views, whoever happens to be running then (docs/speed.md, "Pages, round 4" and "Compare,
round 5": measured with ``gc.callbacks``, a full pass cost 0.17-0.20 s unfrozen, 0.01-0.02 s
frozen, in Compare's first results and refinements alike).
:func:`freeze_after_first_run` moves what exists after a page's first complete run in this process
into the collector's permanent generation (:func:`gc.freeze`), so later full collections walk only
the objects made since. Reference counting still frees a frozen object the moment nothing holds
it; only a reference cycle among frozen objects stays (bounded: one freeze per page per process).
"""

from __future__ import annotations

import gc
import threading

_FROZEN: set[str] = set()
_LOCK = threading.Lock()


def freeze_after_first_run(page: str) -> bool:
    """After a complete run of ``page``: the first time in this process, :func:`gc.freeze` every
    object that exists now (that page's modules and first view among them); True if it froze.

    Examples
    --------
    >>> freeze_after_first_run("doctest-page"), freeze_after_first_run("doctest-page")
    (True, False)
    """
    with _LOCK:
        if page in _FROZEN:
            return False
        _FROZEN.add(page)
    gc.freeze()
    return True
