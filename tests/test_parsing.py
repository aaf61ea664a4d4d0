"""Reading TREC files byte for byte as trec_eval 10 does: whitespace, comments, numbers,
byte ids, gzip, streams and the run tag, in every parsing path of rankkit.io.trec_format.

rankkit.io.trec_format parses a file in up to three ways (see its "how" section): pyarrow.csv with a
one-byte delimiter once the raw bytes prove it splits lines right ("clean"), pyarrow.csv on
lines rewritten by NumPy ("normalized"), and Python line by line. Files here are read from
a path (pyarrow reads the file itself), from a BytesIO (the bytes pass through Python) and
gzip-compressed, and checked against ``reference``, the rules written plainly in Python.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit
import rankkit.io.trec_format
from rankkit import evaluate, rank, read_qrels, read_run

ROOT = Path(rankkit.__file__).resolve().parents[1]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


class Named(io.BytesIO):
    """A binary stream with a name, like an open file."""

    def __init__(self, data: bytes, name: str):
        super().__init__(data)
        self.name = name


def sources(tmp_path: Path, data: bytes, name: str = "f.txt") -> dict:
    """The same bytes as a path, as a binary stream and gzip-compressed (named without .gz)."""
    return {
        "path": write(tmp_path, name, data),
        "stream": Named(data, "stream-" + name),
        "gzip": write(tmp_path, "gz-" + name, gzip.compress(data)),
    }


def as_bytes(df: pd.DataFrame, value: str) -> dict:
    """{query bytes: {doc bytes: value}}: what the frame says, in the file's own bytes."""
    out: dict = {}
    for q, d, v in zip(df.query_id, df.doc_id, df[value]):
        out.setdefault(q.encode("utf-8", "surrogateescape"), {})[d.encode("utf-8", "surrogateescape")] = v
    return out


def reference(data: bytes, kind: str) -> tuple[dict, bytes | None]:
    """The rules in plain Python: ({query: {doc: value}}, run tag), or ValueError's message."""
    ncols, at = (6, 4) if kind == "run" else (4, 3)
    out: dict = {}
    tag = None
    data = data.removeprefix(b"\xef\xbb\xbf")
    for number, line in enumerate(data.split(b"\n"), start=1):
        if b"\x00" in line:
            raise ValueError(f"not a text file (byte 0x00 at line {number})")
        fields = line.split()  # on space, \t, \n, \v, \f, \r: C isspace
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < ncols or (len(fields) > ncols and kind == "qrels"):
            expected = "at least 6" if kind == "run" else "4"
            raise ValueError(f"line {number}: expected {expected} columns, got {len(fields)}")
        text = fields[at]
        what = "score" if kind == "run" else "relevance"
        if not re.fullmatch(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text):
            unsigned = text[1:] if text[:1] in (b"+", b"-") else text
            problem = "finite" if unsigned.lower() in (b"inf", b"infinity", b"nan") else "a number"
            shown = text.decode("utf-8", "surrogateescape")
            raise ValueError(f"line {number}: {what} must be {problem}, got {shown!r}")
        if not np.isfinite(float(text)):
            raise ValueError(f"line {number}: {what} must be finite")
        out.setdefault(fields[0], {})[fields[2]] = float(text)
        tag = fields[5] if kind == "run" else None
    if not out:
        raise ValueError(f"empty file, expected {kind} lines")
    return out, tag


def read(kind: str, source) -> pd.DataFrame:
    return (read_run if kind == "run" else read_qrels)(source)


def check_all_paths(tmp_path: Path, data: bytes, kind: str) -> None:
    """Every way of reading ``data`` agrees with ``reference``, values and error message alike."""
    try:
        expected = reference(data, kind)
    except ValueError as err:
        for source in sources(tmp_path, data).values():
            with pytest.raises(ValueError, match=re.escape(str(err))):
                read(kind, source)
        return
    value = "score" if kind == "run" else "relevance"
    for how, source in sources(tmp_path, data).items():
        df = read(kind, source)
        tag = df.attrs["name"]
        got = (as_bytes(df, value), None if tag is None else tag.encode("utf-8", "surrogateescape"))
        assert got == expected, how


QRELS = b"q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n"
RUN = b"q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.25 sys\nq2 Q0 d1 1 0.5 sys\n"
QRELS_LINE_IS = r"a qrels line is 'qid iter docno rel'$"  # how a wrong field count's message ends
RUN_LINE_IS = r"a run line is 'qid Q0 docno rank score tag'$"
FIVE_FIELDS = r"expected at least 6 columns, got 5; " + RUN_LINE_IS  # a run line of five fields


# --------------------------------------------------------------------------- 1. whitespace

class TestWhitespace:
    @pytest.mark.parametrize("sep", [b" ", b"\t", b"\v", b"\f", b"\r", b"  ", b" \t\r ", b"\t\t"])
    def test_any_run_of_whitespace_is_one_separator(self, tmp_path, sep):
        qrels = b"q1" + sep + b"0" + sep + b"d1" + sep + b"2\nq1 0 d2 0\n"
        run = sep.join([b"q1", b"Q0", b"d1", b"1", b"2.5", b"sys"]) + b"\nq1 Q0 d2 2 1.5 sys\n"
        for source in sources(tmp_path, qrels).values():
            assert as_bytes(read_qrels(source), "relevance") == {b"q1": {b"d1": 2, b"d2": 0}}
        for source in sources(tmp_path, run).values():
            df = read_run(source)
            assert as_bytes(df, "score") == {b"q1": {b"d1": 2.5, b"d2": 1.5}} and df.attrs["name"] == "sys"

    def test_double_space_is_one_separator_not_an_empty_field(self, tmp_path):
        # Cut at single spaces, "q1 0  d1 1" has an empty 3rd field and "1" as document.
        for source in sources(tmp_path, b"q1 0  d1 1\n").values():
            assert as_bytes(read_qrels(source), "relevance") == {b"q1": {b"d1": 1}}

    def test_qrels_line_with_three_fields_is_malformed(self, tmp_path):
        for source in sources(tmp_path, b"1 0  1\n", name="qrels.txt").values():
            with pytest.raises(ValueError, match=r"qrels\.txt line 1: expected 4 columns, got 3; " + QRELS_LINE_IS):
                read_qrels(source)

    def test_run_line_with_five_fields_is_malformed(self, tmp_path):
        # Cut at single spaces, the 5 fields "1 Q0  d3 3 1.0" make 6, the score taken from the rank.
        data = RUN * 5 + b"x Q0 y 1 2 sys\n" + b"1 Q0  d3 3 1.0\n" + RUN
        for source in sources(tmp_path, data, name="run.txt").values():
            with pytest.raises(ValueError, match=r"run\.txt line 17: " + FIVE_FIELDS):
                read_run(source)

    @pytest.mark.parametrize("line", [
        b"q1  d1 1 2.5 sys",  # no Q0: an empty field between two spaces
        b"q1 Q0 d1  2.5 sys",  # no rank
        b"q1 Q0 d1 1 2.5 ",  # no tag, a trailing space
        b"q1 Q0 d1 1 2.5",
        b" q1 Q0 d1 1 2.5",
    ])
    def test_five_fields_are_malformed_wherever_the_gap(self, tmp_path, line):
        for source in sources(tmp_path, RUN + line + b"\n", name="run.txt").values():
            with pytest.raises(ValueError, match=r"run\.txt line 4: " + FIVE_FIELDS):
                read_run(source)
        # the same line last in a file without a final newline
        for source in sources(tmp_path, RUN + line, name="run.txt").values():
            with pytest.raises(ValueError, match=r"run\.txt line 4: " + FIVE_FIELDS):
                read_run(source)

    def test_leading_and_trailing_whitespace_is_fine(self, tmp_path):
        data = b"  q1 0 d1 2 \n\tq1 0 d2 0\t\r\n q2 0 d1 1"
        for source in sources(tmp_path, data).values():
            assert as_bytes(read_qrels(source), "relevance") == {b"q1": {b"d1": 2, b"d2": 0}, b"q2": {b"d1": 1}}

    def test_a_lone_carriage_return_does_not_end_a_line(self, tmp_path):
        # trec_eval reads one line of 12 fields (the last 6 ignored); a CSV parser would read two.
        data = b"q1 Q0 d1 1 2.5 a\rq1 Q0 d2 2 1.5 b\n"
        for source in sources(tmp_path, data).values():
            df = read_run(source)
            assert as_bytes(df, "score") == {b"q1": {b"d1": 2.5}} and df.attrs["name"] == "a"
        for source in sources(tmp_path, b"q1 0 d1 1\rq1 0 d2 1\n", name="q.txt").values():
            with pytest.raises(ValueError, match=r"q\.txt line 1: expected 4 columns, got 8; " + QRELS_LINE_IS):
                read_qrels(source)

    def test_crlf_line_ends(self, tmp_path):
        for source in sources(tmp_path, RUN.replace(b"\n", b"\r\n")).values():
            assert as_bytes(read_run(source), "score") == as_bytes(read_run(io.BytesIO(RUN)), "score")

    @pytest.mark.parametrize("byte", [b"\xc2\xa0", b"\xc2\x85", b"\xe2\x80\x83", b"\x1c", b"\x85", b"\xa0"])
    def test_other_bytes_are_never_separators(self, tmp_path, byte):
        # UTF-8 no-break space, NEL, em space; ASCII file separator; Latin-1 NEL and no-break space
        doc = b"d" + byte + b"x"
        clean = b"q1 0 " + doc + b" 1\nq1 0 d2 0\n"
        normalized = b"q1\t0 " + doc + b" 1\n\n# comment\nq1 0 d2 0\n"
        for data in (clean, normalized):
            for source in sources(tmp_path, data).values():
                assert as_bytes(read_qrels(source), "relevance") == {b"q1": {doc: 1, b"d2": 0}}
        assert reference(clean, "qrels")[0] == {b"q1": {doc: 1.0, b"d2": 0.0}}

    def test_tab_separated_file(self, tmp_path):
        data = b"q1\t0\td1\t2\nq1\t0\td2\t0\n"
        for source in sources(tmp_path, data).values():
            assert as_bytes(read_qrels(source), "relevance") == {b"q1": {b"d1": 2, b"d2": 0}}
        # a space inside a tab-separated line separates too
        for source in sources(tmp_path, data + b"q1\t0\td3 x\t1\n", name="q.txt").values():
            with pytest.raises(ValueError, match=r"q\.txt line 3: expected 4 columns, got 5; " + QRELS_LINE_IS):
                read_qrels(source)

    def test_extra_run_columns_are_ignored(self, tmp_path):
        data = b"q1 Q0 d1 1 2.5 a x y\nq1 Q0 d2 2 1.5 b 7\n"
        for source in sources(tmp_path, data).values():
            df = read_run(source)
            assert as_bytes(df, "score") == {b"q1": {b"d1": 2.5, b"d2": 1.5}} and df.attrs["name"] == "b"


# --------------------------------------------------------------------------- 2. comments

class TestCommentsAndBlankLines:
    @pytest.mark.parametrize("kind", ["qrels", "run"])
    def test_comments_and_blank_lines_are_skipped_anywhere(self, tmp_path, kind):
        lines = (QRELS if kind == "qrels" else RUN).splitlines(keepends=True)
        comment = b"# a b c d\n" if kind == "qrels" else b"# a b c d e f\n"  # as many fields as data
        data = (b"# first\n" + comment + lines[0] + b"\n   \n\t\n" + b"  # indented\n#\n#x\n" + lines[1]
                + b"\n" + lines[2] + b"# last, consecutive\n" + comment + b"#")
        value = "relevance" if kind == "qrels" else "score"
        expected = as_bytes(read(kind, io.BytesIO(b"".join(lines))), value)
        for how, source in sources(tmp_path, data).items():
            df = read(kind, source)
            assert as_bytes(df, value) == expected, how
        check_all_paths(tmp_path, data, kind)

    def test_a_comment_counts_as_a_line_for_the_line_number(self, tmp_path):
        data = b"# comment\n\nq1 0 d1 1\nq1 0 d2\n"
        for source in sources(tmp_path, data, name="q.txt").values():
            with pytest.raises(ValueError, match=r"q\.txt line 4: expected 4 columns, got 3; " + QRELS_LINE_IS):
                read_qrels(source)

    def test_hash_inside_an_id_is_data(self, tmp_path):
        for source in sources(tmp_path, b"q1 0 d#1 1\nq1 # d2 0\n").values():
            assert as_bytes(read_qrels(source), "relevance") == {b"q1": {b"d#1": 1, b"d2": 0}}

    def test_only_comments_and_blank_lines_is_an_empty_file(self, tmp_path):
        for source in sources(tmp_path, b"# nothing\n\n  \n", name="run.txt").values():
            with pytest.raises(ValueError, match=r"run\.txt: empty file, expected run lines$"):
                read_run(source)


# --------------------------------------------------------------------------- 3. byte order mark

class TestByteOrderMark:
    @pytest.mark.parametrize("kind", ["qrels", "run"])
    def test_bom_at_the_start_is_dropped_in_every_path(self, tmp_path, kind):
        data = QRELS if kind == "qrels" else RUN
        value = "relevance" if kind == "qrels" else "score"
        expected = as_bytes(read(kind, io.BytesIO(data)), value)
        for bom_data in (b"\xef\xbb\xbf" + data, b"\xef\xbb\xbf" + data.replace(b" ", b"\t  ")):
            for how, source in sources(tmp_path, bom_data).items():
                df = read(kind, source)
                assert as_bytes(df, value) == expected, how
                assert list(df.query_id.cat.categories) == ["q1", "q2"]

    def test_bom_elsewhere_is_part_of_an_id(self, tmp_path):
        line = b"\xef\xbb\xbfq3 0 d1 1\n"
        for data in (QRELS + line, b"\xef\xbb\xbf" + line, b" " + line, b"# c\n" + line, b"\xef\xbb\xbf\n" + line):
            for source in sources(tmp_path, data).values():
                assert "\ufeffq3" in read_qrels(source).query_id.cat.categories

    def test_bom_alone_is_an_empty_file(self, tmp_path):
        for source in sources(tmp_path, b"\xef\xbb\xbf", name="q.txt").values():
            with pytest.raises(ValueError, match=r"q\.txt: empty file, expected qrels lines$"):
                read_qrels(source)


# --------------------------------------------------------------------------- 4. ids are bytes

LATIN1_QRELS = b"q1 0 caf\xe9 1\nq1 0 caf\xc3\xa9 2\nq1 0 x 1\n"
LATIN1_RUN = b"q1 Q0 caf\xe9 1 3 t\nq1 Q0 caf\xc3\xa9 2 2 t\nq1 Q0 y 3 1 t\n"


class TestByteIds:
    def test_non_utf8_ids_are_surrogate_escaped_str(self, tmp_path):
        for how, source in sources(tmp_path, LATIN1_QRELS).items():
            df = read_qrels(source)
            assert df.doc_id.tolist() == ["caf\udce9", "café", "x"], how
            assert df.doc_id.dtype == object and all(isinstance(d, str) for d in df.doc_id)
            assert [d.encode("utf-8", "surrogateescape") for d in df.doc_id] == [b"caf\xe9", b"caf\xc3\xa9", b"x"]
            assert list(df.query_id.cat.categories) == ["q1"]  # all UTF-8: Arrow-backed str categories
            assert isinstance(df.query_id.cat.categories.dtype, pd.StringDtype)

    def test_utf8_ids_stay_arrow_strings(self, tmp_path):
        df = read_qrels(write(tmp_path, "q.txt", "q1 0 café 1\nq1 0 naïve 0\n".encode()))
        assert df.doc_id.tolist() == ["café", "naïve"]
        assert isinstance(df.doc_id.dtype, pd.StringDtype)

    def test_printing_through_surrogateescape_gives_the_bytes_back(self, tmp_path):
        df = read_run(write(tmp_path, "r.txt", b"caf\xe9 Q0 d\xff\xfe 1 1 t\xe9g\n"))
        out = io.BytesIO()
        text = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape")
        print(df.query_id.iloc[0], df.doc_id.iloc[0], df.attrs["name"], file=text)
        text.flush()
        assert out.getvalue() == b"caf\xe9 d\xff\xfe t\xe9g\n"

    def test_query_categories_in_byte_order(self, tmp_path):
        # b"\xee\x80\x80" (U+E000) sorts before b"\xf0" as bytes; as code points '\udcf0' < '\ue000'.
        data = b"\xf0 Q0 d 1 1 t\n\xee\x80\x80 Q0 d 1 1 t\nz Q0 d 1 1 t\n"
        for source in sources(tmp_path, data).values():
            df = read_run(source)
            assert [c.encode("utf-8", "surrogateescape") for c in df.query_id.cat.categories] == [
                b"z", b"\xee\x80\x80", b"\xf0"]
            again = read_run(df)  # a frame with escaped ids is read again the same way
            assert list(again.query_id.cat.categories) == list(df.query_id.cat.categories)
            assert again.doc_id.tolist() == df.doc_id.tolist()

    def test_latin1_id_in_both_files_matches_and_never_the_utf8_one(self, tmp_path):
        qrels = read_qrels(write(tmp_path, "q.txt", LATIN1_QRELS))
        run = read_run(write(tmp_path, "r.txt", LATIN1_RUN))
        r = rank(qrels, run)
        # caf\xe9 (3.0) matches its Latin-1 judgment (1), café (2.0) its UTF-8 one (2), y none
        np.testing.assert_array_equal(r.labels, [[1.0, 2.0, 0.0]])
        np.testing.assert_array_equal(r.judged, [[True, True, False]])
        table = evaluate(qrels, run, ["P@2", "RR", "nDCG@3"])
        assert table.loc["q1", "P@2"] == 1.0 and table.loc["q1", "RR"] == 1.0
        # DCG 1 + 2/log2(3) over the ideal 2 + 1/log2(3) + 1/2
        assert table.loc["q1", "nDCG@3"] == pytest.approx((1 + 2 / np.log2(3)) / (2.5 + 1 / np.log2(3)))

    def test_latin1_run_id_does_not_match_utf8_qrels_id(self, tmp_path):
        qrels = read_qrels(write(tmp_path, "q.txt", "q1 0 café 1\n".encode()))
        for run in (read_run(write(tmp_path, "r.txt", b"q1 Q0 caf\xe9 1 1 t\n")),
                    read_run(io.BytesIO(b"q1 Q0 caf\xe9 1 1 t\nq1 Q0 x 2 0 t\n"))):
            r = rank(qrels, run)
            assert r.labels.sum() == 0 and not r.judged.any()
            assert evaluate(qrels, run, ["P@1"]).loc["q1", "P@1"] == 0.0
        # and the other way round
        qrels = read_qrels(write(tmp_path, "q.txt", b"q1 0 caf\xe9 1\n"))
        assert rank(qrels, read_run(io.BytesIO("q1 Q0 café 1 1 t\n".encode()))).labels.sum() == 0

    def test_ties_broken_by_document_bytes(self, tmp_path):
        # Equal scores: trec_eval orders by docno descending, strcmp: b"\xf0" before b"\xee\x80\x80".
        qrels = read_qrels(io.BytesIO(b"q 0 \xf0 1\nq 0 \xee\x80\x80 0\n"))
        run = read_run(io.BytesIO(b"q Q0 \xee\x80\x80 1 1.0 t\nq Q0 \xf0 2 1.0 t\n"))
        np.testing.assert_array_equal(rank(qrels, run).labels, [[1.0, 0.0]])

    def test_long_ids_match_and_tie_by_bytes(self, tmp_path):
        # Ids over 8 bytes are hashed and every match confirmed on the bytes (_same_strings);
        # tied scores order them by the bytes, descending (strcmp).
        docs = [b"document-\xe9-%02d" % i for i in range(6)] + [b"document-\xc3\xa9-%02d" % i for i in range(6)]
        labels = {d: i % 3 for i, d in enumerate(docs)}
        judged = docs[::2]  # half of them judged
        qrels = read_qrels(io.BytesIO(b"".join(b"q 0 %s %d\n" % (d, labels[d]) for d in judged)))
        run = read_run(io.BytesIO(b"".join(b"q Q0 %s %d %d t\n" % (d, i, i // 4) for i, d in enumerate(docs))))
        order = sorted(docs, key=lambda d: (docs.index(d) // 4, d), reverse=True)
        expected = [labels[d] if d in judged else 0 for d in order]
        np.testing.assert_array_equal(rank(qrels, run).labels, [expected])
        np.testing.assert_array_equal(rank(qrels, run).judged, [[d in judged for d in order]])

    def test_duplicate_escaped_id_is_an_error(self, tmp_path):
        data = b"q Q0 caf\xe9 1 1 t\nq Q0 caf\xe9 2 0 t\n"
        twice = r"r\.txt lines 1 and 2: document 'caf\\udce9' is retrieved twice for query 'q'"
        with pytest.raises(ValueError, match=twice):
            read_run(write(tmp_path, "r.txt", data))

    def test_latin1_query_ids_in_rank(self, tmp_path):
        qrels = read_qrels(io.BytesIO(b"caf\xe9 0 d 1\nq 0 d 1\n"))
        run = read_run(io.BytesIO(b"caf\xe9 Q0 d 1 3 t\nq Q0 e 1 1 t\n"))
        r = rank(qrels, run)
        assert [q.encode("utf-8", "surrogateescape") for q in r.query_ids] == [b"caf\xe9", b"q"]
        np.testing.assert_array_equal(r.labels, [[1.0], [0.0]])


# --------------------------------------------------------------------------- 5, 6. numbers

BAD_NUMBERS = [("1_000", "a number"), ("\u0663", "a number"), ("\u0661\u0662", "a number"), ("0x3", "a number"),
               ("0X3", "a number"), ("1e", "a number"), ("e5", "a number"), ("+", "a number"), (".", "a number"),
               ("1.5f", "a number"), ("1,5", "a number"), ("--1", "a number"), ("abc", "a number"),
               ("inf", "finite"), ("-inf", "finite"), ("nan", "finite"), ("NaN", "finite"), ("Infinity", "finite"),
               ("1e400", "finite")]
GOOD_NUMBERS = ["1", "-2", "+0.5", ".5", "5.", "1e-3", "1E+04", "-.5e-3", "00012", "1.e5", "0", "-0"]


class TestNumbers:
    @pytest.mark.parametrize("text, problem", BAD_NUMBERS)
    def test_bad_score_names_file_and_line(self, tmp_path, text, problem):
        line = f"q1 Q0 d9 1 {text} sys\n".encode()
        for data in (RUN + line + RUN, RUN.replace(b" ", b"\t") + line):  # clean, and normalized
            for source in sources(tmp_path, data, name="run.txt").values():
                message = rf"run\.txt line 4: score must be {problem}, got {re.escape(repr(text))}$"
                with pytest.raises(ValueError, match=message):
                    read_run(source)

    @pytest.mark.parametrize("text, problem", BAD_NUMBERS)
    def test_bad_label_names_file_and_line(self, tmp_path, text, problem):
        data = QRELS + f"q1 0 d9 {text}\n".encode()
        for source in sources(tmp_path, data, name="qrels.txt").values():
            message = rf"qrels\.txt line 4: relevance must be {problem}, got {re.escape(repr(text))}$"
            with pytest.raises(ValueError, match=message):
                read_qrels(source)

    @pytest.mark.parametrize("text", GOOD_NUMBERS)
    def test_plain_decimal_numbers(self, tmp_path, text):
        for data in (RUN + f"q3 Q0 d 1 {text} t\n".encode(), f"q3\tQ0 d 1 {text} t\n".encode()):
            for source in sources(tmp_path, data).values():
                df = read_run(source)
                assert df.score.iloc[-1] == float(text) and df.score.dtype == np.float64

    def test_the_first_bad_line_is_named(self, tmp_path):
        # Two bad lines some 4 MB blocks apart, one with a bad number, one malformed: the first is named.
        good = [b"q1\tQ0 d%d 1 1 t\n" % i for i in range(600_000)]
        number, malformed = b"q1 Q0 x 1 x t\n", b"q1 Q0 d4\n"
        for bad, message in [((number, malformed), "line 300001: score must be a number, got 'x'"),
                             ((malformed, number), "line 300001: expected at least 6 columns, got 3; "
                                                   "a run line is 'qid Q0 docno rank score tag'")]:
            data = b"".join(good[:300_000] + [bad[0]] + good[300_000:] + [bad[1]])
            for source in sources(tmp_path, data, name="run.txt").values():
                with pytest.raises(ValueError, match=rf"run\.txt {message}$"):
                    read_run(source)

    def test_non_integer_labels_stay_float(self, tmp_path):
        for data in (b"q1 0 d1 0.5\nq1 0 d2 1\n", b"q1\t0 d1  0.5\nq1 0 d2 1\n"):
            for source in sources(tmp_path, data).values():
                df = read_qrels(source)
                assert df.relevance.dtype == np.float64 and df.relevance.tolist() == [0.5, 1.0]
        assert read_qrels(io.BytesIO(b"q1 0 d1 1.0\nq1 0 d2 -1\n")).relevance.dtype == np.int64

    @settings(max_examples=sweep(150), deadline=None)
    @given(st.text(alphabet="0123456789+-.eE_xX ia\u0663", min_size=1, max_size=8).filter(lambda s: s.strip() == s))
    def test_every_path_takes_the_same_numbers(self, tmp_path_factory, text):
        tmp = tmp_path_factory.mktemp("numbers")
        check_all_paths(tmp, RUN + f"q3 Q0 d 1 {text} t\n".encode(), "run")


# --------------------------------------------------------------------------- 7. files

class TestFiles:
    def test_gzip_recognised_by_its_bytes(self, tmp_path):
        for name in ("run.gz", "run.txt", "run"):
            df = read_run(write(tmp_path, name, gzip.compress(RUN)))
            assert as_bytes(df, "score") == as_bytes(read_run(io.BytesIO(RUN)), "score")
        assert len(read_run(io.BytesIO(gzip.compress(RUN)))) == 3
        # several gzip members, as `cat a.gz b.gz` makes
        assert len(read_run(write(tmp_path, "two.gz", gzip.compress(RUN[:19]) + gzip.compress(RUN[19:])))) == 3

    def test_gz_name_with_plain_text(self, tmp_path):
        assert len(read_run(write(tmp_path, "run.gz", RUN))) == 3

    def test_truncated_gzip(self, tmp_path):
        data = gzip.compress(b"".join(b"q Q0 d%d 1 %d t\n" % (i, i) for i in range(10_000)))
        for source in (write(tmp_path, "run.gz", data[: len(data) // 2]), write(tmp_path, "run.gz", data[:-4])):
            with pytest.raises(ValueError, match=r"run\.gz: truncated gzip file$"):
                read_run(source)

    def test_corrupt_gzip(self, tmp_path):
        data = bytearray(gzip.compress(RUN * 100))
        data[-8] ^= 0xFF  # the CRC
        with pytest.raises(ValueError, match=r"run\.gz: corrupt gzip file \(CRC check failed"):
            read_run(write(tmp_path, "run.gz", bytes(data)))
        with pytest.raises(ValueError, match=r"run\.gz: corrupt gzip file"):
            read_run(write(tmp_path, "run.gz", b"\x1f\x8b" + b"junk" * 10))

    def test_binary_file(self, tmp_path):
        with pytest.raises(ValueError, match=r"qrels\.txt: not a text file \(byte 0x00 at line 3\)$"):
            read_qrels(write(tmp_path, "qrels.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
        for source in sources(tmp_path, QRELS[:15] + b"\x00" + QRELS[15:], name="qrels.txt").values():
            with pytest.raises(ValueError, match=r"qrels\.txt: not a text file \(byte 0x00 at line 2\)$"):
                read_qrels(source)
        utf16 = QRELS.decode().encode("utf-16")
        with pytest.raises(ValueError, match=r"q16\.txt: not a text file \(byte 0x00 at line 1\)$"):
            read_qrels(write(tmp_path, "q16.txt", utf16))

    def test_missing_file_directory_empty_file_dev_null(self, tmp_path):
        with pytest.raises(FileNotFoundError, match=r"^xyz: no such file$") as caught:
            read_run("xyz")
        assert isinstance(caught.value, ValueError) and caught.value.errno == errno.ENOENT
        assert caught.value.filename is None and str(caught.value) == "xyz: no such file"
        with pytest.raises(IsADirectoryError, match=r"is a directory$") as caught:
            read_qrels(tmp_path)
        assert isinstance(caught.value, ValueError) and caught.value.errno == errno.EISDIR
        with pytest.raises(FileNotFoundError, match=r"^gone\.gz: no such file$"):
            read_qrels("gone.gz")
        # what Python code writes for a missing file, and what it wrote before (ValueError)
        for kind_error in (OSError, ValueError):
            with pytest.raises(kind_error, match=r"^xyz: no such file$"):
                read_run("xyz")
        with pytest.raises(ValueError, match=r"empty\.txt: empty file, expected run lines$"):
            read_run(write(tmp_path, "empty.txt", b""))
        with pytest.raises(ValueError, match=r"empty\.gz: empty file, expected qrels lines$"):
            read_qrels(write(tmp_path, "empty.gz", gzip.compress(b"")))
        if os.path.exists("/dev/null"):
            with pytest.raises(ValueError, match=r"^/dev/null: empty file, expected run lines$"):
                read_run("/dev/null")

    @pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
    def test_unreadable_file(self, tmp_path):
        path = write(tmp_path, "secret.txt", RUN)
        path.chmod(0)
        with pytest.raises(PermissionError, match=r"secret\.txt: permission denied$") as caught:
            read_run(path)
        assert isinstance(caught.value, ValueError)

    @pytest.mark.parametrize("case, message", [
        ("missing", "FileNotFoundError xyz: no such file"),
        ("directory", "IsADirectoryError .*: is a directory"),
        ("binary", "ValueError bin.txt: not a text file (byte 0x00 at line 1)"),
        ("truncated", "ValueError run.gz: truncated gzip file"),
        ("empty", "ValueError empty.txt: empty file, expected run lines"),
        ("devnull", "ValueError /dev/null: empty file, expected run lines"),
        ("malformed", "ValueError bad.txt line 2: expected at least 6 columns, got 5; "
                      "a run line is 'qid Q0 docno rank score tag'"),
        ("malformed-gzip", "ValueError bad.gz line 2: expected at least 6 columns, got 5; "
                           "a run line is 'qid Q0 docno rank score tag'"),
        ("number", "ValueError num.txt line 1: score must be a number, got 'x'"),
    ])
    def test_one_clean_error_and_nothing_on_stderr(self, tmp_path, case, message):
        write(tmp_path, "bin.txt", b"\x00\x01\x02" * 100)
        unique = b"".join(b"q Q0 d%d 1 %d t\n" % (i, i) for i in range(100_000))
        write(tmp_path, "run.gz", gzip.compress(unique)[:50_000])
        write(tmp_path, "empty.txt", b"")
        write(tmp_path, "bad.txt", RUN[:19] + b"q Q0 d 1 1\n")
        write(tmp_path, "bad.gz", gzip.compress(RUN[:19] + b"q Q0 d 1 1\n"))
        write(tmp_path, "num.txt", b"q Q0 d 1 x t\n")
        path = {"missing": "xyz", "directory": str(tmp_path), "binary": "bin.txt", "truncated": "run.gz",
                "empty": "empty.txt", "devnull": "/dev/null", "malformed": "bad.txt",
                "malformed-gzip": "bad.gz", "number": "num.txt"}[case]
        code = ("import sys, rankkit\n"
                "try:\n    rankkit.read_run(sys.argv[1])\n"
                "except ValueError as err:\n"
                "    assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__), err\n"
                "    builtin = next(c for c in type(err).__mro__ if c.__module__ == 'builtins')\n"
                "    print(builtin.__name__, err)\n")
        done = subprocess.run([sys.executable, "-c", code, path], cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
        assert done.stderr == ""
        assert done.returncode == 0
        assert re.fullmatch(re.escape(message).replace(r"\.\*", ".*"), done.stdout.rstrip())

    def test_exit_right_after_an_error_never_aborts(self, tmp_path):
        """A script that stops at a bad line must exit cleanly even when a pyarrow thread is
        slow to let go of the file (it once aborted with exit 134 in ~1 of 5 runs on a
        loaded machine): 12 runs, 4 at a time (a fifth aborting would show in 12 runs 93 times
        in 100)."""
        write(tmp_path, "bad.txt", RUN[:19] + b"q Q0 d 1 1\n")
        write(tmp_path, "bad.gz", gzip.compress(RUN[:19] + b"q Q0 d 1 1\n"))
        write(tmp_path, "num.txt", b"q Q0 d 1 x t\n")
        code = "import sys, rankkit\ntry:\n    rankkit.read_run(sys.argv[1])\nexcept ValueError:\n    pass\n"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        names = ["bad.txt", "bad.gz", "num.txt"] * 4
        for start in range(0, len(names), 4):
            runs = [subprocess.Popen([sys.executable, "-c", code, name], cwd=tmp_path, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    for name in names[start:start + 4]]
            for name, proc in zip(names[start:start + 4], runs):
                out, err = proc.communicate(timeout=120)
                assert (proc.returncode, err) == (0, b""), name


# --------------------------------------------------------------------------- 8. file objects

class TestFileObjects:
    def test_bytes_io_and_binary_files(self, tmp_path):
        expected = as_bytes(read_run(write(tmp_path, "run.txt", RUN)), "score")
        assert as_bytes(read_run(io.BytesIO(RUN)), "score") == expected
        with open(tmp_path / "run.txt", "rb") as f:
            assert as_bytes(read_run(f), "score") == expected

    def test_file_object_read_from_its_position(self, tmp_path):
        stream = io.BytesIO(b"header to skip\n" + RUN)
        stream.readline()
        assert len(read_run(stream)) == 3

    def test_errors_name_the_stream(self, tmp_path):
        with pytest.raises(ValueError, match=r"^<BytesIO> line 2: expected at least 6 columns, got 3; " + RUN_LINE_IS):
            read_run(io.BytesIO(RUN[:19] + b"a b c\n"))
        with open(write(tmp_path, "named.txt", b"q Q0 d 1 x t\n"), "rb") as f:
            with pytest.raises(ValueError, match=r"named\.txt line 1: score must be a number, got 'x'$"):
                read_run(f)
        with pytest.raises(ValueError, match=r"^<BytesIO>: empty file, expected qrels lines$"):
            read_qrels(io.BytesIO(b""))

    def test_a_stream_that_cannot_seek(self):
        class Pipe:  # read() only, short reads
            def __init__(self, data):
                self.data = data

            def read(self, n=-1):
                n = 7 if n is None or n < 0 else min(n, 7)
                out, self.data = self.data[:n], self.data[n:]
                return out

        data = b"\xef\xbb\xbf" + RUN.replace(b" ", b"  ")
        df = read_run(Pipe(data))
        assert as_bytes(df, "score") == as_bytes(read_run(io.BytesIO(RUN)), "score") and df.attrs["name"] == "sys"
        assert len(read_run(Pipe(gzip.compress(RUN)))) == 3

    def test_text_stream_is_refused(self):
        with pytest.raises(ValueError, match=r"<StringIO>: not a binary file object \(open it with 'rb'"):
            read_run(io.StringIO(RUN.decode()))

    def test_standard_input(self, tmp_path):
        code = ("import sys, rankkit\n"
                "df = rankkit.read_run(sys.stdin.buffer)\n"
                "print(len(df), df.attrs['name'], sorted(df.doc_id))\n"
                "try:\n    rankkit.read_qrels(sys.stdin.buffer)\n"
                "except ValueError as err:\n    print(err)\n")
        done = subprocess.run([sys.executable, "-c", code], input=gzip.compress(RUN), capture_output=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
        assert done.stderr == b""
        assert done.stdout.decode().splitlines() == ["3 sys ['d1', 'd1', 'd2']",
                                                    "<stdin>: empty file, expected qrels lines"]


# --------------------------------------------------------------------------- 9. run tag

class TestRunTag:
    def test_tag_of_the_last_data_line(self, tmp_path):
        spaced = b"q1 Q0 d1 1 2 first\nq2 Q0 d1 1 2 middle\nq1 Q0 d2 2 1 last extra\n\n# comment\n  \n"
        for data in (spaced, spaced.replace(b" ", b"\t"), spaced.rstrip(b"\n# comment ")):
            for how, source in sources(tmp_path, data).items():
                assert read_run(source).attrs["name"] == "last", how

    def test_tag_over_a_block_boundary(self, tmp_path):
        line = b"q1 Q0 d%d 1 1 t%d\n"
        data = b"".join(line % (i, i) for i in range(400_000))  # several 4 MB blocks
        for how, source in sources(tmp_path, data).items():
            df = read_run(source)
            assert df.attrs["name"] == "t399999" and len(df) == 400_000, how

    def test_name_argument_wins(self, tmp_path):
        assert read_run(io.BytesIO(RUN), name="mine").attrs["name"] == "mine"


# --------------------------------------------------------------------------- 10. the fast path

class TestFastPath:
    @pytest.mark.parametrize("data", [RUN, RUN.replace(b" ", b"\t"), RUN.rstrip(b"\n"), b"\xef\xbb\xbf" + RUN,
                                      "q1 Q0 d\u00a0é 1 1 t\n".encode()])
    def test_clean_files_take_the_fast_path(self, tmp_path, monkeypatch, data):
        def slower(*args):
            raise AssertionError("a clean file took a slower path")

        monkeypatch.setattr(rankkit.io.trec_format, "_parse_normalized", slower)
        monkeypatch.setattr(rankkit.io.trec_format, "_scan_lines", slower)
        for source in sources(tmp_path, data).values():
            assert len(read_run(source)) == data.count(b"\n") + (not data.endswith(b"\n"))

    @pytest.mark.parametrize("data", [RUN.replace(b" ", b"  ", 1), RUN.replace(b"\n", b"\r\n"), b"\n" + RUN,
                                      RUN + b"# c\n", RUN.replace(b"sys", b"sys x"), RUN[:-1] + b" ",
                                      RUN.replace(b"d1", b"d\xe9")])
    def test_other_files_are_normalized_not_read_line_by_line(self, tmp_path, monkeypatch, data):
        def slowest(*args):
            raise AssertionError("read line by line")

        monkeypatch.setattr(rankkit.io.trec_format, "_scan_lines", slowest)
        for source in sources(tmp_path, data).values():
            assert len(read_run(source)) == 3


# --------------------------------------------------------------------------- every path, random files

fields = st.sampled_from([b"q1", b"q2", b"d1", b"d2", b"d3", b"Q0", b"0", b"1", b"2.5", b"-1", b"#", b"#x",
                          b"caf\xe9", b"d\xc2\xa0x", b"\xef\xbb\xbf", b"1e3", b"inf", b"x_1", b"\x1c"])
separators = st.sampled_from([b" ", b" ", b" ", b"\t", b"  ", b"\r", b"\v", b" \t "])


@st.composite
def files(draw, kind):
    ncols = 6 if kind == "run" else 4
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        n = draw(st.sampled_from([ncols, ncols, ncols, 0, ncols - 1, ncols + 1, ncols + 3]))
        words = [draw(fields) for _ in range(n)]
        if n >= ncols:  # mostly well-formed: ids, then a number where the value goes
            words[2] = draw(st.sampled_from([b"d1", b"d2", b"d3", b"d\xc2\xa0x", b"caf\xe9"]))
            words[ncols - 2 if kind == "run" else 3] = draw(st.sampled_from([b"1", b"0", b"2.5", b"-1", b"1e3", b"x"]))
        sep = [draw(separators) for _ in range(max(n - 1, 0))]
        body = words[0] + b"".join(s + w for s, w in zip(sep, words[1:])) if words else b""
        lead = draw(st.sampled_from([b"", b"", b"", b" ", b"\t"]))
        trail = draw(st.sampled_from([b"", b"", b"", b" ", b"\r", b"\t "]))
        lines.append(lead + body + trail)
    end = draw(st.sampled_from([b"\n", b"\n", b""]))
    bom = draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf"]))
    return bom + b"\n".join(lines) + end


def unique_pairs(data: bytes, kind: str) -> bool:
    """No document twice for a query (a separate error, tested in test_io)."""
    try:
        reference(data, kind)
    except ValueError:
        return True
    ncols = 6 if kind == "run" else 4
    seen = set()
    for line in data.removeprefix(b"\xef\xbb\xbf").split(b"\n"):
        f = line.split()
        if len(f) >= ncols and not f[0].startswith(b"#"):
            if (f[0], f[2]) in seen:
                return False
            seen.add((f[0], f[2]))
    return True


@settings(max_examples=sweep(300), deadline=None)
@given(st.data())
def test_every_path_reads_every_file_like_the_reference(tmp_path_factory, data):
    kind = data.draw(st.sampled_from(["qrels", "run"]))
    text = data.draw(files(kind).filter(lambda t: unique_pairs(t, kind)))
    check_all_paths(tmp_path_factory.mktemp("any"), text, kind)


@settings(max_examples=sweep(200), deadline=None)
@given(st.text(alphabet="ab \n\x00", max_size=200), st.lists(st.integers(1, 40), min_size=1, max_size=20),
       st.integers(1, 60))
def test_line_blocks_are_the_bytes_in_whole_lines(text, cuts, size):
    # rankkit.io.trec_format._line_blocks, whatever sizes the reads come in: the bytes unchanged
    # and in order, every block whole lines (the last line given its newline; a read with a
    # NUL and no line end may end a block, for the parse to report), every block but the
    # last at least ``size`` bytes.
    from rankkit.io.trec_format import _line_blocks

    data = text.encode()
    chunks, at = [], 0
    while at < len(data):
        step = cuts[len(chunks) % len(cuts)]
        chunks.append(data[at:at + step])
        at += step
    blocks = list(_line_blocks(iter(chunks), size))
    whole = data if not data or data.endswith(b"\n") else data + b"\n"
    assert b"".join(blocks) in ((whole, data) if b"\x00" in data else (whole,))
    assert all(block.endswith(b"\n") or b"\x00" in block for block in blocks)
    assert all(len(block) >= size for block in blocks[:-1])


@settings(max_examples=sweep(150), deadline=None)
@given(st.lists(st.text("ab ", max_size=30), min_size=1, max_size=40), st.integers(8, 200), st.integers(0, 60))
def test_plain_blocks_start_and_end_with_an_edge(tmp_path_factory, lines, size, edge):
    # rankkit.io.trec_format._plain_line_blocks (a plain file read straight into each block):
    # the bytes unchanged and in order, every block whole lines; given an edge (a thread
    # reading ahead), the first block and the last are about that many bytes, a line longer
    # than it kept whole.
    from rankkit.io.trec_format import _Input, _plain_line_blocks

    edge = min(edge, size - 1)
    data = "".join(line + "\n" for line in lines).encode()
    path = tmp_path_factory.mktemp("plain") / "run.txt"
    path.write_bytes(data)
    with _Input(str(path)) as inp:
        blocks = [bytes(block) for block in _plain_line_blocks(inp, size, edge)]
    assert b"".join(blocks) == data
    assert all(block.endswith(b"\n") for block in blocks)
    longest = max(len(line) + 1 for line in lines)
    if edge and longest <= edge:  # (a longer line makes its block longer)
        assert len(blocks[0]) <= edge
        if len(data) > size + edge:
            assert len(blocks[-1]) <= edge + longest
    if not edge:
        assert all(len(block) >= size - longest for block in blocks[:-1])
