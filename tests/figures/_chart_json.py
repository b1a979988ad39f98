"""A chart's JSON as numbers, to compare a chart built as a dict with plotly's figure."""

from __future__ import annotations

import base64
import json
import math
from typing import Any

import numpy as np
import plotly.io as pio


def _numbers(v: Any) -> Any:
    """JSON with typed arrays decoded and NaN written as null, to compare as numbers."""
    if isinstance(v, dict):
        if "bdata" in v:
            a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
            if "shape" in v:
                a = a.reshape([int(t) for t in str(v["shape"]).split(",")])
            return _numbers(a.tolist())
        return {k: _numbers(u) for k, u in v.items()}
    if isinstance(v, list | tuple):
        return [_numbers(u) for u in v]
    return None if isinstance(v, float) and math.isnan(v) else v


def as_numbers(chart: Any) -> Any:
    """``chart`` (a figure or its dict) as the JSON plotly writes, arrays as lists of numbers."""
    return _numbers(json.loads(pio.to_json(chart, validate=False)))


def check_drawn(build: Any, **kwargs: Any) -> dict:
    """``build(**kwargs)`` (a ``(figure, frame)`` builder) and ``build(**kwargs, drawn=True)``:
    the dict is the figure's JSON as numbers, with the same frame, and plotly takes it as it is
    (raises on an invalid property). Returns the dict."""
    import plotly.graph_objects as go

    fig, frame = build(**kwargs)
    chart, fast = build(**kwargs, drawn=True)
    assert isinstance(fig, go.Figure) and isinstance(chart, dict)
    assert as_numbers(chart) == as_numbers(fig.to_dict())
    assert frame.equals(fast)
    go.Figure(chart)
    return chart
