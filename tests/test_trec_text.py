"""The per-query lines of ``rankkit evaluate -q`` (rankkit.trec_eval._per_query_lines),
built by NumPy from each column's distinct values, block by block, then put in trec_eval's
query order (_in_query_order), against C's printf formats as trec_eval
10 prints them (``%-22s\\t%s\\t%6.4f`` for a value, ``%ld`` for a count, ``'%s'`` for a
string; glibc's ``-nan``), written here with Python's ``%`` operator, line by line."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

from rankkit.names import parse_metric
from rankkit.trec_eval import _in_query_order, _lines, _per_query_lines

FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=False, width=64),
                   st.sampled_from([0.0, -0.0, 1.0, 0.5, 0.12345, 0.00005, 0.99995, 1 / 3]))


def text_of(ids: list, columns: dict, infos: dict) -> str:
    """The lines of queries ``ids`` (in trec_eval's order already) as one block."""
    return _in_query_order([(ids, _per_query_lines(ids, columns, infos))])


def printf(name: str, qid: str, value, kind: str) -> str:
    # Python's % operator: C's printf conversions, on purpose (not the format mini-language)
    if kind == "str":
        return "%-22s\t%s\t'%s'\n" % (name, qid, value)  # noqa: UP031
    if kind == "int":
        return "%-22s\t%s\t%d\n" % (name, qid, int(value))  # noqa: UP031
    text = "%6.4f" % value if not math.isnan(value) else "%6s" % "-nan"  # noqa: UP031
    return "%-22s\t%s\t%s\n" % (name, qid, text)  # noqa: UP031


@settings(max_examples=sweep(60))
@given(data=st.data(), n=st.integers(0, 12))
def test_per_query_lines_are_printf_line_by_line(data, n):
    ids = sorted(data.draw(st.lists(st.text("abc123_", min_size=1, max_size=6), min_size=n, max_size=n, unique=True)))
    columns = {
        "map": np.array(data.draw(st.lists(FLOATS, min_size=n, max_size=n)), dtype=np.float64),
        "num_ret": np.array(data.draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n)), dtype=np.float64),
        "relstring": np.array(data.draw(st.lists(st.text("01-", max_size=5), min_size=n, max_size=n)), dtype=object),
        "num_q": np.ones(n),  # printed on the all line only
    }
    infos = {c: parse_metric(c).info for c in columns}
    kinds = {"map": "float", "num_ret": "int", "relstring": "str"}
    expected = "".join(printf(c, q, columns[c][i], kinds[c]) for i, q in enumerate(ids) for c in kinds)
    assert text_of(ids, columns, infos) == expected
    generic = _lines(ids, columns, {}, infos, per_query=True, summary_lines=False)
    assert "".join(line + "\n" for line in generic) == expected


def test_negative_zero_and_nan_keep_their_own_text():
    # Distinct values are told apart by their bits: -0.0 prints as C prints it, not as 0.0
    ids = ["q1", "q2", "q3", "q4"]
    columns = {"map": np.array([0.0, -0.0, np.nan, 0.0])}
    text = text_of(ids, columns, {"map": parse_metric("map").info})
    assert text.splitlines() == [f"{'map':<22}\tq1\t0.0000", f"{'map':<22}\tq2\t-0.0000",
                                 f"{'map':<22}\tq3\t  -nan", f"{'map':<22}\tq4\t0.0000"]


@settings(max_examples=sweep(40))
@given(data=st.data(), n=st.integers(1, 30))
def test_blocks_of_queries_in_any_order_give_trec_evals_order(data, n):
    # A run read in blocks formats each block's queries as they come (file order); the text
    # is every query's lines in trec_eval's order (by bytes: "10" before "9"), as for one block
    ids = data.draw(st.lists(st.integers(0, 200).map(str), min_size=n, max_size=n, unique=True))
    columns = {"map": np.array(data.draw(st.lists(FLOATS, min_size=n, max_size=n)), dtype=np.float64),
               "num_ret": np.arange(n, dtype=np.float64)}
    infos = {c: parse_metric(c).info for c in columns}
    cuts = sorted(data.draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=4)) | {0, n})
    parts = []
    for lo, hi in zip(cuts, cuts[1:]):
        part = {c: v[lo:hi] for c, v in columns.items()}
        parts.append((ids[lo:hi], _per_query_lines(ids[lo:hi], part, infos)))
    order = sorted(range(n), key=lambda i: ids[i].encode())
    whole = text_of([ids[i] for i in order], {c: v[order] for c, v in columns.items()}, infos)
    assert _in_query_order(parts) == whole
    assert whole.splitlines()[0].split("\t")[1] == min(ids, key=str.encode)
