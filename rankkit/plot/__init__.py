"""Plots for teaching and comparing rankings: precision-recall curves (interpolated, and the
raw saw-tooth with the AP area), metric@k, per-query differences, the RBP persistence sweep
with its crossings, the ERR cascade, gain and discount functions, ROC curves and the MRR
top-k curve.

Import it explicitly (``import rankkit.plot as rkplot``); ``import rankkit`` alone does not
load matplotlib. Every function draws on ``ax`` (a new figure from ``plt.subplots`` when
``ax`` is None), sets its labels, title and legend, changes no global setting (but one: the CJK
font's fallback, :mod:`~rankkit.plot.fonts`), and returns
the matplotlib ``Axes``. It works in scripts (any backend, e.g. headless ``Agg``) and in
notebooks (end the line with ``;``). Functions that draw two panels (``gain_discount``,
``mrr_top_k(..., two_panels=True)``) take a pair of Axes as ``ax`` and return the Figure.
Every title says what the figure shows. Figures are readable by colour-blind readers and
in greyscale: series take the Okabe–Ito colours (:data:`PALETTE`) and, each, a marker and
a line style as well (:func:`system_styles`), assigned by position in the sorted series
names, so a system keeps its look in every figure of the same systems; where curves
overlap, the later one is drawn dashed, with hollow markers, over the earlier one. No
figure uses red against green.

Reading the plotted data back (assert on data, not pixels):

- lines: ``{line.get_label(): line.get_xydata() for line in ax.lines}`` (every curve is
  labelled with its system name; reference lines have labels too, see each function);
- bars: ``[bar.get_height() for bar in ax.containers[0]]`` in plotted order, and
  ``[bar.get_gid() for bar in ax.containers[0]]`` for the query id of each bar;
- markers: ``ax.collections[i].get_offsets()``; text annotations: ``ax.texts``;
- legend: ``[t.get_text() for t in ax.get_legend().get_texts()]``.

One module per subject: :mod:`~rankkit.plot.style` (palette, markers, line styles, the
Axes helpers every figure shares), :mod:`~rankkit.plot.curves` (precision-recall, ROC),
:mod:`~rankkit.plot.cutoffs` (metric@k), :mod:`~rankkit.plot.differences` (per query),
:mod:`~rankkit.plot.user_models` (RBP persistence, ERR cascade), :mod:`~rankkit.plot.dcg`
(gain and discount) and :mod:`~rankkit.plot.mrr` (the MRR top-k curve). Each imports the
metrics it draws and :mod:`~rankkit.plot.style`, nothing above them.
"""

from . import fonts
from .curves import UNREACHED as UNREACHED
from .curves import pr_curve, pr_sawtooth, roc_curve
from .cutoffs import metric_at_k
from .dcg import STANDARD_DISCOUNT, gain_discount, jk_discount_label
from .differences import per_query_differences
from .mrr import mrr_top_k, smallest_k_for_mrr, uniform_k_for_mrr, uniform_mrr
from .style import LINESTYLES, MARKERS, PALETTE, system_colors, system_styles
from .user_models import err_cascade, err_cascade_table, rbp_crossings, rbp_persistence

fonts.register()  # the CJK font of the lessons' Chinese labels, a fallback after matplotlib's fonts

__all__ = [
    "pr_curve",
    "pr_sawtooth",
    "metric_at_k",
    "system_colors",
    "system_styles",
    "PALETTE",
    "MARKERS",
    "LINESTYLES",
    "per_query_differences",
    "rbp_persistence",
    "rbp_crossings",
    "err_cascade",
    "err_cascade_table",
    "gain_discount",
    "STANDARD_DISCOUNT",
    "jk_discount_label",
    "roc_curve",
    "mrr_top_k",
    "uniform_mrr",
    "uniform_k_for_mrr",
    "smallest_k_for_mrr",
]
