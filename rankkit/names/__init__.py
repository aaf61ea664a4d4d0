"""Metric names: the spec grammar (``nDCG(gain='exp')@10``), the registry of metrics, and
the names trec_eval and ir_measures give them."""

from .specs import (
    IR_MEASURES,
    NAME_ALIASES,
    NICKNAMES,
    REGISTRY,
    TREC_ORDER,
    Metric,
    MetricInfo,
    TrecName,
    expand_metrics,
    parse_metric,
    trec_columns,
)

__all__ = ["Metric", "MetricInfo", "TrecName", "REGISTRY", "NAME_ALIASES", "TREC_ORDER", "NICKNAMES",
           "IR_MEASURES", "parse_metric", "expand_metrics", "trec_columns"]
