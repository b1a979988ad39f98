"""One seed, many streams: every random stream of a view is a named child of one seed.

A view (``dpcore.views``) turns the user's seed into :class:`Streams` and asks it for one
generator per purpose: the data, each estimator's noise, each display sample. Each name is its own
child ``SeedSequence(seed, spawn_key=(VIEW_BRANCH, crc32(name)))``, so no integer ever seeds two
generators, the streams are independent (NumPy SPEC 7), and a stream does not move when another
purpose is added or removed. The experiment engine's children (``dpcore.experiments.engine``) use
spawn keys of one or more CRC-32 values under the same seed; views sit on their own branch
(:data:`VIEW_BRANCH`) so the two never meet.

References: ``docs/architecture.md`` (Randomness).

Examples
--------
>>> s = Streams(7)
>>> a, b = s.rng("data"), s.rng("noise:gaussian")
>>> bool(a.standard_normal() != b.standard_normal())
True
>>> float(Streams(7).rng("data").standard_normal()) == float(Streams(7).rng("data").standard_normal())
True
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

__all__ = ["VIEW_BRANCH", "Streams", "stream_key"]

#: The first spawn-key entry of every view stream (the experiment engine uses others).
VIEW_BRANCH = 0x71E35


def stream_key(name: str) -> int:
    """The stable 32-bit key of a stream's name (CRC-32 of its UTF-8 bytes)."""
    if not isinstance(name, str) or not name:
        raise ValueError("a stream needs a non-empty name, e.g. 'data' or 'noise:gaussian'.")
    return zlib.crc32(name.encode("utf-8"))


@dataclass(frozen=True)
class Streams:
    """The named random streams of one view at one seed.

    Parameters
    ----------
    seed : int
        The user's seed (a non-negative integer).

    Examples
    --------
    >>> Streams(3).seq("data").spawn_key == (VIEW_BRANCH, stream_key("data"))
    True
    """

    seed: int

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise ValueError(f"the seed must be a whole number; got {self.seed!r}.")
        if int(self.seed) < 0:
            raise ValueError(f"the seed must be 0 or more; got {self.seed}.")

    def seq(self, name: str) -> np.random.SeedSequence:
        """The ``SeedSequence`` of the stream called ``name`` (spawn it for per-run children)."""
        return np.random.SeedSequence(int(self.seed), spawn_key=(VIEW_BRANCH, stream_key(name)))

    def rng(self, name: str) -> np.random.Generator:
        """A fresh generator on the stream called ``name`` (ask once per purpose)."""
        return np.random.default_rng(self.seq(name))
