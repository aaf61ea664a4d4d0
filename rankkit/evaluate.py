"""STUB: to be written (see the issue). Every name below is part of the public contract."""


def evaluate(*args, **kwargs):
    raise NotImplementedError("evaluate")


def score(*args, **kwargs):
    raise NotImplementedError("score")


def parse_metric(*args, **kwargs):
    raise NotImplementedError("parse_metric")

