"""STUB: to be written (see the issue). Every name below is part of the public contract."""


def read_qrels(*args, **kwargs):
    raise NotImplementedError("read_qrels")


def read_run(*args, **kwargs):
    raise NotImplementedError("read_run")

