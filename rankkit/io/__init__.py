"""Reading judgments (qrels) and runs: TREC files, Parquet and Feather, Arrow tables, pandas
DataFrames, dicts and records, each into the one frame layout the join takes.

The modules, from the bottom up (each imports only modules below it):

- :mod:`~rankkit.io.keys` turns ids into 64-bit keys; :mod:`~rankkit.io.trec_format` parses
  TREC files into Arrow columns, the way trec_eval reads them;
- :mod:`~rankkit.io.layout` builds the frame every reader returns; :mod:`~rankkit.io.checks`
  checks columns, ids, values and duplicates;
- one reader per kind of input: :mod:`~rankkit.io.columnar` (Arrow tables, Parquet, Feather),
  :mod:`~rankkit.io.dataframes`, :mod:`~rankkit.io.python_objects` (dicts, records, datasets);
  :mod:`~rankkit.io.run_file` reads a TREC run in blocks, within a memory bound (its blocks
  cut into whole queries by :mod:`~rankkit.io.run_blocks`, on columns);
- :mod:`~rankkit.io.readers`: :func:`read_qrels` and :func:`read_run`, for every kind of input.

Each name below is imported on first use: the TREC parser and the keys (the command line's
path) load without pandas, which the readers' frames need.
"""

from .._lazy import attach

__all__ = ["read_qrels", "read_run", "RunFile", "RunNotGrouped", "COLUMN_NAMES", "read_prefs", "Preferences",
           "read_subtopic_qrels"]

__getattr__, __dir__ = attach(__name__, {"read_qrels": ".readers", "read_run": ".readers", "RunFile": ".run_file",
                                         "RunNotGrouped": ".run_file", "COLUMN_NAMES": ".checks",
                                         "read_prefs": ".prefs", "Preferences": ".prefs",
                                         "read_subtopic_qrels": ".subtopics"})
