"""The fuzz suite's single pass/fail rule.

A case passes with a correct result (a finite mean of the right shape) or with a ``ValueError`` /
``TypeError`` whose message names the problem. Any other exception, an empty or internal message,
or a NaN/inf in the output is a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: Fragments of messages that come from numpy/python internals rather than from a dpcore check.
_INTERNAL = (
    "operands could not be broadcast",
    "object of type",
    "unsupported operand",
    "not subscriptable",
    "could not convert string to float",
    "invalid literal",
    "takes ",
    "got an unexpected keyword",
    "index out of bounds",
    "division by zero",
    "math domain error",
    "has no attribute",
)


def refused_clearly(err: BaseException) -> bool:
    """A message of 15 characters or more with no internal fragment, or one dpcore wrapped with
    its own fix (it names ``dpcore``, e.g. "help(dpcore.registry.get('plan').func) lists them")."""
    msg = str(err)
    return len(msg) >= 15 and ("dpcore" in msg or not any(frag in msg for frag in _INTERNAL))


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """Run ``call``; return ``("ok", value)`` or ``("refused", message)``; raise on anything else."""
    try:
        return "ok", call()
    except (ValueError, TypeError) as err:
        assert refused_clearly(err), f"unclear refusal {type(err).__name__}: {err!r}"  # noqa: PT017 - a helper
        return "refused", str(err)


def assert_finite_mean(mean: Any, d: int | None) -> None:
    m = np.asarray(mean, dtype=float)
    assert np.all(np.isfinite(m)), f"non-finite mean {m}"
    if d is not None:
        assert m.size == d, f"mean has {m.size} values for d = {d}"
