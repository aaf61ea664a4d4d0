"""STUB: to be written (see the issue). Every name below is part of the public contract."""


def kendall_tau(*args, **kwargs):
    raise NotImplementedError("kendall_tau")


def kendall_distance(*args, **kwargs):
    raise NotImplementedError("kendall_distance")


def inversions(*args, **kwargs):
    raise NotImplementedError("inversions")


def pair_counts(*args, **kwargs):
    raise NotImplementedError("pair_counts")


def pnr(*args, **kwargs):
    raise NotImplementedError("pnr")


def auc(*args, **kwargs):
    raise NotImplementedError("auc")

