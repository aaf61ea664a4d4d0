"""The spec grammar: ``NAME(param=value, ...)@k`` parsed into a :class:`Metric`
(:func:`parse_metric`), and lists of specs, trec_eval's ``-m`` forms and nicknames expanded
into columns (:func:`expand_metrics`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from .columns import printed_name, trec_columns
from .ir_measures import ir_measures_metric, is_ir_measures
from .metric import Metric, make_metric, parse_k
from .parameters import _freeze
from .records import NICKNAMES, TREC_FAMILIES, TREC_ORDER, lookup_name
from .suggestions import refuse_ambiguous, unknown_message

__all__ = ["parse_metric", "expand_metrics"]


_SPEC = re.compile(
    r"""^\s*(?P<name>[A-Za-z_][\w.\-]*?)\s*
        (?:\((?P<params>.*)\))?\s*
        (?:@\s*(?P<k>[^@()]*?))?\s*$""",
    re.VERBOSE | re.DOTALL,
)



def _resolve_name(name: str, spec: str, params: str | None = None, k: str | None = None) -> str:
    """:func:`~rankkit.names.records.lookup_name`, or a ValueError suggesting the closest known names."""
    row = lookup_name(name)
    if row is None:
        raise ValueError(unknown_message(name, spec, params, k))
    return row


def _parse_params(text: str, spec: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        call = None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "f"):
        raise ValueError(f"cannot parse the parameters of metric spec {spec!r}")
    if call.args:
        raise ValueError(f"metric spec {spec!r}: parameters must be named, as in P(rel=2)@5")
    params = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise ValueError(f"metric spec {spec!r}: parameters must be named, as in P(rel=2)@5")
        if keyword.arg in params:
            raise ValueError(f"metric spec {spec!r}: parameter {keyword.arg!r} is given twice")
        node = keyword.value
        if isinstance(node, ast.Name):  # bare word, e.g. nDCG(gain=exp): a string
            value: Any = node.id
        else:
            try:
                value = ast.literal_eval(node)
            except ValueError:
                raise ValueError(
                    f"metric spec {spec!r}: the value of {keyword.arg!r} must be a literal"
                ) from None
        params[keyword.arg] = _freeze(value)
    return params


def parse_metric(spec: str | Metric) -> Metric:
    """Parse one metric spec ``NAME(param=value, ...)@k`` into a :class:`Metric`.

    Parameters
    ----------
    spec : str or Metric
        A registry name (see :data:`REGISTRY`: ``P``, ``R``, ``AP``, ``nDCG``, ``RBP``,
        ``SetF``, ``utility``, ...) or an alias (``map``, ``ndcg``, ``recip_rank``, ``MRR``),
        optional named parameters with literal values (a bare word is a string:
        ``nDCG(gain=exp)``), optional cutoff ``@k``; or a column name as trec_eval prints
        it (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``,
        ``rbp``, ``utility_2,-1,0,0``). Names are matched case-sensitively first, then
        case-insensitively (``ndcg@10`` is ``nDCG@10``). A Metric passes through.

    Returns
    -------
    Metric

    Raises
    ------
    ValueError
        Unknown name (the message suggests the closest known names, written with the
        spec's cutoff: ``ndgc@10`` -> ``nDCG@10``, ``ndcg_cut_10``), a parameter the metric
        does not take (``nDCG(k=10)``: the message says the cutoff is written ``nDCG@10``),
        a missing required parameter, ``@k`` on a metric without cutoff, k not a positive
        integer, or an ambiguous AP (below).

    Notes
    -----
    ``MAP@k`` means two things. trec_eval (``map_cut_k``), ir_measures (``AP@k``, ``MAP@k``)
    and ranx (``map@k``) divide the precisions at the relevant documents of the top k by R,
    the number of relevant documents; recommender-systems libraries (RecBole's ``MAP@K``)
    divide by min(R, k). rankkit refuses ``MAP@k`` in any case, and ``AP@k`` in any case but
    its own, without ``normalize=``, and the message gives both spellings: ``AP@k`` (or
    ``map_cut_k``) for trec_eval's, ``AP(normalize='min_k')@k`` for the other. ``AP@k``,
    ``map_cut_k``, ``MAP`` and ``map`` (no cutoff: the same everywhere) are accepted.

    Examples
    --------
    >>> parse_metric("AP(normalize='min_k')@5")
    Metric(name='AP', params=(('normalize', 'min_k'),), k=5)
    >>> str(parse_metric("iprec_at_recall_0.10")), str(parse_metric("Rprec_mult_0.20"))
    ("iprec(recall=0.1, rounding='nearest')", 'Rprec(multiple=0.2)')
    >>> parse_metric("P@0")
    Traceback (most recent call last):
    ...
    ValueError: k must be a positive integer, got 0 in metric spec 'P@0'
    >>> parse_metric("ndgc@10")
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'ndgc' in metric spec 'ndgc@10'; did you mean nDCG@10, ndcg_cut_10 or RnDCG?
    (all names: rankkit evaluate --help)
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"a metric spec must be a string or Metric, got {type(spec).__name__}")
    printed = printed_name(spec.strip())
    if printed is not None:
        return printed
    match = _SPEC.match(spec)
    if not match:
        raise ValueError(
            f"cannot parse metric spec {spec!r}: expected NAME(param=value, ...)@k, e.g. nDCG@10"
        )
    params = _parse_params(match["params"], spec) if match["params"] is not None else {}
    refuse_ambiguous(match["name"], params, match["k"], spec)
    if is_ir_measures(match["name"], params, match["k"]):
        return ir_measures_metric(match["name"], params, match["k"], spec)
    name = _resolve_name(match["name"], spec, match["params"], match["k"])
    # relstring@0: an empty string (trec_eval's relstring.0)
    k = parse_k(match["k"], spec, zero=name == "relstring") if match["k"] is not None else None
    return make_metric(name, params, k, spec)


def expand_metrics(
    metrics: str | Metric | Iterable[str | Metric], *, trec_names_first: bool = False
) -> dict[str, Metric]:
    """Column name -> Metric for every spec, in order.

    A column is named by the spec as written (stripped; a Metric by its canonical spec),
    so ``table["ndcg_cut_10"]`` works when that is what was asked for. trec_eval's
    ``-m`` forms expand to one column per value, named as trec_eval prints them: a
    parameter list (``P.5,10``, ``ndcg_cut.10,20``, ``iprec_at_recall..10,.20``,
    ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``), a nickname (``official``, ``all_trec``,
    ``set``: every measure of the set, in trec_eval's order) and a family name that is
    not a rankkit name (``ndcg_cut``, ``map_cut``, ``iprec_at_recall``: its default
    parameters). With ``trec_names_first`` (the command line) every trec_eval name means
    what it means to trec_eval, so ``P`` is P_5 ... P_1000, not precision of the whole
    list. Repeated columns are computed once.

    Examples
    --------
    >>> {name: str(m) for name, m in expand_metrics(["P.10,5", "map", "nDCG@10"]).items()}
    {'P_5': 'P@5', 'P_10': 'P@10', 'map': 'AP', 'nDCG@10': 'nDCG@10'}
    >>> list(expand_metrics("set"))
    ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_relative_P', 'set_recall',
     'set_map', 'set_F']
    """
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise ValueError(f"metrics must be a spec or a list of specs (e.g. ['nDCG@10', 'AP']), got {metrics!r}")
    columns: dict[str, Metric] = {}
    for spec in metrics:
        if isinstance(spec, Metric):
            columns.setdefault(str(spec), spec)
            continue
        if not isinstance(spec, str):
            raise ValueError(f"a metric spec must be a string or Metric, got {type(spec).__name__}")
        for column, metric in _expand_one(spec.strip(), trec_names_first):
            columns.setdefault(column, metric)
    if not columns:
        raise ValueError("metrics must name at least one metric")
    return columns


def _expand_one(spec: str, trec_names_first: bool) -> list[tuple[str, Metric]]:
    if spec in NICKNAMES:
        wanted = set(NICKNAMES[spec])
        return [pair for family in TREC_ORDER if family in wanted for pair in trec_columns(family)]
    family, dot, params = spec.partition(".")
    if dot and family in TREC_FAMILIES and "(" not in spec and "@" not in spec:
        return trec_columns(family, params)
    if family in TREC_FAMILIES and not dot:
        kind = TREC_FAMILIES[family][1].kind
        if trec_names_first or (kind in ("cutoffs", "levels") and not _is_rankkit_name(family)):
            return trec_columns(family)
    return [(spec, parse_metric(spec))]


def _is_rankkit_name(name: str) -> bool:
    return lookup_name(name) is not None
