"""The notebook code of a view: the settings record, then the view call the page made."""

from __future__ import annotations

from dataclasses import fields, is_dataclass

__all__ = ["view_call"]


def _records(settings: object) -> dict[str, str]:
    """The settings records nested in ``settings`` (itself included): class name -> module."""
    out = {type(settings).__name__: type(settings).__module__}
    if is_dataclass(settings):
        for f in fields(settings):
            value = getattr(settings, f.name)
            if is_dataclass(value):
                out.update(_records(value))
    return out


def view_call(settings: object, *, name: str = "v", function: str = "view") -> str:
    """Python that rebuilds ``settings`` (its ``repr``) and calls ``function`` of its module on
    it, binding the view to ``name``.

    Examples
    --------
    >>> from dpcore.views.settings import DataSettings
    >>> code = view_call(DataSettings(n=10, d=1), function="dataset", name="data")
    >>> print(code.splitlines()[0])
    from dpcore.views.settings import DataSettings, dataset
    >>> code.splitlines()[1].startswith("data = dataset(DataSettings(distribution='gaussian'")
    True
    """
    by_module: dict[str, list[str]] = {}
    for kind, module in _records(settings).items():
        by_module.setdefault(module, []).append(kind)
    by_module.setdefault(type(settings).__module__, []).append(function)
    imports = "".join(
        f"from {module} import {', '.join(sorted(names, key=lambda n: (n[0].islower(), n)))}\n"
        for module, names in sorted(by_module.items())
    )
    return f"{imports}{name} = {function}({settings!r})\n"
