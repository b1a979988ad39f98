"""Estimator options as one frozen value that is also the estimator: :class:`EstimatorOptions`.

A multi-stage estimator (PLAN, IOME) keeps its options in a frozen dataclass that subclasses
:class:`EstimatorOptions`; each registered variant is an instance (``dataclasses.replace`` of
another), and the instance is what the registry calls: ``spec(x, rho=..., bounds=..., rng=...,
**options)`` replaces the options given and runs :meth:`EstimatorOptions.run`. Its signature lists
the options a caller may change; the ones named in ``fixed`` define the variant and are refused.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dpcore.estimate import Estimate

#: Fields that describe the spec itself, not an option of the estimator.
META_FIELDS = ("name", "fixed")


@dataclass(frozen=True, kw_only=True)
class EstimatorOptions:
    """Base of an estimator's options.

    Attributes
    ----------
    name : str
        The function name the spec shows (``spec.__name__``).
    fixed : tuple of str
        Options that define the variant: left out of the signature, refused in a call.
    """

    name: str = field(default="", compare=False)
    fixed: tuple[str, ...] = field(default=(), compare=False)

    #: Keywords a call passes on to :meth:`run` beside the data, budget, bounds and rng.
    call_keywords: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "__name__", self.name)
        object.__setattr__(self, "__qualname__", self.name)
        object.__setattr__(self, "__signature__", self._signature())

    def signature_keywords(self) -> tuple[str, ...]:
        """The :attr:`call_keywords` shown in the signature (all of them by default)."""
        return self.call_keywords

    def _signature(self) -> inspect.Signature:
        """``(x, *, rho, bounds=None, <call keywords>=None, <free options>, rng=None)``."""
        kw = inspect.Parameter.KEYWORD_ONLY
        ps = [
            inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("rho", kw),
            inspect.Parameter("bounds", kw, default=None),
        ]
        ps += [inspect.Parameter(k, kw, default=None) for k in self.signature_keywords()]
        ps += [
            inspect.Parameter(f.name, kw, default=getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name not in META_FIELDS and f.name not in self.fixed
        ]
        ps.append(inspect.Parameter("rng", kw, default=None))
        return inspect.Signature(ps)

    def __call__(
        self, x: Any, *, rho: float, bounds: Any = None, rng: Any = None, **options: Any
    ) -> Estimate:
        """Run with this spec, ``options`` replacing its free fields."""
        clash = sorted(set(options) & (set(self.fixed) | set(META_FIELDS)))
        if clash:
            raise TypeError(f"{self.name}() got multiple values for keyword argument {clash[0]!r}")
        extra = {k: options.pop(k) for k in self.call_keywords if k in options}
        spec = dataclasses.replace(self, **options) if options else self
        return spec.run(x, rho=rho, bounds=bounds, rng=rng, **extra)

    def run(self, x: Any, *, rho: float, bounds: Any, rng: Any, **extra: Any) -> Estimate:
        """The estimator with these options (defined by each subclass)."""
        raise NotImplementedError
