"""``rk.evaluate_scores`` as the tests of other array libraries read it."""

import warnings

import rankkit as rk

#: The metrics whose one kernel runs on every array library.
SUPPORTED = tuple(name for name, info in rk.names.REGISTRY.items() if info.any_library)


def score_arrays(xp, labels, scores, query, metrics, **options):
    """``rk.evaluate_scores`` on one library's arrays, as (ids, values by spec, aggregates by
    spec, rows per query); the unscored queries' warnings silenced (compared as nan)."""
    specs = [str(m) for m in metrics]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.evaluate_scores(labels, scores, query, specs, **options)
    return table.query, {s: table[s] for s in specs}, {s: table.all[s] for s in specs}, table.n_rows
