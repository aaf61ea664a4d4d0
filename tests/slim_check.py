"""What the slim install (``pip install .``: NumPy and array-api-compat alone) must
do: the metric functions and ``evaluate_scores`` work, and a name that needs an extra says
which in one line. Run by ``make test-slim`` in a virtual environment holding only those,
and by tests/test_slim.py with the other libraries hidden."""

import numpy as np

import rankkit as rk


def main() -> None:
    assert rk.precision([1, 0, 1, 1], k=2) == 0.5
    assert abs(rk.ndcg([3, 2, 0, 1], k=4) - 0.9854419388428785) < 1e-15
    assert rk.average_precision([1, 0, 1]) == (1 + 2 / 3) / 2
    assert rk.auc([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1]) == 0.75
    assert rk.kendall_tau([1, 2, 3], [1, 3, 2]) == 1 / 3
    table = rk.evaluate_scores(np.array([1, 0, 1, 0, 2, 0]), np.array([0.9, 0.8, 0.3, 0.1, 0.5, 0.7]),
                               np.array([1, 1, 2, 2, 3, 3]), metrics=["nDCG@10", "AUC", "GAUC", "PNR", "AP", "MSE"])
    # pooled AUC by hand: positives 0.9, 0.3, 0.5 against negatives 0.8, 0.1, 0.7: 3 + 1 + 1 of 9 pairs
    assert float(table.all["AUC"]) == 5 / 9 and list(table.query) == [1, 2, 3], (table.all, table.query)
    assert "\nall: nDCG@10: " in repr(table) and 'pip install ".[runs]"' in repr(table), repr(table)  # no pandas
    for name, extra in (("evaluate", "runs"), ("read_run", "runs"), ("compare", "runs"), ("plot", "runs")):
        try:
            getattr(rk, name)
        except ModuleNotFoundError as err:
            message = str(err)
            assert f'pip install ".[{extra}]"' in message and "\n" not in message, message
        else:
            raise AssertionError(f"rk.{name} loaded: this check runs where pandas is not installed (or is hidden)")
    print("slim install: the metric functions and evaluate_scores work with", ", ".join(
        f"{m} {__import__(m).__version__}" for m in ("numpy", "array_api_compat")))


if __name__ == "__main__":
    main()
