"""The metric families, each a function of labels in rank order (:class:`~rankkit.Rankings`).

:mod:`~rankkit.metrics.binary` (P, R, AP, RR, bpref, fall-out, ...),
:mod:`~rankkit.metrics.curves` (interpolated precision, precision-recall curves),
:mod:`~rankkit.metrics.graded` (CG, DCG, nDCG, RBP, ERR), :mod:`~rankkit.metrics.cwl` (the C/W/L
family), :mod:`~rankkit.metrics.pairwise` (Kendall tau, AUC, GAUC, PNR),
:mod:`~rankkit.metrics.label_ranking` (LRAP), :mod:`~rankkit.metrics.unranked` (MSE, MAE),
:mod:`~rankkit.metrics.overlap` (compatibility), :mod:`~rankkit.metrics.set_based` (the
retrieved list as a set), :mod:`~rankkit.metrics.incomplete` (judged fractions, infAP),
:mod:`~rankkit.metrics.ltr` (the learning-to-rank libraries' ARP, PWA, OPA, PFound, QueryAUC,
log loss), :mod:`~rankkit.metrics.diversity` (alpha-nDCG, ERR-IA, NRBP, the intent-aware
measures, subtopic recall, on subtopic judgments) and :mod:`~rankkit.metrics.preferences`
(trec_eval's measures of preference judgments); :mod:`~rankkit.metrics.weighting` weights
documents as TensorFlow Ranking does.
Their one order of floating-point operations is :mod:`~rankkit.ops.numerics`.
"""
