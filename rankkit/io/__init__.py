"""Reading judgments (qrels) and runs: TREC files, Parquet and Feather, Arrow tables, pandas
DataFrames, dicts and records, each into the one frame layout the join takes.

:mod:`~rankkit.io.readers` reads every kind of input; :mod:`~rankkit.io.trec_format` parses TREC
files into Arrow columns; :mod:`~rankkit.io.keys` turns ids into 64-bit keys.
"""

from .readers import RunFile, RunNotGrouped, read_qrels, read_run

__all__ = ["read_qrels", "read_run", "RunFile", "RunNotGrouped"]
