"""The metric families, each a function of labels in rank order (:class:`~rankkit.Rankings`).

:mod:`~rankkit.metrics.binary` (P, R, AP, RR, bpref, fall-out, ...),
:mod:`~rankkit.metrics.curves` (interpolated precision, precision-recall curves),
:mod:`~rankkit.metrics.graded` (CG, DCG, nDCG, RBP, ERR), :mod:`~rankkit.metrics.cwl` (the C/W/L
family), :mod:`~rankkit.metrics.pairwise` (Kendall tau, AUC, GAUC, PNR),
:mod:`~rankkit.metrics.label_ranking` (LRAP), :mod:`~rankkit.metrics.unranked` (MSE, MAE),
:mod:`~rankkit.metrics.overlap` (compatibility), :mod:`~rankkit.metrics.set_based` (the
retrieved list as a set) and :mod:`~rankkit.metrics.incomplete` (judged fractions, infAP).
Their one order of floating-point operations is :mod:`~rankkit.ops.numerics`.
"""
