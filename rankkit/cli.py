"""The ``rankkit`` command line (also ``python -m rankkit``).

``rankkit evaluate QRELS RUN -m SPEC ...`` prints trec_eval's format by default::

    $ rankkit evaluate qrels.test results.test -m map -m P_10 -m nDCG@10
    map                   	all	0.1785
    P_10                  	all	0.3000
    nDCG@10               	all	0.3016

Exit status 0 on success, 2 on bad input (unreadable or malformed file, unknown metric;
``compare``: 1 when a ``--fail-if`` condition holds),
with a one-line message on stderr. Each subcommand is a function ``_cmd_<name>(args)``
registered in ``_build_parser``. ``rankkit compare QRELS RUN1 RUN2 ... [-m SPEC]`` compares
runs with :func:`rankkit.compare` (paired tests, intervals, corrections); its ``-m`` reads
measures as ``evaluate``'s does, and without ``-m`` it compares the measures of trec_eval's
default (``official``) that are means over queries.

It also holds :func:`rankkit.evaluate`'s front door, :func:`evaluate`: the one floor above
both the in-memory evaluation (:mod:`rankkit.evaluation`) and the Dask one
(:mod:`rankkit.dask`), which it chooses between by the inputs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

import numpy as np

from . import __version__, process
from ._lazy import missing_extra
from ._validation import warnings_named
from .evaluation.memory import parse_memory
from .evaluation.settings import TIE_POLICIES, Settings
from .io.keys import query_index
from .names import NICKNAMES, metric_help, parse_metric
from .trec_eval import evaluate_like_trec_eval, read_zscores, trec_eval_text, trec_lines, trec_measures

if TYPE_CHECKING:  # pandas on first use: trec_eval's format needs no frame of it
    import pandas as pd

__all__ = ["main"]

PROG = "rankkit"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _memory(text: str) -> int:
    try:
        return parse_memory(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


EVALUATE_EXAMPLES = """\
examples:
  rankkit evaluate qrels.txt run.txt
      trec_eval's default measures (official), one 'all' line each
  rankkit evaluate -q qrels.txt run.txt -m map -m P.5,10 -m ndcg_cut.10
      per query, then 'all': trec_eval's names and parameter lists, in trec_eval's order
  rankkit evaluate qrels.txt run.txt -m nDCG@10 -m "AP(normalize='min_k')@10" -m "RBP(p=0.8)"
      rankkit specs, NAME(param=value, ...)@k
  rankkit evaluate qrels.txt runs/*.run
      several runs in one process (judgments read once): each run's lines in turn, as
      trec_eval prints them for that run, told apart by their runid lines

Score a TREC run against judgments, like trec_eval 10 (the same lines, byte for byte).
"""

COMPARE_EXAMPLES = """\
examples:
  rankkit compare qrels.txt bm25.run dense.run
      every pair of runs, on trec_eval's default measures that are means over queries
  rankkit compare qrels.txt bm25.run dense.run splade.run --baseline bm25 -m map -m P.10 -m nDCG@10
      each run against bm25.run (named by its file name, with or without its extension)
  rankkit compare qrels.txt bm25.run dense.run -m nDCG@10 --test randomization --format markdown
      a paired randomization test, as a Markdown table for a report
  rankkit compare qrels.txt new.run --baseline prod.run --fail-if "nDCG@10 < -0.01" --fail-if "map < -2%"
      a gate for CI: exit status 1 when new.run is significantly worse than prod.run (a file
      besides the RUNs) and by more than the margin: 0.01 nDCG@10, or 2% of prod.run's map

Compare runs: per measure, the mean paired difference of each run to the baseline (or of
every pair), its confidence interval, the p-value of a paired test, the corrected p-value
and Cohen's d. The significance mark is explained under the table (where no difference is
significant, the line says so instead). With --delta, also the queries a paired t-test
needs to detect that difference and the smallest difference it detects with the queries
compared.

--fail-if "METRIC < -MARGIN" (or "METRIC < -PERCENT%", a percentage of the baseline's mean;
repeatable; needs --baseline) holds for a run when its mean paired difference to the
baseline (run - baseline) is below -MARGIN AND significant (p adj. < alpha): the difference
is then both larger than the margin and not the luck of the queries. Exit status 1 when a
condition holds for some run, 0 when none does, 2 for a usage error; --markdown FILE writes
a summary for a pull-request comment, --junit FILE a JUnit XML report (one test case per
condition and run).
"""

#: What compare measures without -m, and what it keeps of a nickname: the per-query means.
COMPARE_DEFAULT = "official"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Evaluate rankings: IR metrics, trec_eval-exact.",
    )
    parser.add_argument("-v", "--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_evaluate(commands)
    _add_compare(commands)
    _add_fuse(commands)
    _add_ndeval(commands)
    return parser


def _add_evaluate(commands: argparse._SubParsersAction) -> None:
    """The ``evaluate`` subcommand: trec_eval's flags, long names and rankkit's own."""
    ev = commands.add_parser(
        "evaluate",
        help="score a TREC run against judgments (trec_eval's output by default)",
        usage="%(prog)s [options] QRELS RUN [RUN ...]",
        description=EVALUATE_EXAMPLES,
        epilog=metric_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", metavar="QRELS", help="judgments: qid iter docno rel (.gz too)")
    ev.add_argument("runs", metavar="RUN", nargs="+",
                    help="run: qid Q0 docno rank score tag (.gz too; - reads standard input); several runs are "
                         "evaluated in turn, each printed as trec_eval prints it, told apart by its runid line "
                         "(with -m, add -m runid; or --format csv|json, which name each run)")
    ev.add_argument(
        "-m", "--metric", "--measure", action="append", dest="metrics", metavar="SPEC",
        help="measure, repeatable: a trec_eval name (map, P.5,10, ndcg_cut, rbp.p=0.8), a "
             "nickname (official, all_trec, set) or a rankkit spec (nDCG(gain='exp')@10); "
             "default: official, trec_eval's default",
    )
    ev.add_argument("-q", "--per-query", "--query_eval_wanted", action="store_true",
                    help="print each query's values, then the 'all' line (trec_eval -q)")
    ev.add_argument("-c", "--judged-queries", "--complete_rel_info_wanted", action="store_true",
                    help="score every judged query; those missing from the run score 0 (trec_eval -c)")
    ev.add_argument("-n", "--no-summary", "--nosummary", action="store_true",
                    help="no 'all' lines (trec_eval -n)")
    ev.add_argument("-M", "--depth", "--Max_retrieved_per_topic", type=_positive_int, metavar="DEPTH",
                    help="keep only the top DEPTH documents of each query (trec_eval -M)")
    ev.add_argument("-l", "--level", "--level_for_rel", type=_positive_float, metavar="LEVEL",
                    help="relevance level: label >= LEVEL is relevant (trec_eval -l; default 1)")
    ev.add_argument("-J", "--judged-only", "--Judged_docs_only", action="store_true",
                    help="score only the judged documents of each ranking (trec_eval -J)")
    ev.add_argument("-N", "--n-docs", "--Number_docs_in_coll", type=_nonnegative_int, metavar="N",
                    help="number of documents in the collection, for utility (trec_eval -N)")
    ev.add_argument("-R", "--relevance-format", "--Read_relevance_format", default="qrels",
                    choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
                    help="form of QRELS (trec_eval -R): qrels (default); prefs, lines 'qid jg jsg docno rel_level' "
                         "(preferences); qrels_prefs, a qrels file read as preferences; qrels_jg, a qrels file whose "
                         "second column names a judgment group. Measures: -m all_prefs|prefs|prefs_simp|... "
                         "(default prefs) or -m qrels_jg|map_avgjg|P_avgjg|Rprec_mult_avgjg (default qrels_jg)")
    ev.add_argument("-Z", "--Zscore", metavar="FILE",
                    help="print z-scores: (value - mean) / stddev of each query and measure, from FILE's lines "
                         "'qid measure mean stddev'; -1000000 where FILE has none (trec_eval -Z)")
    ev.add_argument("-v", "--version", action="version", version=f"{PROG} {__version__} (trec_eval 10.0 measures)",
                    help="print the version and exit")
    ev.add_argument("--ties", choices=TIE_POLICIES, default="docno",
                    help="order of equal scores (default: docno, trec_eval's)")
    ev.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                    help="trec: trec_eval's lines (default); csv: a table; json: an object")
    ev.add_argument("--memory", type=_memory, default=None, metavar="SIZE",
                    help="peak memory to stay near: the run is read block by block of whole queries "
                         "(e.g. 600MB, 2GB; default 480MiB); the output is the same")
    ev.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                    help="a progress bar on stderr while the run is read (default: when stderr is a terminal)")
    ev.set_defaults(handler=_cmd_evaluate)


def _add_compare(commands: argparse._SubParsersAction) -> None:
    """The ``compare`` subcommand: paired tests of two or more runs."""
    cmp = commands.add_parser(
        "compare",
        help="compare runs on the same queries: paired test, interval, effect size",
        usage="%(prog)s [options] QRELS RUN RUN [RUN ...]",
        description=COMPARE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmp.add_argument("qrels", metavar="QRELS", help="judgments: qid iter docno rel (.gz too)")
    cmp.add_argument("runs", metavar="RUN", nargs="*",  # none: a run given as QRELS is told (_qrels_first)
                     help="two or more runs (one with --baseline FILE); each is named by its file name (by its "
                          "path when two file names are the same)")
    cmp.add_argument("-m", "--metric", "--measure", action="append", dest="metrics", metavar="SPEC",
                     help="measure, repeatable, read as evaluate's -m reads it (trec_eval names and "
                          "parameter lists, nicknames, rankkit specs); default: the measures of official, "
                          "trec_eval's default, that are means over queries (map, Rprec, bpref, recip_rank, "
                          "iprec_at_recall_0.00 ... 1.00, P_5 ... P_1000). A nickname (official, set, "
                          "all_trec) gives its per-query means too: runid, gm_map (a geometric mean) and the "
                          "counts num_* are left out unless named")
    cmp.add_argument("--test", choices=("t", "randomization", "bootstrap", "wilcoxon", "tukey"), default="t",
                     help="paired test (default: t)")
    cmp.add_argument("--correction", choices=("holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg",
                                             "hochberg", "hommel", "fdr_bh", "bh", "fdr_by", "by", "none"),
                     default=None, help="multiple-comparison correction per metric (default: holm; none "
                                        "with --test tukey, whose p-values cover all pairs already)")
    cmp.add_argument("--baseline", metavar="NAME",
                     help="run every other run is compared with: its file name, with or without its "
                          "extension (bm25 for bm25.run), or its path; or a run file that is not among "
                          "the RUNs, compared first (default: every pair)")
    cmp.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    cmp.add_argument("--resamples", type=_positive_int, default=10_000,
                     help="randomization / bootstrap resamples (default: 10000)")
    cmp.add_argument("--seed", type=int, default=0, help="resampling seed (default: 0)")
    cmp.add_argument("-c", "--judged-queries", action="store_true",
                     help="score every judged query; those missing from a run score 0 (trec_eval -c)")
    cmp.add_argument("--ties", choices=TIE_POLICIES, default="docno",
                     help="order of equal scores (default: docno, trec_eval's)")
    cmp.add_argument("--format", choices=("text", "markdown", "latex", "csv"), default="text",
                     help="text (default), markdown, latex or csv (every column)")
    cmp.add_argument("--delta", type=_positive_float, metavar="DIFF",
                     help="a mean difference worth detecting: adds the queries a paired t-test needs to "
                          "detect it and the smallest difference it detects with the queries compared "
                          "(Sakai's topic set size design; default: neither)")
    cmp.add_argument("--power", type=float, default=0.8,
                     help="power of --delta's two columns, in (alpha, 1) (default: 0.8)")
    gate = cmp.add_argument_group("gate for CI (exit status 1 when a condition holds)")
    gate.add_argument("--fail-if", action="append", default=[], metavar="CONDITION",
                      help="'METRIC < -MARGIN' or 'METRIC < -PERCENT%%' (of the baseline's mean), "
                           "repeatable, with --baseline: holds when a run's mean difference to the baseline "
                           "is below it and significant (p adj. < alpha). METRIC is read as -m reads it and "
                           "compared even if not given with -m (without -m, only the conditions' metrics)")
    gate.add_argument("--markdown", metavar="FILE",
                      help="write a Markdown summary (verdict, conditions, every comparison) to FILE, "
                           "for a pull-request comment")
    gate.add_argument("--junit", metavar="FILE",
                      help="write a JUnit XML report to FILE: one test case per condition and run")
    cmp.set_defaults(handler=_cmd_compare)


def _add_fuse(commands: argparse._SubParsersAction) -> None:
    """The ``fuse`` subcommand: one TREC run from several (:func:`rankkit.fuse`)."""
    fu = commands.add_parser(
        "fuse",
        help="fuse runs into one TREC run (RRF, CombSUM, weighted sums, ...; ranx's methods)",
        usage="%(prog)s [options] RUN RUN [RUN ...]",
        description="Fuse runs (e.g. a lexical and a dense one) per query and print the fused TREC run.\n\n"
                    "  rankkit fuse bm25.run dense.run -m rrf > fused.run\n"
                    "  rankkit fuse bm25.run dense.run -m wsum --norm min-max --weights 0.3 0.7 -o fused.run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fu.add_argument("runs", metavar="RUN", nargs="+", help="two or more runs holding the same queries (.gz too)")
    # names checked by rankkit.fuse (its message lists them): the parser stays free of pandas
    fu.add_argument("-m", "--method", default="rrf", metavar="METHOD",
                    help="fusion method, ranx's names: rrf (default), sum, wsum, max, min, med, anz, mnz, gmnz, "
                         "wmnz, mixed, isr, log_isr, logn_isr, rbc, bordafuse, w_bordafuse, condorcet, w_condorcet; "
                         "learned from --qrels: probfuse, segfuse, slidefuse, posfuse, mapfuse, bayesfuse")
    fu.add_argument("--qrels", metavar="QRELS", help="training judgments (learned methods): the runs' queries they "
                                                     "judge train, every query is fused")
    fu.add_argument("--segments", type=int, help="probfuse's number of segments")
    fu.add_argument("--window", type=int, help="slidefuse's window half-width w")
    fu.add_argument("--norm", default="min-max", metavar="NORM",
                    help="score normalisation per query: min-max (default, ranx's), min-max-inverted, max, sum, "
                         "zmuv, rank, borda, or none (scores as given)")
    fu.add_argument("--weights", type=float, nargs="+", metavar="W",
                    help="one weight per run (wsum, wmnz, mixed, w_bordafuse; default 1 each)")
    fu.add_argument("-k", type=float, default=60, help="RRF's k (default: 60)")
    fu.add_argument("--phi", type=float, help="RBC's persistence in (0, 1)")
    fu.add_argument("--gamma", type=float, help="CombGMNZ's exponent")
    fu.add_argument("--sigma", type=float, default=0.01, help="logn_isr's sigma (default: 0.01)")
    fu.add_argument("-o", "--output", metavar="OUT", help="write the run to OUT (default: standard output)")
    fu.add_argument("--tag", default=None, help="run tag, the last column (default: the method)")
    fu.set_defaults(handler=_cmd_fuse)


def _write(table: pd.DataFrame, summary: pd.Series, args: argparse.Namespace, out: TextIO) -> None:
    if args.format == "trec":
        for line in trec_lines(table, summary, per_query=args.per_query, summary_lines=not args.no_summary):
            out.write(line + "\n")
        return
    counts = _count_columns(table)
    if args.format == "csv":
        import pandas as pd

        rows = table if args.per_query else table.iloc[:0]
        ids = [str(q) for q in rows.index]
        if not args.no_summary:  # appended as objects: pandas would make a run tag str
            total = pd.DataFrame([summary.tolist()], columns=rows.columns, dtype=object)
            rows, ids = pd.concat([rows.reset_index(drop=True), total], ignore_index=True), [*ids, "all"]
        rows = rows.set_axis(query_index(ids), axis=0)  # str, or object for escaped bytes
        for column in counts:  # 196, as trec_eval prints them, not 196.0
            rows[column] = [_plain(v, True) for v in rows[column]]
        rows.to_csv(out, index_label="query_id", lineterminator="\n")
        return
    document = {
        "metrics": table.attrs.get("metrics", {}),
        "unscored": {str(q): why for q, why in table.attrs.get("unscored", {}).items()},
    }
    if not args.no_summary:
        document["all"] = {c: _plain(v, c in counts) for c, v in summary.items()}
    if args.per_query:
        document["queries"] = {
            str(qid): {c: _plain(v, c in counts) for c, v in zip(table.columns, row)}
            for qid, row in zip(table.index, table.itertuples(index=False, name=None))
        }
    json.dump(document, out, indent=2)
    out.write("\n")


def _count_columns(table: pd.DataFrame) -> set[str]:
    """The columns trec_eval prints as integers (num_q, num_ret, ...), unless -Z made them z-scores."""
    if table.attrs.get("zscores", False):
        return set()
    specs = table.attrs.get("metrics", {})
    return {c for c in table.columns if parse_metric(specs.get(c, c)).info.kind == "int"}


def _plain(value, count: bool = False):
    if isinstance(value, str) or value is None:
        return value
    value = float(value)
    return int(value) if count and value.is_integer() else value


def _cmd_evaluate(args: argparse.Namespace, out: TextIO) -> None:
    if args.relevance_format != "qrels":
        return _cmd_evaluate_preferences(args, out)
    columns = trec_measures(args.metrics)  # bad measures fail before any file is read
    if args.level is not None and args.level != int(args.level):
        warnings.warn(f"-l {args.level:g} is not an integer; rankkit uses it (label >= {args.level:g} is "
                      f"relevant), trec_eval would use {int(args.level)}", UserWarning, stacklevel=2)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    settings = Settings(ties=args.ties, queries="qrels" if args.judged_queries else "run", depth=args.depth,
                        rel=args.level, judged_only=args.judged_only, n_docs=args.n_docs, memory=args.memory,
                        progress=progress, memory_in_use=process.memory_in_use if process.owned() else None)
    if "-" in args.runs and len(args.runs) > 1:
        raise ValueError("standard input (-) can only be the one RUN")
    if len(args.runs) > 1 and args.format == "trec" and not any(m.name == "runid" for m in columns.values()):
        warnings.warn(f"{len(args.runs)} runs, one after the other, with nothing telling their lines apart: "
                      "add -m runid (their tags) or use --format csv (a column run)", UserWarning, stacklevel=2)
    if args.format == "trec" and args.Zscore is None and not progress and _without_frames(args, columns, settings,
                                                                                          out):
        return
    process.restart_with_pandas()  # the route on arrays did not apply: afresh, with pandas
    from .io.readers import read_qrels

    zscores = read_zscores(args.Zscore) if args.Zscore is not None else None
    qrels = read_qrels(args.qrels) if len(args.runs) > 1 else args.qrels  # read once for every run
    results = []
    for run in args.runs:
        with warnings_named(run if len(args.runs) > 1 else None):  # which run a warning is about
            run = sys.stdin.buffer if run == "-" else run
            results.append(evaluate_like_trec_eval(qrels, run, columns, zscores=zscores, settings=settings))
    if len(results) == 1 or args.format == "trec":
        for table, summary in results:
            _write(table, summary, args, out)
    else:
        _write_runs(results, _run_names(args.runs), args, out)


def _cmd_evaluate_preferences(args: argparse.Namespace, out: TextIO) -> None:
    """``evaluate -R prefs|qrels_prefs|qrels_jg``: trec_eval's lines (:func:`rankkit.trec_eval.preference_text`)."""
    from .trec_eval import preference_text

    form = args.relevance_format
    refused = [flag for flag, given in (("-Z", args.Zscore is not None), ("--format", args.format != "trec"),
                                        ("--ties", args.ties != "docno"), ("-", "-" in args.runs))
               + ((("-l", args.level is not None), ("-J", args.judged_only)) if form != "qrels_jg" else ()) if given]
    if refused:
        raise ValueError(f"-R {form} does not take {', '.join(refused)}")
    out.write(preference_text(args.qrels, args.runs, args.metrics, format=form, per_query=args.per_query,
                              summary_lines=not args.no_summary, queries="qrels" if args.judged_queries else "run",
                              depth=args.depth, **({"rel": args.level, "judged_only": args.judged_only}
                                                   if form == "qrels_jg" else {})))


def _write_runs(results: list, names: list[str], args: argparse.Namespace, out: TextIO) -> None:
    """Several runs as one CSV table (a first column ``run``) or one JSON object (``runs``:
    each run's object, by name)."""
    import io

    if args.format == "csv":
        for i, ((table, summary), name) in enumerate(zip(results, names)):
            text = io.StringIO()
            _write(table, summary, args, text)
            lines = text.getvalue().splitlines(keepends=True)
            out.writelines(["run," + lines[0]] if i == 0 else [])
            field = f'"{name.replace(chr(34), chr(34) * 2)}"' if any(c in name for c in ',"\n') else name
            out.writelines(f"{field},{line}" for line in lines[1:])
        return
    documents = {}
    for (table, summary), name in zip(results, names):
        text = io.StringIO()
        _write(table, summary, args, text)
        documents[name] = json.loads(text.getvalue())
    json.dump({"runs": documents}, out, indent=2)
    out.write("\n")


def _without_frames(args: argparse.Namespace, columns: dict, settings: Settings, out: TextIO) -> bool:
    """trec_eval's lines of two TREC files computed on arrays (:func:`rankkit.trec_eval.trec_eval_text`),
    written to ``out`` with their warnings; False, with nothing written or warned, where
    that path does not apply (it says so with ``Unsupported``). Any other error is the
    command's: raised, never retried along another route. In the command's own process,
    pandas stays unimported meanwhile (:func:`rankkit.process.hide_pandas`)."""
    from .evaluation.frameless import Unsupported

    process.hide_pandas()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            text = trec_eval_text(args.qrels, args.runs, columns, per_query=args.per_query,
                                  summary_lines=not args.no_summary, settings=settings)
    except Unsupported:
        return False
    for warning in caught:
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    out.write(text)
    return True


def _run_names(paths: Sequence[str]) -> list[str]:
    """Name runs by file name (by the path as given when two file names clash)."""
    names = [os.path.basename(p) or p for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    if len(set(names)) < len(names):
        raise ValueError(f"each run must be given once, got {list(paths)!r}")
    return names


def _stems(name: str) -> list[str]:
    """A file name without its extensions, one at a time: bm25.run.gz -> bm25.run, bm25."""
    stems = []
    root, ext = os.path.splitext(name)
    while ext and root:
        stems.append(root)
        root, ext = os.path.splitext(root)
    return stems


def _baseline(baseline: str | None, paths: Sequence[str], names: list[str]) -> str | None:
    """The run ``--baseline`` names: by its name, its path as typed, or either without its
    extension(s) (``bm25`` for ``bm25.run``); a stem shared by two runs is an error."""
    if baseline is None or baseline in names:
        return baseline
    if baseline in paths:
        return names[list(paths).index(baseline)]
    matches = _stem_matches(baseline, paths, names)
    if len(matches) > 1:
        raise ValueError(f"--baseline {baseline!r} could be any of the runs {matches!r}: give one of these names")
    if not matches:
        raise ValueError(f"--baseline must name one of the runs {names!r} (the extension may be left out), "
                         f"got {baseline!r}")
    return matches[0]


def _stem_matches(baseline: str, paths: Sequence[str], names: list[str]) -> list[str]:
    return [n for n, p in zip(names, paths)
            if baseline in _stems(n) or baseline in _stems(os.path.basename(p)) or baseline in _stems(p)]


def _with_baseline_file(baseline: str | None, paths: Sequence[str]) -> tuple[list[str], str | None]:
    """The runs to compare and ``--baseline``: ``paths``, preceded by the baseline when it is a
    file that names none of them (``--baseline prod.run new.run``); a run's file under another
    spelling (``./prod.run``) is that run."""
    paths = list(paths)
    if baseline is None or not os.path.isfile(baseline) or baseline in paths:
        return paths, baseline
    names = _run_names(paths)
    if baseline in names or _stem_matches(baseline, paths, names):
        return paths, baseline
    same = [p for p in paths if os.path.isfile(p) and os.path.samefile(baseline, p)]
    return (paths, same[0]) if same else ([baseline, *paths], baseline)


def _gate_conditions(texts: Sequence[str], specs: Sequence[str] | None, baseline: str | None):
    """The ``--fail-if`` conditions (metric as compare's column) and the measures to compare."""
    from .report import FailIf, parse_fail_if

    if not texts:
        return [], specs
    if baseline is None:
        raise ValueError("--fail-if needs --baseline: the run a change is measured against")
    conditions, extra = [], []
    for text in texts:
        cond = parse_fail_if(text)
        columns = list(trec_measures([cond.metric]))
        if len(columns) != 1:
            raise ValueError(f"--fail-if {text!r}: {cond.metric!r} names {len(columns)} measures "
                             f"({', '.join(columns[:5])}...); name one")
        conditions.append(FailIf(cond.text, columns[0], cond.threshold, cond.relative))
        extra.append(cond.metric)
    kept = _compare_measures(specs) if specs else []
    more = [m for m, c in zip(extra, conditions) if c.metric not in kept]
    return conditions, [*(specs or []), *dict.fromkeys(more)]


def _correction(test: str, correction: str | None) -> str:
    """--correction, by default holm, or none with Tukey's HSD (which covers every pair itself)."""
    if test != "tukey":
        return correction or "holm"
    if correction not in (None, "none"):
        raise ValueError(f"--correction {correction} cannot be used with --test tukey: Tukey's HSD p-values "
                         "already cover every pair; leave --correction out (or give none)")
    return "none"


def _compare_measures(specs: Sequence[str] | None) -> list[str]:
    """The columns compare tests for ``-m``, read as evaluate reads them (trec_eval's order and
    names). A nickname, or no ``-m`` (``official``), gives its measures that are per-query means;
    a measure named outright that has none (runid, relstring, gm_map) is an error."""
    columns = trec_measures(list(specs) if specs else [COMPARE_DEFAULT])
    named = [s for s in specs or () if s not in NICKNAMES]
    explicit = trec_measures(named) if named else {}
    keep = []
    for column, metric in columns.items():
        info = metric.info
        testable = info.kind != "str" and not info.summary_only
        if column in explicit and not testable:
            instead = {"GMAP": "; compare map", "GM_bpref": "; compare bpref"}.get(metric.name, "")
            raise ValueError(f"compare cannot test {column}: it has no per-query number to average "
                             f"({info.summary}){instead}")
        if column in explicit or (testable and info.kind != "int"):
            keep.append(column)
    if not keep:
        raise ValueError(f"no measure of {list(specs)!r} is a mean over queries: name one with -m, e.g. -m map")
    return keep


def _mark(out: TextIO) -> str:
    """The significance mark, the same in every format: a dagger, or * where the output
    cannot encode it (an ASCII terminal)."""
    try:
        "†".encode(getattr(out, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "*"
    return "†"


def _run_line(path: str) -> bool:
    """Whether the first line of the file ``path`` (gzip too) reads like a TREC run's: six
    fields or more, the 4th and 5th (rank, score) numbers. False for anything unreadable."""
    import gzip

    try:
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        with (gzip.open(path, "rb") if gzipped else open(path, "rb")) as f:
            fields = f.readline(1 << 16).split()
        float(fields[3]), float(fields[4])
    except (OSError, EOFError, IndexError, ValueError):
        return False
    return len(fields) >= 6


def _qrels_first(qrels: str, runs: Sequence[str], baseline: str | None) -> None:
    """A run given where the judgments go (``compare --baseline prod.run new.run``, QRELS left
    out) is refused in one line that says what to type, before anything is read."""
    if not _run_line(qrels):
        return
    runs = " ".join([qrels, *runs])
    also = f" --baseline {baseline}" if baseline else ""
    raise ValueError(f"{qrels} is a run (qid Q0 docno rank score tag), not judgments: give the judgments first, "
                     f"rankkit compare QRELS RUN [RUN ...] (here: rankkit compare QRELS {runs}{also})")


def _cmd_compare(args: argparse.Namespace, out: TextIO) -> int:
    # late: scipy (under rankkit.stats) loads for compare alone, not on evaluate's path
    from .report import to_latex, to_markdown, to_text
    from .stats import compare

    _qrels_first(args.qrels, args.runs, args.baseline)
    paths, baseline = _with_baseline_file(args.baseline, args.runs)
    if len(paths) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(paths)}: rankkit compare QRELS RUN RUN [RUN ...], "
                         "or QRELS RUN --baseline FILE")
    names = _run_names(paths)
    baseline = _baseline(baseline, paths, names)
    conditions, specs = _gate_conditions(args.fail_if, args.metrics, baseline)
    metrics = _compare_measures(specs)
    correction = _correction(args.test, args.correction)
    read_qrels = sys.modules[__name__].read_qrels  # this module's attribute (see __getattr__)
    table = compare(
        read_qrels(args.qrels), dict(zip(names, paths)), metrics,
        baseline=baseline, test=args.test, correction=correction, alpha=args.alpha,
        n_resamples=args.resamples, seed=args.seed,
        queries="qrels" if args.judged_queries else "run", ties=args.ties,
        delta=args.delta, power=args.power,
    )
    if args.format == "markdown":
        out.write(to_markdown(table, mark=_mark(out)) + "\n")
    elif args.format == "latex":
        out.write(to_latex(table) + "\n")
    elif args.format == "csv":
        table.to_csv(out, index=False, lineterminator="\n")
    else:
        out.write(to_text(table, digits=4, mark=_mark(out)) + "\n")
    return _gate(table, conditions, args, out) if conditions or args.markdown or args.junit else 0


def _gate(table: pd.DataFrame, conditions: list, args: argparse.Namespace, out: TextIO) -> int:
    """Check the --fail-if conditions: a line each (after a text or Markdown table; on stderr
    after CSV or LaTeX), the --markdown and --junit files; 1 when one holds, else 0."""
    from .report import check_fail_if, gate_junit, gate_lines, gate_markdown

    result = check_fail_if(table, conditions)
    lines = gate_lines(result)
    if lines:
        where = out if args.format in ("text", "markdown") else sys.stderr
        where.write("\n" + "\n".join(lines) + "\n")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(gate_markdown(table, result, mark="†"))
    if args.junit:
        with open(args.junit, "w", encoding="utf-8") as f:
            f.write(gate_junit(result))
    return int(bool(result["failed"].any()))


def _cmd_fuse(args: argparse.Namespace, out: TextIO) -> None:
    from .fusion import fuse, trec_lines

    if len(args.runs) < 2:
        raise ValueError(f"fuse needs two or more runs, got {len(args.runs)}")
    k = int(args.k) if float(args.k).is_integer() else args.k  # ranx's integer arithmetic for k=60
    fused = fuse(list(args.runs), args.method, None if args.norm == "none" else args.norm, args.weights,
                 k=k, phi=args.phi, gamma=args.gamma, sigma=args.sigma, qrels=args.qrels,
                 n_segments=args.segments, window=args.window)
    tag = args.tag if args.tag is not None else args.method
    if args.output is None:
        for block in trec_lines(fused, tag):
            out.write(block)
        return
    with open(args.output, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        for block in trec_lines(fused, tag):
            f.write(block)


def _probability(text: str) -> float:
    """An argparse type: a number in [0, 1] (ndeval's -alpha and -beta)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text!r}")
    return value


def _add_ndeval(commands: argparse._SubParsersAction) -> None:
    """The ``ndeval`` subcommand: ndeval's table of diversity measures (:mod:`rankkit.ndeval`)."""
    nd = commands.add_parser(
        "ndeval",
        help="diversity and intent-aware measures of a run on subtopic judgments (ndeval's table)",
        usage="%(prog)s [options] QRELS RUN",
        description="Print ndeval's table (TREC Web track 2009-2014): ERR-IA, alpha-nDCG, NRBP, MAP-IA, P-IA and "
                    "subtopic recall per topic, then the amean line, as ndeval 4.5 prints them.\n\n"
                    "  rankkit ndeval qrels.diversity.txt run.txt",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    nd.add_argument("qrels", metavar="QRELS", help="subtopic judgments: topic subtopic docno judgment (.gz too)")
    nd.add_argument("run", metavar="RUN", help="run: topic Q0 docno rank score tag, ordered by rank (.gz too)")
    nd.add_argument("-alpha", "--alpha", type=_probability, default=0.5,
                    help="redundancy intolerance of alpha-nDCG, ERR-IA and NRBP (default: 0.5)")
    nd.add_argument("-beta", "--beta", type=_probability, default=0.5, help="NRBP's patience (default: 0.5)")
    nd.add_argument("-traditional", "--traditional", action="store_true",
                    help="order by score, then docno (trec_eval's order), not by the rank column")
    nd.add_argument("-c", "--judged-queries", action="store_true",
                    help="average over every judged topic, not only those of the run")
    nd.add_argument("-M", "--depth", type=_positive_int, metavar="DEPTH",
                    help="keep only the top DEPTH documents of each topic")
    nd.add_argument("-baseline", "--baseline", metavar="RUN",
                    help="print risk-sensitive differences from this baseline run (TREC Web track 2013-2014)")
    nd.add_argument("-riskAlpha", "--risk-alpha", type=_risk_alpha, default="0", metavar="A",
                    help="weight losses against the baseline 1 + A (default: 0)")
    nd.set_defaults(handler=_cmd_ndeval)


def _risk_alpha(text: str) -> str:
    """An argparse type: a number >= 0, kept as written (ndeval prints it in the run's name)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value >= 0.0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return text


def _cmd_ndeval(args: argparse.Namespace, out: TextIO) -> None:
    from .ndeval import ndeval, ndeval_lines

    table = ndeval(args.qrels, args.run, alpha=args.alpha, beta=args.beta, traditional=args.traditional,
                   all_topics=args.judged_queries, depth=args.depth, baseline=args.baseline,
                   risk_alpha=args.risk_alpha)
    for line in ndeval_lines(table):
        out.write(line + "\n")


def _silence(out: TextIO) -> None:
    """Point a broken standard output at /dev/null, so that Python's final flush of its
    buffer does not print "Exception ignored ... BrokenPipeError"."""
    if out is sys.stdout:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def __getattr__(name: str):
    """``read_qrels``, compare's reader of the judgments, imported on first use (with pandas:
    the frames' readers); a module attribute, which tests may replace."""
    if name == "read_qrels":
        from .io.readers import read_qrels

        return read_qrels
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line; an unknown flag is the subcommand's error, with its usage
    (``rankkit evaluate -x``: "usage: rankkit evaluate ...", "unrecognized arguments: -x");
    without a command, the error lists the commands."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    given = list(sys.argv[1:] if argv is None else argv)
    if not any(word in commands.choices or word in ("-h", "--help", "-v", "--version") for word in given):
        names = ", ".join(commands.choices)
        parser.error(f"name a command: {names} ({PROG} COMMAND -h for its options)"
                     + (f"; unrecognized arguments: {' '.join(given)}" if given else ""))
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        sub = commands.choices.get(getattr(args, "command", None), parser)
        sub.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 a ``compare --fail-if`` condition
    holds, 2 bad input).

    Examples
    --------
    >>> main(["evaluate", "no-such-qrels", "no-such-run", "-m", "P@5"])
    2
    """
    if out is None:
        out = sys.stdout
        if hasattr(out, "reconfigure"):  # ids that are not UTF-8 print back as their bytes
            out.reconfigure(errors="surrogateescape")
    parser = _build_parser()
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:  # argparse has printed the usage message (or the version)
        return int(exc.code) if isinstance(exc.code, int) else 2
    with warnings.catch_warnings(record=True) as caught:
        if not sys.warnoptions:  # else Python's own: PYTHONWARNINGS=ignore::UserWarning silences rankkit's
            warnings.simplefilter("always")
        try:
            status = args.handler(args, out) or 0  # compare's gate: 1 when a --fail-if holds
            out.flush()
        except BrokenPipeError:  # the reader left (| head -1): stop quietly, as a C tool would
            _silence(out)
            return 141
        except (ValueError, OSError) as exc:
            message = exc.strerror + f": {exc.filename}" if isinstance(exc, OSError) and exc.filename else str(exc)
            print(f"{PROG} {args.command}: error: {message}", file=sys.stderr)
            status = 2
        except ModuleNotFoundError as exc:  # an extra not installed (compare's SciPy): one line
            message = missing_extra(exc, f"{PROG} {args.command}")
            if message is None:
                raise
            print(f"{PROG} {args.command}: error: {message}", file=sys.stderr)
            status = 2
    for warning in caught:  # rankkit's own (queries left out, ...) as one line each
        if issubclass(warning.category, UserWarning):
            print(f"{PROG} {args.command}: warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
    return status
