"""The names of :mod:`rankkit.names` under the module path they had when one module held them.

The registry is :mod:`rankkit.names.records`, the grammar :mod:`rankkit.names.grammar`,
trec_eval's names :mod:`rankkit.names.trec_eval` and :mod:`rankkit.names.columns`,
ir_measures' :mod:`rankkit.names.ir_measures`; import them from :mod:`rankkit.names`.
"""

from .columns import trec_columns
from .grammar import expand_metrics, parse_metric
from .metric import Metric
from .records import IR_MEASURES, NAME_ALIASES, NICKNAMES, REGISTRY, TREC_FAMILIES, TREC_ORDER, MetricInfo
from .suggestions import _suggestions
from .trec_eval import TrecName

__all__ = [
    "Metric", "MetricInfo", "TrecName", "REGISTRY", "NAME_ALIASES", "TREC_ORDER", "NICKNAMES", "IR_MEASURES",
    "TREC_FAMILIES", "parse_metric", "expand_metrics", "trec_columns", "_suggestions",
]
