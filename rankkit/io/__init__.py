"""Reading judgments (qrels) and runs: TREC files, Parquet and Feather, Arrow tables, pandas
DataFrames, dicts and records, each into the one frame layout the join takes.

The modules, from the bottom up (each imports only modules below it):

- :mod:`~rankkit.io.keys` turns ids into 64-bit keys; :mod:`~rankkit.io.trec_format` parses
  TREC files into Arrow columns, the way trec_eval reads them;
- :mod:`~rankkit.io.layout` builds the frame every reader returns; :mod:`~rankkit.io.checks`
  checks columns, ids, values and duplicates;
- one reader per kind of input: :mod:`~rankkit.io.columnar` (Arrow tables, Parquet, Feather),
  :mod:`~rankkit.io.dataframes`, :mod:`~rankkit.io.python_objects` (dicts, records, datasets);
  :mod:`~rankkit.io.run_file` reads a TREC run in blocks, within a memory bound;
- :mod:`~rankkit.io.readers`: :func:`read_qrels` and :func:`read_run`, for every kind of input.
"""

from .checks import COLUMN_NAMES
from .readers import read_qrels, read_run
from .run_file import RunFile, RunNotGrouped

__all__ = ["read_qrels", "read_run", "RunFile", "RunNotGrouped", "COLUMN_NAMES"]
