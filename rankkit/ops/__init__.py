"""The operations every metric is written with, below the data model and the metrics.

:mod:`~rankkit.ops.numerics`: the one order of floating-point operations behind every
number rankkit reports (sums along ranks and over queries, correctly rounded tables of
discounts and powers). :mod:`~rankkit.ops.primitives`: the shared primitives of the metric
kernels on any array library (ratios, ordered sums, prefix sums, tie groups, gathers), each
with a NumPy fast path behind the same signature.
"""
