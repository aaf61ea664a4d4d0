"""trec_eval's columns: ``-m family.params`` and printed names (``P_10``) as Metrics."""

from __future__ import annotations

import re

from .metric import Metric, ParameterError, make_metric
from .records import TREC_FAMILIES
from .trec_eval import _atof, _atol

__all__ = ["trec_columns", "printed_name"]


def trec_columns(family: str, params: str | None = None) -> list[tuple[str, Metric]]:
    """The columns trec_eval prints for ``-m family[.params]``: (printed name, Metric) each.

    Parameters
    ----------
    family : str
        A trec_eval measure name (``P``, ``ndcg_cut``, ``iprec_at_recall``, ``utility``).
    params : str or None
        What follows the first ``.`` of ``-m`` (``"5,10"``, ``".25,.5"``, ``"1=3,2=9"``);
        None for trec_eval's defaults. Measures without parameters ignore them, as
        trec_eval does.

    Examples
    --------
    >>> [(name, str(m)) for name, m in trec_columns("P", "10,5")]
    [('P_5', 'P@5'), ('P_10', 'P@10')]
    >>> [(name, str(m)) for name, m in trec_columns("rbp", "p=0.8")]
    [('rbp_p=0.8', "RBP(p=0.8, max_grade='query')")]
    """
    return _columns(family, params)


def _columns(family: str, params: str | None, column: str | None = None) -> list[tuple[str, Metric]]:
    """:func:`trec_columns`; ``column`` names a single column in parameter errors (the
    printed name as the caller wrote it)."""
    spec = family + ("" if params is None else "." + params)
    try:
        return _trec_columns(family, params, spec, column)
    except ParameterError:
        raise
    except ValueError as exc:
        if "trec_eval" in str(exc) or "metric spec" in str(exc):
            raise
        raise ValueError(f"cannot parse trec_eval parameter list {spec!r}: {exc}") from None


def _listed(family: str, kind: str, text: str, spec: str) -> tuple[list, list[str]]:
    """The values of a ``cutoffs`` or ``levels`` list, sorted, and the columns they print as."""
    if kind == "cutoffs":
        values = sorted(_atol(v) for v in text.split(","))
        names = [f"{family}_{v}" for v in values]
    else:
        values = sorted(_atof(v) for v in text.split(","))
        names = [f"{family}_{v:3.2f}" for v in values]
    if values[0] <= 0 and kind == "cutoffs":
        raise ValueError(f"k must be a positive integer, got {values[0]} in trec_eval list {spec!r}")
    if any(a == b for a, b in zip(values, values[1:])):
        raise ValueError(f"duplicate values in trec_eval list {spec!r}")
    if len(set(names)) < len(names):  # trec_eval prints two lines of one name: which is which?
        same = next(a for a, b in zip(names, names[1:]) if a == b)
        raise ValueError(f"two values of trec_eval list {spec!r} print as {same} (2 decimals)")
    return values, names


def _trec_columns(family: str, params: str | None, spec: str, column: str | None) -> list[tuple[str, Metric]]:
    row, trec = TREC_FAMILIES[family]
    fixed = dict(trec.fixed)
    if trec.kind == "plain":
        return [(family, make_metric(row, fixed, None, spec, column or family))]
    if trec.kind in ("cutoffs", "levels"):
        values, names = _listed(family, trec.kind, trec.defaults if params is None else params, spec)
        if trec.kind == "cutoffs":
            return [(name, make_metric(row, fixed, v, spec, column or name)) for name, v in zip(names, values)]
        return [(name, make_metric(row, {**fixed, trec.param: v}, None, spec, column or name))
                for name, v in zip(names, values)]
    if params is None:
        converted = trec.convert(trec.defaults) if trec.defaults else {}
        name = family
    else:
        if not params:
            raise ValueError(f"{spec}: empty parameter list")
        converted = trec.convert(params)
        name = f"{family}_{params}"
    k = converted.pop("k", None)
    return [(name, make_metric(row, {**fixed, **converted}, k, spec, column or name))]


def printed_name(spec: str) -> Metric | None:
    """The Metric of a column name as trec_eval prints it (``P_10``, ``utility``,
    ``iprec_at_recall_0.10``, ``rbp_p=0.8``), or None."""
    for family, (_, trec) in TREC_FAMILIES.items():
        if spec == family and trec.kind not in ("cutoffs", "levels"):
            return _columns(family, None, spec)[0][1]
        if not spec.startswith(family + "_"):
            continue
        rest = spec[len(family) + 1:]
        if trec.kind == "cutoffs" and re.fullmatch(r"\d+", rest):
            return _columns(family, rest, spec)[0][1]
        if trec.kind == "levels" and re.fullmatch(r"-?\d*\.\d+|-?\d+", rest):
            return _columns(family, rest, spec)[0][1]
        if trec.kind == "raw" and re.fullmatch(r"[-+.,\deE]+", rest):
            return _columns(family, rest, spec)[0][1]
        if trec.kind == "pairs" and "=" in rest:
            return _columns(family, rest, spec)[0][1]
    return None
