"""The token view's array work (embedded/view.py): spaCy's columns into the TokenViews' attributes.

Kept apart from view.py so that it compiles with mypyc (scripts/compile_parser.py): DocView subclasses `list`,
which mypyc cannot compile. TokenView lives here: compiled, it is a native class, and the rules, whose token
parameters are typed TokenView, read its attributes as C struct fields (about 9x faster than a generic attribute
lookup on a plain object, which was most of the compiled rules' time). As Python it is a plain slotted class.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import Any, Final

from spacy.attrs import DEP, HEAD, IDX, IS_ALPHA, LOWER, ORTH, SENT_START, TAG

from parser.types import Token

_STRINGS: Final[dict[int, str]] = {}  # hash -> string: spaCy's hashes are the same in every vocabulary
_STRINGS_CAP: Final = 1 << 20
_EMPTY: Final[tuple[Any, ...]] = ()
_COLUMNS: Final = [ORTH, LOWER, TAG, DEP, HEAD, IDX, IS_ALPHA, SENT_START]


class TokenView:
    """One token of a parsed doc (view.py's DocView), with spaCy Token's attribute names.

    spaCy's other names come from the real Token: through `__getattr__` when compiled (a native class takes no
    new attributes), through one property each as Python (view.py: a `__getattr__` hook would slow every read)."""

    __slots__ = ("i", "doc", "text", "lower_", "tag_", "dep_", "idx", "is_alpha", "head", "lefts", "rights",
                 "children", "n_lefts", "n_rights", "left_edge", "right_edge", "person_", "time_", "span_")
    i: int
    doc: Any  # the DocView (view.py)
    text: str
    lower_: str
    tag_: str
    dep_: str
    idx: int
    is_alpha: bool
    head: TokenView  # view.py's RELEASED once the view is released (never None: a native field is typed)
    lefts: tuple[TokenView, ...]
    rights: tuple[TokenView, ...]
    children: tuple[TokenView, ...]
    n_lefts: int
    n_rights: int
    left_edge: TokenView
    right_edge: TokenView
    person_: bool | None  # wordclass.is_person / is_time, cached on the token (None: not asked yet)
    time_: bool | None
    span_: tuple[int, int] | None  # syntax.subtree_span(tok), cached on the token

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.doc.doc[self.i], name)

    @property
    def sent(self) -> Any:
        """The SentView (view.py) holding the token."""
        doc = self.doc
        return doc.sentences[bisect_right(doc.starts, self.i) - 1]

    @property
    def is_sent_start(self) -> bool | None:
        return self.doc.sent_start[self.i]

    @property
    def subtree(self) -> Iterator[TokenView]:
        """In spaCy's order: each left child's subtree, the token, each right child's subtree."""
        for c in self.lefts:
            yield from c.subtree
        yield self
        for c in self.rights:
            yield from c.subtree

    @property
    def ancestors(self) -> Iterator[TokenView]:
        tok = self
        while tok.head.i != tok.i:
            tok = tok.head
            yield tok

    def nbor(self, i: int = 1) -> TokenView:
        return self.doc[self.i + i]

    def __len__(self) -> int:
        return len(self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        return hash((self.doc.doc, self.i))  # as spaCy's Token

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        if isinstance(other, TokenView):
            return other.doc.doc is self.doc.doc and other.idx == self.idx
        return getattr(other, "doc", None) is self.doc.doc and getattr(other, "idx", None) == self.idx

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: Any) -> bool:
        return self.idx < other.idx

    def __le__(self, other: Any) -> bool:
        return self.idx <= other.idx

    def __gt__(self, other: Any) -> bool:
        return self.idx > other.idx

    def __ge__(self, other: Any) -> bool:
        return self.idx >= other.idx


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


def release_tokens(tokens: list[TokenView], released: TokenView) -> None:
    """Point every token's head and edges at `released` (DocView.release: breaks the view's reference cycles)."""
    for t in tokens:
        t.head = released
        t.left_edge = released
        t.right_edge = released


def output_tokens(tokens: list[TokenView], sent_of: list[int]) -> list[Token]:
    """parse_many's Token per token of a built view: its text is the orth string (spaCy's tokens are slices of the
    text), its offsets the view's; read here, compiled, rather than through a second to_array and a Python loop."""
    out: list[Token] = []
    for t in tokens:
        start = t.idx
        out.append(Token(t.i, t.text, start, start + len(t.text), sent_of[t.i]))
    return out


def build_tokens(view: Any, doc: Any) -> tuple[list[bool | None], list[int]]:
    """Fill `view` (a DocView, empty) with one TokenView per token of a non-empty `doc`; returns spaCy's
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
    tokens = [TokenView() for _ in range(n)]
    view.extend(tokens)
    kids: list[list[int] | None] = [None] * n  # dependents' indices, in index order
    roots: list[TokenView] = []
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
        twin = TokenView()
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
