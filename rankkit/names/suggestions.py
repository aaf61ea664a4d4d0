"""Names a spec got wrong: the closest known names for an unknown one, and the refusal of
``MAP@k``, which means two things."""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any

from .metric import make_metric, parse_k
from .records import IR_MEASURES, NAME_ALIASES, NICKNAMES, REGISTRY, TREC_FAMILIES, lookup_name

__all__ = ["refuse_ambiguous", "unknown_message"]


def refuse_ambiguous(name: str, params: dict[str, Any], at: str | None, spec: str) -> None:
    """Refuse ``MAP@k`` (any case) and ``AP@k`` in any case but rankkit's own, unless
    ``normalize=`` says which AP is meant.

    AP over the top k is divided by R, the number of relevant documents, in trec_eval
    (``map_cut_k``), ir_measures (``AP@k``, ``MAP@k``) and ranx (``map@k``); recommender-systems
    libraries such as RecBole divide ``MAP@K`` by min(R, k). The two differ by a large factor
    when R is much larger than k, so a spelling that both communities use is an error naming
    both spellings, not a silent choice; ``AP@k`` (what ``str(Metric)`` prints) and
    ``map_cut_k`` keep trec_eval's meaning, ``AP(normalize='min_k')@k`` is the other. ``MAP``
    without a cutoff means the same thing everywhere and is accepted.
    """
    if name == "AP" or name.lower() not in ("map", "ap") or "normalize" in params:
        return
    given = at if at is not None else params.get("cutoff")
    if given is None:
        return
    k = parse_k(str(given).strip(), spec)
    rest = {p: v for p, v in params.items() if p != "cutoff"}
    as_trec = str(make_metric("AP", rest, k, spec)) + ("" if rest else f" or map_cut_{k}")
    as_recsys = make_metric("AP", {**rest, "normalize": "min_k"}, k, spec)
    raise ValueError(
        f"metric spec {spec!r} is ambiguous: AP over the top {k} is divided by R, the number of "
        f"relevant documents, in trec_eval, ir_measures and ranx (write {as_trec}), and by "
        f"min(R, {k}) in RecBole and other recommender-systems libraries (write {as_recsys})"
    )



_TRAILING_K = re.compile(r"(?P<stem>.*?[A-Za-z])[_.\-]?(?P<k>[0-9]+)")
_MAX_SUGGESTIONS = 4


def unknown_message(name: str, spec: str, params: str | None, k: str | None) -> str:
    """An unknown name's error: the closest known names (rankkit, aliases, ir_measures,
    trec_eval), written with the spec's cutoff and parameters, at most four of them."""
    where = "" if spec.strip() == name else f" in metric spec {spec.strip()!r}"
    found = _suggestions(name, params, k)
    if not found:
        return f"unknown metric {name!r}{where}; no known name is close (all names: rankkit evaluate --help)"
    listed = found[0] if len(found) == 1 else ", ".join(found[:-1]) + " or " + found[-1]
    return f"unknown metric {name!r}{where}; did you mean {listed}? (all names: rankkit evaluate --help)"


def _suggestions(name: str, params: str | None, at: str | None) -> list[str]:
    """Known spellings close to ``name`` (difflib's ratio >= 0.6, case folded). A name ending
    in digits (``ndcg_cut10``, ``P10``) is also tried as a name and a cutoff."""
    k = int(at) if at is not None and at.strip().isdigit() and int(at) > 0 else None
    tries = [(name, k)]
    trailing = _TRAILING_K.fullmatch(name)
    if trailing and k is None and int(trailing["k"]) > 0:
        tries.append((trailing["stem"], int(trailing["k"])))
    pool = _name_pool()
    best: dict[str, tuple[float, int | None]] = {}  # known name (folded) -> its closeness, the cutoff
    for word, cutoff in tries:
        for key in difflib.get_close_matches(word.lower(), pool, n=_MAX_SUGGESTIONS, cutoff=0.6):
            ratio = difflib.SequenceMatcher(None, word.lower(), key).ratio()
            best[key] = max(best.get(key, (0.0, None)), (ratio, cutoff), key=lambda item: item[0])
    top = max((ratio for ratio, _ in best.values()), default=0.0)
    found: dict[str, str] = {}  # folded -> as written: nDCG@10 and NDCG@10 are one suggestion
    uncut: dict[str, str] = {}  # metrics without a cutoff, for a spec that gives one: last
    for key, (ratio, cutoff) in sorted(best.items(), key=lambda item: -item[1][0]):
        if ratio >= top - 0.15:  # far behind the closest: noise
            for known in pool[key]:
                drops_k = cutoff is not None and (known in NICKNAMES or not REGISTRY[_row_of(known)].cutoff)
                for form in _spellings(known, cutoff, params):
                    (uncut if drops_k else found).setdefault(form.lower(), form)
    return [*found.values(), *(f for key, f in uncut.items() if key not in found)][:_MAX_SUGGESTIONS]


#: Names other libraries use, suggested (not accepted: each has more than one meaning somewhere).
_OTHER_NAMES = {
    "hit_rate": "success", "hitrate": "success", "HR": "success", "average_precision": "AP",
    "mean_average_precision": "AP", "reciprocal_rank": "RR", "mean_reciprocal_rank": "RR",
    "r_precision": "Rprec",
}


def _row_of(known: str) -> str:
    """The registry row of a name :func:`_name_pool` holds."""
    if known in TREC_FAMILIES:
        return TREC_FAMILIES[known][0]
    return lookup_name(known) or IR_MEASURES.get(known) or _OTHER_NAMES[known]


@functools.lru_cache(maxsize=1)
def _name_pool() -> dict[str, tuple[str, ...]]:
    """Every name a spec may use, folded to lower case -> the names as written."""
    pool: dict[str, dict[str, None]] = {}
    for name in (*REGISTRY, *NAME_ALIASES, *IR_MEASURES, *TREC_FAMILIES, *NICKNAMES, *_OTHER_NAMES):
        pool.setdefault(name.lower(), {})[name] = None
    return {key: tuple(names) for key, names in pool.items()}


def _spellings(known: str, k: int | None, params: str | None) -> list[str]:
    """How to write a known name with cutoff ``k`` and the spec's parameters: trec_eval's
    ``ndcg_cut_10`` and rankkit's ``nDCG@10``; never a spelling :func:`parse_metric` refuses."""
    if known in NICKNAMES:
        return [known] if params is None else []
    forms = []
    if known in TREC_FAMILIES:
        row, trec = TREC_FAMILIES[known]
        if params is None and (k is None or trec.kind == "cutoffs"):
            forms.append(known if k is None else f"{known}_{k}")
        known = row  # rankkit's spelling of the same metric
    row = _row_of(known)
    if known in _OTHER_NAMES:
        known = row
    info = REGISTRY[row]
    if [p for p in info.required if p != "k"] or ("k" in info.required and k is None):
        return forms
    args = f"({params})" if params is not None else ""
    at = f"@{k}" if k is not None and info.cutoff else ""
    if known.lower() in ("map", "ap") and at:  # MAP@k is refused: both meanings
        return forms + [f"AP{args}{at}", f"AP(normalize='min_k'{', ' + params if params else ''}){at}",
                        *([f"map_cut_{k}"] if params is None else [])]
    forms += [f"{known}{args}{at}", f"{row}{args}{at}"]
    if at and params is None:
        forms += [f"{t.name}_{k}" for t in info.trec if t.kind == "cutoffs"]
    return forms
