"""The JSON side of an experiment config: the JSON types each field accepts, and the checks that
run before a config's text is parsed (no NaN or infinity, no deep nesting). Used by
:class:`dpcore.experiments.config.ExperimentConfig`.
"""

from __future__ import annotations

from dpcore import limits

_JSON_NAME = {
    str: "a string",
    int: "an integer",
    float: "a number",
    list: "a list",
    dict: "an object",
}


_NUM = (int, float)  # "an integer or a number": JSON has one number type


#: The JSON types each config field accepts (checked before anything else reads a value).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "description": (str,),
    "notes": (str,),
    "distribution": (str,),
    "unit": (str,),
    "conversion": (str,),
    "truth": (str,),
    "resample": (str,),
    "metric": (str, type(None)),
    "data_params": (dict,),
    "n": (int,),
    "d": (int,),
    "repetitions": (int,),
    "seed": (int,),
    "skew": (*_NUM, type(None)),
    "budget": _NUM,
    "delta": _NUM,
    "estimators": (list, tuple),
    "sweep": (dict,),
    "bounds": (dict, type(None)),
}


def _reject_constant(name: str) -> float:
    raise ValueError(
        f"the config holds {name}, which is not a number JSON allows; use a finite number."
    )


def _check_depth(text: str) -> None:
    """Reject JSON nested deeper than :data:`dpcore.limits.MAX_JSON_DEPTH` before parsing it
    (deep nesting would otherwise end in a ``RecursionError``)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limits.MAX_JSON_DEPTH:
                raise ValueError(
                    f"the config is nested more than {limits.MAX_JSON_DEPTH} levels deep; "
                    "a config is a flat object of values, lists and small objects."
                )
        elif ch in "]}":
            depth -= 1
