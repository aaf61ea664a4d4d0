"""A parsed metric spec (:class:`Metric`), and its parameters checked against its record."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..rankings import as_rankings
from .parameters import _freeze
from .records import REGISTRY, MetricInfo, other_judgments

__all__ = ["Metric", "ParameterError"]


class ParameterError(ValueError):
    """A spec's parameter value its record refuses (the metric's own message)."""


@dataclass(frozen=True)
class Metric:
    """A parsed metric spec: registry name, parameters, cutoff.

    ``str(metric)`` is the canonical spec, and ``parse_metric(str(metric)) == metric``.

    Examples
    --------
    >>> from rankkit.names import parse_metric
    >>> m = parse_metric("nDCG(gain='exp')@10")
    >>> m.name, m.kwargs, m.k
    ('nDCG', {'gain': 'exp'}, 10)
    >>> str(m)
    "nDCG(gain='exp')@10"
    >>> str(parse_metric("ndcg_cut_10")), str(parse_metric("map")), str(parse_metric("P(rel=2) @ 5"))
    ('nDCG@10', 'AP', 'P(rel=2)@5')
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    k: int | None = None
    #: The ir_measures spelling it was parsed from, printed back by ``str()`` (as
    #: ir_measures prints its measures); None for rankkit's and trec_eval's names.
    written: str | None = field(default=None, compare=False, repr=False)

    @property
    def kwargs(self) -> dict[str, Any]:
        """The parameters as keyword arguments of the metric function (``k`` excluded)."""
        return dict(self.params)

    @property
    def info(self) -> MetricInfo:
        return REGISTRY[self.name]

    def __str__(self) -> str:
        if self.written is not None:
            return self.written
        args = ", ".join(f"{key}={value!r}" for key, value in self.params)
        return self.name + (f"({args})" if args else "") + (f"@{self.k}" if self.k is not None else "")

    def __call__(self, rankings) -> np.ndarray:
        """Compute the metric on anything :func:`as_rankings` accepts (on what its record's
        ``func`` takes, for the metrics of other judgments; the recommender measures have
        their own functions, ``rk.<name>``)."""
        if self.info.func is None:
            raise ValueError(other_judgments(str(self), self))
        kwargs = self.kwargs
        if self.k is not None:
            kwargs["k"] = self.k
        if kwargs.pop("judged_only", False):
            rankings = as_rankings(rankings).judged_only()
        return self.info.func(rankings, **kwargs)


def parse_k(text: str, spec: str, zero: bool = False) -> int:
    """The cutoff of a spec: a positive integer (or 0 when ``zero``)."""
    if not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(f"k must be a positive integer, got {text!r} in metric spec {spec!r}")
    k = int(text)
    if k < 0 or (k == 0 and not zero):
        raise ValueError(f"k must be a positive integer, got {k} in metric spec {spec!r}")
    return k


def make_metric(name: str, params: dict[str, Any], k: int | None, spec: str, column: str | None = None) -> Metric:
    """A Metric with its parameters checked against the record of ``name`` and put in its order.

    A value the record's :class:`Param` refuses raises ValueError
    ``metric <column>: <the metric's message>``, as computing it would (``column``: the
    name its column gets, by default the spec as written).
    """
    info = REGISTRY[name]
    _check_names(info, params, k, spec)
    if "judged_only" in params and not isinstance(params["judged_only"], bool):
        raise ValueError(f"judged_only must be True or False, got {params['judged_only']!r} in metric spec {spec!r}")
    for param in info.parameters:
        if param.name in params:
            try:
                param.validate(params[param.name])
            except ValueError as exc:
                raise ParameterError(f"metric {column or spec.strip()}: {exc}") from None
    ordered = tuple((p, _freeze(params[p])) for p in (*info.params, "judged_only") if p in params)
    if ("judged_only", False) in ordered:
        ordered = tuple(pair for pair in ordered if pair != ("judged_only", False))  # the default
    return Metric(name, ordered, k)


def _check_names(info: MetricInfo, params: dict[str, Any], k: int | None, spec: str) -> None:
    """Refuse parameters the record does not take, missing required ones, and a cutoff it
    does not take."""
    name = info.name
    unknown = sorted(set(params) - set(info.params) - {"judged_only"})
    if unknown:
        allowed = ", ".join((*info.params, "judged_only"))
        hint = _cutoff_hint(name, params, spec) if {"k", "cutoff"} & set(unknown) else ""
        raise ValueError(
            f"metric {name} does not take parameter(s) {', '.join(unknown)} "
            f"(allowed: {allowed}) in metric spec {spec!r}{hint}"
        )
    if "k" in info.required and k is None:
        raise ValueError(f"metric {name} needs a cutoff @k in metric spec {spec!r}")
    missing = [p for p in info.required if p not in params and p != "k"]
    if missing:
        raise ValueError(f"metric {name} needs parameter(s) {', '.join(missing)} in metric spec {spec!r}")
    if k is not None and not info.cutoff:
        raise ValueError(f"metric {name} takes no cutoff @k, in metric spec {spec!r}")


def _cutoff_hint(name: str, params: dict[str, Any], spec: str) -> str:
    """What to write instead of ``k=`` or ``cutoff=`` in a spec: ``nDCG(k=10)`` is ``nDCG@10``."""
    if not REGISTRY[name].cutoff:
        return f"; {name} takes no cutoff"
    given = params.get("k", params.get("cutoff"))
    rest = {p: v for p, v in params.items() if p not in ("k", "cutoff")}
    try:
        return f"; the cutoff is written @k: {make_metric(name, rest, parse_k(str(given), spec), spec)}"
    except ValueError:
        return "; the cutoff is written @k, as in nDCG@10"
