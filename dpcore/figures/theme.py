"""Charts on a dark background: the near-black "ink" the builders draw outlines,
reference lines and marker edges with (the clip ball, the non-private mean, theory curves, the
true mean's outline) turned light, so that nothing vanishes under the app's dark theme.

Only that ink changes: the estimators' colours (Okabe–Ito / Tol) read on both backgrounds, and the
text colours come from the app's theme. The builders keep drawing for a white page (notebooks,
exports); the app calls :func:`on_dark` when the visitor's theme is dark.
"""

from __future__ import annotations

import re
from typing import Any

import plotly.graph_objects as go

#: Dark ink used by the builders, as written there (lower case).
DARK_INK = frozenset({"#1d2733", "#000000", "#000", "black", "#333", "#333333", "#222", "#222222"})
#: Its replacement on a dark background: light grey, 11:1 against Streamlit's dark #0e1117.
LIGHT_INK = "#c9d1d9"
_RGBA = re.compile(r"rgba?\(\s*(0|29)\s*,\s*(0|39)\s*,\s*(0|51)\s*(,\s*[\d.]+\s*)?\)")


def _swap(value: Any, colour_key: bool) -> Any:
    if isinstance(value, dict):
        return {k: _swap(v, k.endswith("color") or k == "colors") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_swap(v, colour_key) for v in value]
    if colour_key and isinstance(value, str):
        if value.strip().lower() in DARK_INK:
            return LIGHT_INK
        return _RGBA.sub(lambda m: f"rgba(201, 209, 217{m.group(4) or ', 1'})", value)
    return value


def on_dark(fig: go.Figure | dict) -> go.Figure:
    """A copy of ``fig`` with its dark ink (:data:`DARK_INK`, also as ``rgba``) turned light.

    Every ``...color`` property of traces, layout, shapes and annotations is looked at; other
    colours, and figures without dark ink, come back unchanged.
    """
    d = fig.to_dict() if isinstance(fig, go.Figure) else fig
    return go.Figure(_swap(d, False))
