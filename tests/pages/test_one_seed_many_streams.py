"""One seed, many streams: rendering any page at its defaults never seeds two generators alike.

Every ``numpy.random.default_rng`` call made while a page renders (in this process: the worker
pool is off) is recorded with the stream it starts, normalised to ``(entropy, spawn_key)`` (an
integer ``s`` starts the same stream as ``SeedSequence(s)``, and ``SeedSequence(s).spawn(k)[i]``
the same as ``SeedSequence(s, spawn_key=(i,))``), and with the place that asked for it. A stream
asked for from two different places (the data and an estimator's noise, say) fails the test: the
two would draw the same numbers. Asking twice from one place for one stream (the same data drawn
again) is one purpose and passes. References: ``docs/architecture.md`` (Randomness).
"""

from __future__ import annotations

import sys
import threading
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import streamlit as st

from pages._bytecache import ByteCache
from pages._spec import PAGES
from tests.pages._apptest import open_app

ROOT = Path(__file__).resolve().parents[2]
HOME = PAGES[0].path
_REAL = np.random.default_rng
#: frames in these files are plumbing, not the purpose: the purpose is who called them
_PLUMBING = ("numpy", "dpcore/streams.py", "dpcore/_validation.py", "tests/pages/")


def _stream(seed: Any) -> tuple[Any, tuple[int, ...]] | None:
    """The stream ``default_rng(seed)`` starts, or ``None`` (fresh entropy, or an existing one)."""
    if seed is None or isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        return None
    if isinstance(seed, np.random.SeedSequence):
        entropy = seed.entropy
        key = tuple(int(k) for k in seed.spawn_key)
    else:
        entropy, key = seed, ()
    if isinstance(entropy, (list, tuple, np.ndarray)):
        entropy = tuple(int(e) for e in np.asarray(entropy).ravel())
    else:
        entropy = int(entropy)
    return entropy, key


def _caller() -> str:
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename.replace("\\", "/")
        if not any(p in name for p in _PLUMBING):
            rel = name.split(str(ROOT).replace("\\", "/") + "/")[-1]
            return f"{rel}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


#: threads that compute a view of their own while a page renders: Home's warm-up (started by
#: app.py on a server's first run) draws Home's streams, which may equal another view's at the same
#: seed (one seed per view: each view's streams are separate among themselves)
_OTHER_VIEWS = {"warm-home-evidence": "Home (warm-up)"}


class Recorder:
    """Wraps ``numpy.random.default_rng`` and remembers which places asked for which stream, per
    view (the page's run, or a view computed in a thread of its own: :data:`_OTHER_VIEWS`)."""

    def __init__(self) -> None:
        self.places: dict[Any, set[str]] = defaultdict(set)

    def __call__(self, seed: Any = None) -> np.random.Generator:
        stream = _stream(seed)
        if stream is not None:
            view = _OTHER_VIEWS.get(threading.current_thread().name, "page")
            self.places[(view, stream)].add(_caller())
        return _REAL(seed)

    def shared(self) -> dict[Any, set[str]]:
        """Streams asked for from more than one place of one view."""
        return {s: p for s, p in self.places.items() if len(p) > 1}


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder()
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    monkeypatch.setattr(np.random, "default_rng", rec)
    st.cache_data.clear()
    ByteCache.clear_all()
    yield rec
    st.cache_data.clear()
    ByteCache.clear_all()


def test_the_recorder_catches_one_integer_for_data_and_noise(recorder: Recorder) -> None:
    """The rule has power: the old pattern (data and noise both from ``rng=seed``) is caught."""
    from dpcore import registry
    from dpcore.data import generate
    from dpcore.privacy import Budget

    data = generate("gaussian", 200, 4, 2.0, rng=3)
    registry.get("gaussian_public").run(data, Budget.zcdp(0.5), rng=3)
    assert recorder.shared(), "the same integer seeded the data and the noise unnoticed"


def test_the_recorder_lets_named_streams_pass(recorder: Recorder) -> None:
    from dpcore import registry
    from dpcore.privacy import Budget
    from dpcore.views.settings import DataSettings, dataset

    s = DataSettings(n=200, d=4, seed=3)
    data = dataset(s)
    registry.get("gaussian_public").run(
        data, Budget.zcdp(0.5), rng=s.streams.rng("noise:gaussian_public")
    )
    dataset(s)  # the same data again: one purpose
    assert not recorder.shared(), recorder.shared()


def test_generators_are_made_only_through_numpy_random_default_rng() -> None:
    """The recorder sees every generator only if no module imports ``default_rng`` by name."""
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("dpcore", "pages")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "from numpy.random import" in path.read_text(encoding="utf-8")
    ] + (["app.py"] if "from numpy.random import" in (ROOT / "app.py").read_text() else [])
    assert not offenders, offenders


@pytest.mark.parametrize("page", [p.path for p in PAGES])
def test_no_two_generators_from_one_seed_at_the_page_defaults(
    page: str, recorder: Recorder
) -> None:
    at = open_app(timeout=300)
    at.run()  # a visitor lands on Home first: Home's view, its own page in this test
    if page != HOME:
        recorder.places.clear()  # only this page's run (alone, Home's evidence is not cached yet)
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    shared = recorder.shared()
    assert not shared, f"{page}: one seed started generators in several places: " + "; ".join(
        f"{stream} from {sorted(places)}" for stream, places in shared.items()
    )
