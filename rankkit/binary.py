"""STUB: to be written (see the issue). Every name below is part of the public contract."""


def precision(*args, **kwargs):
    raise NotImplementedError("precision")


def recall(*args, **kwargs):
    raise NotImplementedError("recall")


def r_precision(*args, **kwargs):
    raise NotImplementedError("r_precision")


def success(*args, **kwargs):
    raise NotImplementedError("success")


def average_precision(*args, **kwargs):
    raise NotImplementedError("average_precision")


def reciprocal_rank(*args, **kwargs):
    raise NotImplementedError("reciprocal_rank")


def bpref(*args, **kwargs):
    raise NotImplementedError("bpref")


def judged(*args, **kwargs):
    raise NotImplementedError("judged")


def num_retrieved(*args, **kwargs):
    raise NotImplementedError("num_retrieved")


def num_relevant(*args, **kwargs):
    raise NotImplementedError("num_relevant")


def num_relevant_retrieved(*args, **kwargs):
    raise NotImplementedError("num_relevant_retrieved")


def pr_curve(*args, **kwargs):
    raise NotImplementedError("pr_curve")


def interpolated_precision(*args, **kwargs):
    raise NotImplementedError("interpolated_precision")

