"""The metric list of ``rankkit evaluate --help`` and the parameter table of the
documentation, rendered from the records."""

from __future__ import annotations

from .records import REGISTRY, MetricInfo

__all__ = ["metric_help", "parameter_table"]

_HEADER = (
    "metrics (spec syntax NAME(param=value, ...)@k, e.g. nDCG@10, P(rel=2)@5, RBP(p=0.9);\n"
    "trec_eval names such as map, ndcg_cut_10, P_10, P.5,10 are accepted; names match\n"
    "case-insensitively, except MAP@k, which is refused: trec_eval, ir_measures and ranx divide\n"
    "AP over the top k by R, recommender-systems libraries by min(R, k); write AP@k (or\n"
    "map_cut_k) for the first, AP(normalize='min_k')@k for the second):"
)


def parameter_table() -> list[dict[str, str]]:
    """One row per (metric, parameter): what a docs page shows of each parameter.

    Returns
    -------
    list of dict
        Keys ``metric`` (rankkit's name), ``name``, ``type``, ``default`` (as a spec
        writes it; ``None``: set by the data or the evaluation), ``range`` (the allowed
        values in words) and ``description``; in registry order.

    Examples
    --------
    >>> [row for row in parameter_table() if row["metric"] == "RBP"][0]
    {'metric': 'RBP', 'name': 'p', 'type': 'number', 'default': '0.8', 'range': '(0, 1)',
     'description': 'persistence: the chance of looking at the next rank'}
    """
    return [
        {"metric": name, "name": p.name, "type": p.type, "default": repr(p.default), "range": p.range,
         "description": p.description}
        for name, info in REGISTRY.items() for p in info.parameters
    ]


def _names(info: MetricInfo) -> str:
    """Every other name of a record, for the help text."""
    parts = []
    if info.aliases:
        parts.append(", ".join(info.aliases))
    if info.trec:
        parts.append("trec_eval " + ", ".join(t.name for t in info.trec))
    if info.ir_measures:
        parts.append("ir_measures " + ", ".join(info.ir_measures))
    return "; ".join(parts)


def _computed_from(info: MetricInfo) -> str:
    """What a metric of other judgments (:attr:`MetricInfo.judgments`) is computed from, and
    the call that computes it; "" for the metrics of relevance judgments."""
    return {
        "qrels": "",
        "prefs": "from preference judgments: rk.evaluate(rk.read_prefs(path), run, [...]); "
                 "rankkit evaluate -R prefs (or -R qrels_prefs)",
        "qrels_jg": 'from judgment groups: rk.evaluate(rk.read_prefs(path, "qrels_jg"), run, [...]); '
                    "rankkit evaluate -R qrels_jg",
        "interactions": f"from a recommender's lists: rk.{info.name}(rk.recommendations(run, train)), "
                        "or rk.beyond_accuracy for them all",
    }[info.judgments]


def _usage(name: str, info: MetricInfo) -> str:
    """How a spec of the record is written: ``SDCG@k``, ``iprec(recall=...)``, ``P[@k]``."""
    required = [p for p in info.required if p != "k"]
    args = f"({', '.join(f'{p}=...' for p in required)})" if required else ""
    at = "@k" if "k" in info.required else "[@k]" if info.cutoff else ""
    return name + args + at


def metric_help() -> str:
    """The metric list of ``rankkit evaluate --help``: each metric's spec, summary, other
    names, what it is computed from when not from relevance judgments (preferences, a
    recommender's lists), and each parameter with its type, default, range and meaning.

    Examples
    --------
    >>> print("\\n".join(metric_help().splitlines()[5:8]))
      P[@k]                  precision at k
                             also: Precision; trec_eval P; ir_measures P, Precision
                             rel=1: number > 0; relevant: label >= rel (evaluate's rel=, trec_eval -l)
    """
    usages = {name: _usage(name, info) for name, info in REGISTRY.items()}
    width = max(map(len, usages.values()))
    lines = [_HEADER]
    for name, info in REGISTRY.items():
        lines.append(f"  {usages[name]:<{width}}  {info.summary}")
        indent = " " * (width + 4)
        names = _names(info)
        if names:
            lines.append(f"{indent}also: {names}")
        if info.judgments != "qrels":
            lines.append(f"{indent}{_computed_from(info)}")
        for p in info.parameters:
            lines.append(f"{indent}{p.name}={p.default!r}: {p.type} {p.range}; {p.description}")
    return "\n".join(lines)
