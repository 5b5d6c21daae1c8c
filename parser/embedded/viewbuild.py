"""The token view's array work (embedded/view.py): spaCy's columns into the TokenViews' attributes.

Kept apart from the view's classes so that it compiles with mypyc (scripts/compile_parser.py): DocView subclasses
`list`, which mypyc cannot compile, and the tokens stay plain slotted Python objects, so the rules read them the
same way compiled or not. Every token here is built by `object.__new__` and filled attribute by attribute.
"""
from __future__ import annotations

from typing import Any, Final

from spacy.attrs import DEP, HEAD, IDX, IS_ALPHA, LOWER, ORTH, SENT_START, TAG

_STRINGS: Final[dict[int, str]] = {}  # hash -> string: spaCy's hashes are the same in every vocabulary
_STRINGS_CAP: Final = 1 << 20
_EMPTY: Final[tuple[Any, ...]] = ()
_COLUMNS: Final = [ORTH, LOWER, TAG, DEP, HEAD, IDX, IS_ALPHA, SENT_START]


def _strings(doc: Any, hashes: list[int]) -> list[str]:
    try:
        return list(map(_STRINGS.__getitem__, hashes))
    except KeyError:
        if len(_STRINGS) > _STRINGS_CAP:
            _STRINGS.clear()
        store = doc.vocab.strings
        for h in hashes:
            if h not in _STRINGS:
                _STRINGS[h] = store[h]
        return list(map(_STRINGS.__getitem__, hashes))


def _edges(heads: list[int]) -> tuple[list[int], list[int]]:
    """Each token's left and right subtree edge exactly as spaCy's set_children_from_heads leaves them (a
    forward and a backward pass, repeated while a head lies outside the sentences the edges give, at most 12
    times): for a non-projective parse not always the subtree's extremes, and the rules read spaCy's values."""
    n = len(heads)
    left = list(range(n))
    right = list(range(n))
    loops = 0
    while True:
        for i in range(n):
            h = heads[i]
            if left[i] < left[h]:
                left[h] = left[i]
            if right[i] > right[h]:
                right[h] = right[i]
        for i in range(n - 1, -1, -1):
            h = heads[i]
            if right[i] > right[h]:
                right[h] = right[i]
            if left[i] < left[h]:
                left[h] = left[i]
        if _heads_within_sentences(heads, left) or loops > 10:
            return left, right
        loops += 1


def _heads_within_sentences(heads: list[int], left: list[int]) -> bool:
    starts = {left[i] for i in range(len(heads)) if heads[i] == i}
    if starts <= {0}:  # one sentence from the first token (nearly every doc): every head lies inside it
        return True
    n = len(heads)
    sent_start = 0
    for i in range(n):
        if (i > 0 and i in starts) or i == n - 1:
            for j in range(sent_start, i):
                if heads[j] < sent_start or heads[j] >= i + 1:
                    return False
            sent_start = i
    return True


def build_tokens(view: Any, doc: Any, token_cls: type) -> tuple[list[bool | None], list[int]]:
    """Fill `view` (a DocView, empty) with one `token_cls` per token of a non-empty `doc`; returns spaCy's
    is_sent_start per token and the first token of each sentence."""
    n = len(doc)
    columns = doc.to_array(_COLUMNS)
    hashes: list[int] = columns[:, :4].ravel().tolist()  # uint64 string hashes
    strings = _strings(doc, hashes)  # per token: orth, lower, tag, dep
    rel: list[int]
    idx: list[int]
    alpha: list[int]
    start: list[int]
    rel, idx, alpha, start = columns[:, 4:].view("int64").T.tolist()
    heads = [i + r for i, r in enumerate(rel)]
    new = object.__new__
    tokens: list[Any] = [new(token_cls) for _ in range(n)]
    view.extend(tokens)
    kids: list[list[int] | None] = [None] * n  # dependents' indices, in index order
    roots: list[Any] = []
    for i in range(n):
        t = tokens[i]
        h = heads[i]
        s = 4 * i
        t.i = i
        t.doc = view
        t.text = strings[s]
        t.lower_ = strings[s + 1]
        t.tag_ = strings[s + 2]
        t.dep_ = strings[s + 3]
        t.idx = idx[i]
        t.is_alpha = alpha[i] == 1
        t.person_ = t.time_ = t.span_ = None
        if h != i:
            t.head = tokens[h]
            k = kids[h]
            if k is None:
                kids[h] = [i]
            else:
                k.append(i)
        else:  # the root: its head is a twin, filled below, so that `root.head is root` stays False as in spaCy
            roots.append(t)
    lefts, rights = _edges(heads)
    for i in range(n):
        t = tokens[i]
        left = lefts[i]
        right = rights[i]
        k = kids[i]
        t.left_edge = tokens[left]
        t.right_edge = tokens[right]
        if k is None:
            t.children = t.lefts = t.rights = _EMPTY
            t.n_lefts = t.n_rights = 0
        else:  # dependents in index order; spaCy counts them all but finds them between the edges only
            nl = 0
            for c in k:
                if c > i:
                    break
                nl += 1
            if nl == 0:
                t.n_lefts = 0
                t.n_rights = len(k)
                t.lefts = _EMPTY
                t.children = t.rights = tuple([tokens[c] for c in k if c <= right])
                continue
            ls, rs = k[:nl], k[nl:]
            t.n_lefts = nl
            t.n_rights = len(rs)
            before = tuple([tokens[c] for c in ls if c >= left])
            after = tuple([tokens[c] for c in rs if c <= right])
            t.lefts = before
            t.rights = after
            t.children = before + after
    for t in roots:
        twin: Any = new(token_cls)
        (twin.i, twin.doc, twin.text, twin.lower_, twin.tag_, twin.dep_, twin.idx, twin.is_alpha, twin.lefts,
         twin.rights, twin.children, twin.n_lefts, twin.n_rights, twin.left_edge, twin.right_edge) = (
            t.i, t.doc, t.text, t.lower_, t.tag_, t.dep_, t.idx, t.is_alpha, t.lefts,
            t.rights, t.children, t.n_lefts, t.n_rights, t.left_edge, t.right_edge)
        twin.person_ = twin.time_ = twin.span_ = None
        twin.head = t
        t.head = twin
    sent_start = [None if s == 0 else s > 0 for s in start]
    starts = [i for i, s in enumerate(start) if s > 0 or i == 0]
    return sent_start, starts
