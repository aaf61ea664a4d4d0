"""STUB: to be written (see the issue). Every name below is part of the public contract."""


def cumulative_gain(*args, **kwargs):
    raise NotImplementedError("cumulative_gain")


def dcg(*args, **kwargs):
    raise NotImplementedError("dcg")


def idcg(*args, **kwargs):
    raise NotImplementedError("idcg")


def ndcg(*args, **kwargs):
    raise NotImplementedError("ndcg")


def rbp(*args, **kwargs):
    raise NotImplementedError("rbp")


def rbp_residual(*args, **kwargs):
    raise NotImplementedError("rbp_residual")


def err(*args, **kwargs):
    raise NotImplementedError("err")

