"""Reading judgments (qrels) and runs: TREC, Parquet and Feather files, pandas DataFrames,
Arrow tables, records (ir_datasets, ir_measures) and dicts.

Both readers return a pandas DataFrame with one row per (query, document)
(:mod:`rankkit.io.layout` says why its columns have the types they have):

- qrels: ``query_id``, ``doc_id``, ``relevance`` (int64, or float64 when a label is not an
  integer). Labels below 0 are kept: trec_eval reads them as "pooled but not judged".
- run: ``query_id``, ``doc_id``, ``score`` (float64); the run tag in ``df.attrs["name"]``.

``query_id`` is a pandas Categorical whose categories are the distinct ids as ``str``, sorted
by their bytes; ``doc_id`` pandas' pyarrow-backed string dtype (``str`` in pandas 3).

Ids are compared as bytes, as trec_eval's ``strcmp`` does. An id column whose ids are
all valid UTF-8 holds them as ``str``, as described above. A column where some id is not
(Latin-1 ``caf\xe9``, say) holds every id as a Python ``str`` decoded with
``errors="surrogateescape"`` (``doc_id`` of dtype ``object``, ``query_id`` categories an
``object`` Index): ``id.encode("utf-8", "surrogateescape")`` gives back the file's bytes,
and writing the id to a stream with ``errors="surrogateescape"`` reproduces them. Keys,
matches and orders use those bytes, so a Latin-1 ``caf\xe9`` never equals a UTF-8 ``café``.

This module tells the kind of input apart and hands it to its reader, each a module of its
own: TREC files to :mod:`rankkit.io.trec_format` (the way trec_eval 10 reads them), Parquet,
Feather and Arrow tables to :mod:`rankkit.io.columnar`, DataFrames to
:mod:`rankkit.io.dataframes`, dicts, records and datasets to :mod:`rankkit.io.python_objects`.
Their checks are in :mod:`rankkit.io.checks`; a run larger than memory is read by
:class:`~rankkit.io.run_file.RunFile`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import IO, Any

import pandas as pd
import pyarrow as pa

from .checks import COLUMN_NAMES, check_columns, check_duplicates
from .columnar import columnar_format, from_arrow, read_columnar
from .dataframes import from_frame
from .layout import build_frame
from .python_objects import DATASET_METHOD, from_dict, from_records
from .run_file import RunFile, RunNotGrouped
from .subtopics import intent_labels, is_subtopic_frame
from .trec_format import lines_of, opened
from .trec_format import parse as parse_trec_file

__all__ = ["read_qrels", "read_run", "COLUMN_NAMES", "RunFile", "RunNotGrouped"]

Source = str | os.PathLike | IO[bytes] | pd.DataFrame | Mapping


def read_qrels(source: Source, *, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Read relevance judgments from a file, a DataFrame, records or a dict.

    Parameters
    ----------
    source : path, binary file object, DataFrame, Arrow table, records, dataset or dict
        A TREC qrels file (``query_id iteration doc_id relevance``, whitespace separated,
        gzip allowed; the iteration column is ignored, as trec_eval does; see the module
        docstring for the exact rules); a Parquet or Feather file (told by its first bytes);
        a pandas DataFrame or pyarrow Table with columns ``query_id``, ``doc_id``,
        ``relevance`` (or pyterrier's ``qid``, ``docno``, ``label``; see
        :data:`COLUMN_NAMES`); records with those fields (namedtuples such as ir_datasets'
        ``qrels_iter()`` gives, dataclasses or dicts); an ir_datasets dataset (its
        ``qrels_iter()``); or ``{query_id: {doc_id: label}}``.
    name : str, optional
        Stored in ``df.attrs["name"]`` (default None).
    columns : dict, optional
        Other column or field names, as ``DataFrame.rename`` takes them:
        ``{"topic": "query_id", "docid": "doc_id", "grade": "relevance"}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (Categorical of str, categories sorted), ``doc_id``
        (pyarrow-backed str) and ``relevance`` (int64, or float64 if some label is not an
        integer). Labels below 0 are kept
        (trec_eval: pooled but not judged; :func:`rankkit.rank` treats them as
        unjudged and non-relevant). Other columns of the input are left out.

    Raises
    ------
    ValueError
        Malformed line (file and line number; the line expected, and a hint when the
        file looks like a run), non-numeric or non-finite label, a document judged twice
        for one query (query, document and the file's lines named), an empty or binary
        file; a frame, table, file or record without the three columns (the message lists
        what it has).
    FileNotFoundError, IsADirectoryError, PermissionError, OSError
        A file that cannot be opened, as ``open`` would say but with rankkit's message
        (``qrels.txt: no such file``); each is also a ``ValueError``.

    Examples
    --------
    >>> qrels = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d7": 1}})
    >>> qrels
      query_id doc_id  relevance
    0       q1     d1          2
    1       q1     d2          0
    2       q2     d7          1
    >>> read_qrels({"q1": {"d1": 0.5}}).relevance.dtype
    dtype('float64')
    """
    return _read(source, "qrels", name, columns)


def read_run(source: Source, *, name: str | None = None,
             columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Read a run (retrieved documents with scores) from a file, a DataFrame, records or a dict.

    Parameters
    ----------
    source : path, binary file object, DataFrame, Arrow table, records, dataset or dict
        A TREC run file (``query_id Q0 doc_id rank score tag``, whitespace separated,
        gzip allowed; the ``Q0`` and rank columns are ignored, and so are columns after the
        tag, as trec_eval does; see the module docstring for the exact rules), e.g.
        ``sys.stdin.buffer``; a Parquet or Feather file (told by its first bytes); a pandas
        DataFrame or pyarrow Table with columns ``query_id``, ``doc_id``, ``score`` (or
        pyterrier's ``qid``, ``docno``, ``score``; a frame with ``rank`` and no ``score``
        is scored by minus the rank; see :data:`COLUMN_NAMES`); records with those fields
        (namedtuples such as ir_datasets' ``scoreddocs_iter()`` gives, dataclasses or
        dicts); an ir_datasets dataset (its ``scoreddocs_iter()``); or
        ``{query_id: {doc_id: score}}``.
    name : str, optional
        Stored in ``df.attrs["name"]``; default the run tag of the file's last data line, as
        trec_eval's ``runid`` (for a DataFrame: its ``attrs["name"]`` if any, else None;
        for other inputs: None).
    columns : dict, optional
        Other column or field names, as ``DataFrame.rename`` takes them:
        ``{"topic": "query_id", "docid": "doc_id", "sim": "score"}`` (or ``"rank"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (Categorical of str, categories sorted), ``doc_id``
        (pyarrow-backed str) and ``score`` (float64), in input order; ranks are not stored
        (trec_eval ignores them and orders by score).

    Raises
    ------
    ValueError
        Malformed line (file and line number; the line expected, and a hint when the
        file looks like judgments), a non-numeric, NaN or infinite score, a document
        retrieved twice for one query (query, document and the file's lines named), an
        empty or binary file; a frame, table, file or record without the three columns
        (the message lists what it has).
    FileNotFoundError, IsADirectoryError, PermissionError, OSError
        A file that cannot be opened, as ``open`` would say but with rankkit's message
        (``run.txt: no such file``); each is also a ``ValueError``.

    Examples
    --------
    >>> run = read_run({"q1": {"d1": 0.9, "d2": 0.4}}, name="bm25")
    >>> run
      query_id doc_id  score
    0       q1     d1    0.9
    1       q1     d2    0.4
    >>> run.attrs["name"]
    'bm25'
    >>> import pandas as pd
    >>> read_run(pd.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [2, 1]})).dtypes.score
    dtype('float64')
    """
    return _read(source, "run", name, columns)


# --------------------------------------------------------------------------- dispatch

def _read(source: Any, kind: str, name: str | None, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """:func:`read_qrels` (``kind="qrels"``) or :func:`read_run` (``kind="run"``)."""
    columns = check_columns(columns)
    try:
        df, label = _read_any(source, kind, name, columns)
    except UnicodeEncodeError as err:  # a str holding a lone surrogate: no bytes stand for it
        raise ValueError(f"{kind}: ids must be text, got {err.object!r}, which holds "
                         f"{err.object[err.start:err.end]!r} (a lone surrogate)") from None
    df.attrs["name"] = label
    return df


def _read_any(source: Any, kind: str, name: str | None, columns: dict[str, str]) -> tuple[pd.DataFrame, Any]:
    """:func:`_read` by the shape of ``source``: the frame and its name."""
    if kind == "qrels" and is_subtopic_frame(source):  # subtopic judgments: each label packs its intents
        source = intent_labels(source)
    if isinstance(source, pd.DataFrame):
        # Always validated again, even a frame these readers returned: it may have been
        # edited in place since (a NaN score, a duplicated document).
        df = from_frame(source, kind, columns)
        label = name if name is not None else source.attrs.get("name")
    elif isinstance(source, pa.Table):
        df = from_arrow(source, kind, columns, f"{kind} Arrow table")
        label = name
    elif isinstance(source, Mapping):
        df = from_dict(source, kind)
        label = name
    elif isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        df, tag = _from_file(source, kind, columns)
        label = name if name is not None else tag
    elif hasattr(source, DATASET_METHOD[kind]):  # an ir_datasets dataset
        df = from_records(getattr(source, DATASET_METHOD[kind])(), kind, columns)
        label = name
    elif isinstance(source, Iterable) and not isinstance(source, (bytes, bytearray)):
        df = from_records(source, kind, columns)
        label = name
    else:
        raise ValueError(
            f"{kind} must be a file path (TREC, Parquet or Feather), a pandas DataFrame, a dict "
            f"{{query_id: {{doc_id: value}}}}, records (namedtuples, dataclasses or dicts) or an "
            f"ir_datasets dataset, got {type(source).__name__}"
        )
    return df, label


def _from_file(source: Any, kind: str, columns: dict[str, str]) -> tuple[pd.DataFrame, str | None]:
    """The frame of a TREC, Parquet or Feather file (path or binary file object; told apart by
    their first bytes) and its run tag."""
    columnar = columnar_format(source)
    if columnar is not None:
        label = os.fsdecode(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", kind)
        return read_columnar(*columnar, str(label), kind, columns), None
    with opened(source) as inp:  # kept open: a duplicate's lines are looked up in it
        name, query_ids, doc_ids, values, tag = parse_trec_file(inp, kind)
        out = build_frame(query_ids, doc_ids, values, kind)
        del query_ids, doc_ids, values
        pa.default_memory_pool().release_unused()
        check_duplicates(out, kind, where=name, lines=lambda query, doc: lines_of(inp, query, doc))
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed blocks otherwise
    return out, tag
