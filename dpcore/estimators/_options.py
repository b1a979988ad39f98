"""Estimator options as one frozen value that is also the estimator: :class:`EstimatorOptions`.

Every estimator family keeps its options in a frozen dataclass that subclasses
:class:`EstimatorOptions`; each registered variant is an instance (``dataclasses.replace`` of
another), and the instance is what the registry calls: ``spec(x, rho=..., bounds=..., rng=...,
**options)`` replaces the options given and runs :meth:`EstimatorOptions.run`. Its signature lists
the options a caller may change; the ones named in ``fixed`` define the variant and are refused.
A record with a ``notion`` field takes its budget as ``epsilon=`` when it is ``"pure"``, as
``rho=`` when it is ``"zcdp"`` and none when it is ``"none"``; without one, as ``rho=``.

A :class:`Family` holds what a family's variants share (data kinds, neighbouring relation, the
run-time cost); :meth:`Family.register` turns one line (name, label, order, options record and
colour) into a registered :class:`~dpcore.estimate.EstimatorSpec`, with the budget units and
neighbouring relations derived from the notion and the relation (docs/architecture.md, "Adding
an estimator").
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from dpcore.estimate import (
    Cost,
    DataKind,
    Estimate,
    EstimatorSpec,
    Neighbouring,
    register,
)
from dpcore.privacy import NativeNotion

#: Fields that describe the spec itself, not an option of the estimator.
META_FIELDS = ("name", "fixed")


class _LazySignature:
    """``__signature__`` of an options record, made (:meth:`EstimatorOptions._signature`) on first
    read and kept in the record: a run replaces options (``dataclasses.replace``) for every call
    that changes one, and nothing in a run reads those copies' signatures. On the class it is
    ``None``, which :func:`inspect.signature` skips."""

    def __get__(self, obj: Any, owner: type | None = None) -> inspect.Signature | None:
        if obj is None:
            return None
        sig = obj._signature()
        object.__setattr__(obj, "__signature__", sig)  # the record's own entry shadows this one
        return sig


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
    #: Whether :meth:`run` takes the data's public range ``bounds=``.
    takes_bounds: ClassVar[bool] = True
    #: The call's signature, made when first read (:class:`_LazySignature`).
    __signature__: ClassVar[Any] = _LazySignature()

    def budget_keyword(self) -> str | None:
        """The keyword the budget comes in: ``"epsilon"`` for a ``notion="pure"`` record, none for
        ``notion="none"``, else ``"rho"``."""
        notion = getattr(self, "notion", "zcdp")
        return {"pure": "epsilon", "none": None}.get(notion, "rho")

    def __post_init__(self) -> None:
        object.__setattr__(self, "__name__", self.name)
        object.__setattr__(self, "__qualname__", self.name)

    def options(self) -> dict[str, Any]:
        """The record's options by name (every field but ``name``, ``fixed`` and ``notion``)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in META_FIELDS and f.name != "notion"
        }

    def signature_keywords(self) -> tuple[str, ...]:
        """The :attr:`call_keywords` shown in the signature (all of them by default)."""
        return self.call_keywords

    def _signature(self) -> inspect.Signature:
        """``(x, *, <budget>, bounds=None, <call keywords>=None, <free options>, rng=None)``."""
        kw = inspect.Parameter.KEYWORD_ONLY
        ps = [inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        budget = self.budget_keyword()
        if budget is not None:
            ps.append(inspect.Parameter(budget, kw))
        if self.takes_bounds:
            ps.append(inspect.Parameter("bounds", kw, default=None))
        ps += [inspect.Parameter(k, kw, default=None) for k in self.signature_keywords()]
        ps += [
            inspect.Parameter(f.name, kw, default=getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name not in META_FIELDS and f.name not in self.fixed
        ]
        ps.append(inspect.Parameter("rng", kw, default=None))
        return inspect.Signature(ps)

    def __call__(self, x: Any, *, rng: Any = None, **options: Any) -> Estimate:
        """Run with this spec: the budget keyword (:meth:`budget_keyword`) and ``bounds`` go to
        :meth:`run`, the other ``options`` replace its free fields."""
        fixed = {"rng", *self.call_keywords}
        budget = self.budget_keyword()
        if budget is not None:
            if budget not in options:
                raise TypeError(f"{self.name}() missing required keyword-only argument: {budget!r}")
            fixed.add(budget)
        if self.takes_bounds:
            options.setdefault("bounds", None)
            fixed.add("bounds")
        clash = sorted(set(options) & (set(self.fixed) | set(META_FIELDS)))
        if clash:
            raise TypeError(f"{self.name}() got multiple values for keyword argument {clash[0]!r}")
        extra = {k: options.pop(k) for k in fixed if k in options}
        spec = dataclasses.replace(self, **options) if options else self
        return spec.run(x, rng=rng, **extra)

    def run(self, *args: Any, **kwargs: Any) -> Estimate:
        """The estimator with these options (defined by each subclass): called as
        ``run(x, rng=..., <budget keyword>=..., bounds=..., <call keywords>=...)``, with ``bounds``
        when :attr:`takes_bounds` and the :attr:`call_keywords` given."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Family:
    """What the registered variants of one estimator family share.

    Attributes
    ----------
    family : str
        Group name for the app (``EstimatorSpec.family``).
    data_kinds : frozenset of {"real", "bounded", "binary"}
        Data its variants apply to.
    cost : Cost
        Run-time model entry of its variants (one variant may declare its own).
    notion : {"pure", "zcdp", "none"}
        Native notion of a variant whose options record has no ``notion`` field.
    neighbouring : {"replace-one", "add-remove", "none"}
        Relation of a variant whose options record has no ``neighbouring`` field.
    needs_dimension : {"any", "scalar", "vector"}
        Dimensions its variants apply to.

    Examples
    --------
    >>> from dpcore import registry
    >>> sorted(registry.get("pmwm_zcdp").units), sorted(registry.get("pmwm_zcdp").relations)
    (['eps_delta', 'rho'], ['replace-one'])
    """

    family: str
    data_kinds: frozenset[DataKind]
    cost: Cost
    notion: NativeNotion = "zcdp"
    neighbouring: Neighbouring = "replace-one"
    needs_dimension: Literal["any", "scalar", "vector"] = "any"

    def register(
        self,
        name: str,
        label: str,
        order: int,
        options: EstimatorOptions,
        *,
        color: str,
        **more: Any,
    ) -> EstimatorSpec:
        """Register the variant ``name`` whose options record is ``options``.

        ``more`` sets any other :class:`~dpcore.estimate.EstimatorSpec` field (``detail``,
        ``description``, ``default``, ``cost``, ...) over the family's defaults; ``units`` and
        ``relations`` follow from the notion and the neighbouring relation.
        """
        fields: dict[str, Any] = {
            "family": self.family,
            "data_kinds": frozenset(self.data_kinds),
            "notion": getattr(options, "notion", self.notion),
            "neighbouring": getattr(options, "neighbouring", self.neighbouring),
            "needs_dimension": self.needs_dimension,
            "cost": self.cost,
        }
        fields.update(more)
        return register(
            EstimatorSpec(name=name, label=label, order=order, color=color, func=options, **fields)
        )
