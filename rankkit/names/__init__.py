"""Metric names: one record per metric (:mod:`~rankkit.names.records`: its function, its
names in rankkit, trec_eval and ir_measures, its typed parameters), the spec grammar
(``nDCG(gain='exp')@10``, :mod:`~rankkit.names.grammar`), trec_eval's columns
(:mod:`~rankkit.names.columns`), ir_measures' dialect (:mod:`~rankkit.names.ir_measures`),
and the help and documentation rendered from the records (:mod:`~rankkit.names.help`)."""

from .columns import trec_columns
from .grammar import expand_metrics, parse_metric
from .help import metric_help, parameter_table
from .metric import Metric
from .parameters import Param
from .records import IR_MEASURES, NAME_ALIASES, NICKNAMES, REGISTRY, TREC_FAMILIES, TREC_ORDER, MetricInfo
from .trec_eval import TrecName

__all__ = ["Metric", "MetricInfo", "Param", "TrecName", "REGISTRY", "NAME_ALIASES", "TREC_ORDER", "NICKNAMES",
           "TREC_FAMILIES", "IR_MEASURES", "parse_metric", "expand_metrics", "trec_columns", "metric_help",
           "parameter_table"]
