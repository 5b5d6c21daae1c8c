"""A read-only view of a spaCy parse with every token attribute the rules read computed once per doc.

spaCy builds a new Python Token object on every `doc[i]`, `.head`, `.children` or `.left_edge`, and decodes a
new string on every `.tag_`, `.dep_` or `.lower_` (measured: 0.2-1.6 us each, most of the rules' time). The
rules read the same few attributes of the same tokens many times per predicate, so `doc_view(doc)` reads them
once from spaCy's arrays into plain slotted objects that duck-type spaCy's Token, Doc and Span for the
attributes the rules use; anything else falls through to the real spaCy object.

Identity is kept as spaCy has it: spaCy never returns the same Token object twice, so `tok.head is tok` is
False even for the root (whose head is itself). The view's tokens are shared objects, so the root's `.head` is a
twin (same attributes, another object) whose own `.head` is the root again; `==` compares the position in the
doc as spaCy's Token does.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import Any, cast

from spacy.attrs import DEP, HEAD, IDX, IS_ALPHA, LOWER, ORTH, SENT_START, TAG
from spacy.tokens import Doc, Span
from spacy.tokens import Token as SpacyToken

VIEW_KEY = "_factcrowd_view"
_STRINGS: dict[int, str] = {}  # hash -> string: spaCy's hashes are the same in every vocabulary
_STRINGS_CAP = 1 << 20


class TokenView:
    """One token of a parsed doc, with spaCy Token's attribute names."""

    __slots__ = ("i", "doc", "text", "lower_", "tag_", "dep_", "idx", "is_alpha", "head", "lefts", "rights",
                 "children", "n_lefts", "n_rights", "left_edge", "right_edge", "person_", "time_", "span_")
    # the slots' types (annotations only: with __slots__ they make no class attributes)
    i: int
    doc: DocView
    text: str
    lower_: str
    tag_: str
    dep_: str
    idx: int
    is_alpha: bool
    head: TokenView  # None only inside _build, before the roots get their twins
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

    @property
    def sent(self) -> SentView:
        return self.doc.sentences[bisect_right(self.doc.starts, self.i) - 1]

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

    __repr__ = __str__

    def __hash__(self) -> int:
        return hash((self.doc.doc, self.i))  # as spaCy's Token

    def _key(self, other: object) -> Any:
        if isinstance(other, TokenView):
            return other.doc.doc, other.idx
        return getattr(other, "doc", None), getattr(other, "idx", None)

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        doc, idx = self._key(other)
        return doc is self.doc.doc and idx == self.idx

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

    def __getattr__(self, name: str) -> Any:  # only for names not in the slots: the real spaCy Token's
        if name.startswith("__") or name not in _SPACY_TOKEN_NAMES:
            raise AttributeError(name)
        return getattr(self.doc.doc[self.i], name)


_SPACY_TOKEN_NAMES = frozenset(n for n in dir(SpacyToken) if not n.startswith("__"))


class SentView:
    """A sentence of a DocView: iterates TokenViews; anything else comes from the spaCy Span."""

    __slots__ = ("doc", "start", "end")

    def __init__(self, doc: DocView, start: int, end: int):
        self.doc, self.start, self.end = doc, start, end

    def __iter__(self) -> Iterator[TokenView]:
        return iter(self.doc[self.start : self.end])

    def __len__(self) -> int:
        return self.end - self.start

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return self.doc.doc[self.start : self.end][i]
        return self.doc[self.start : self.end][i]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.doc.doc[self.start : self.end], name)


class DocView(list):
    """A parsed doc's tokens as TokenViews: a list, so `doc[i]`, `len(doc)` and iteration cost what a list's do.

    A slice is a list of TokenViews, not a spaCy Span (take `.doc[a:b]` for one); `memo` keeps what the rules
    compute once per doc (subtree spans)."""

    __slots__ = ("doc", "sentences", "starts", "sent_start", "user_data", "vocab", "memo")

    def __init__(self, doc: Doc):
        super().__init__()
        self.doc = doc
        self.user_data = doc.user_data
        self.vocab = doc.vocab
        self.memo: dict[Any, Any] = {}
        self.sentences: list[SentView] = []
        self.starts: list[int] = []  # first token of each sentence
        self.sent_start: list[bool | None] = []  # spaCy's is_sent_start per token
        _build(self, doc)

    @property
    def tokens(self) -> DocView:
        return self

    @property
    def text(self) -> str:
        text = self.user_data.get("_factcrowd_text")
        return text if text is not None else self.doc.text

    def release(self) -> None:
        """Break the view's reference cycles (token <-> head, root <-> twin, view <-> sentences and memo), so that
        reference counting frees it at once and the garbage collector never has to trace it (measured: a tenth of
        the rules' time went to collections of dead views)."""
        for t in self:
            t.head = t.left_edge = t.right_edge = None
        self.clear()
        self.sentences = []
        self.memo = {}

    def has_annotation(self, attr: str | int, *, require_complete: bool = False) -> bool:
        return self.doc.has_annotation(attr, require_complete=require_complete)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.doc, name)

    __hash__ = object.__hash__  # type: ignore[assignment]  # one view per doc; never equal to another

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other


def _strings(doc: Doc, hashes: list[int]) -> list[str]:
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


_EMPTY: tuple[TokenView, ...] = ()
_COLUMNS = [ORTH, LOWER, TAG, DEP, HEAD, IDX, IS_ALPHA, SENT_START]


def _build(view: DocView, doc: Doc) -> None:
    """Every token's attributes from spaCy's arrays (one call for all of them, not one object per access)."""
    n = len(doc)
    if not n:
        return
    columns = doc.to_array(_COLUMNS)
    hashes = cast("list[int]", columns[:, :4].ravel().tolist())  # uint64 string hashes
    strings = iter(_strings(doc, hashes))  # per token: orth, lower, tag, dep
    rel, idx, alpha, start = columns[:, 4:].view("int64").T.tolist()
    heads = [i + r for i, r in enumerate(rel)]
    new = object.__new__
    tokens: list[TokenView] = [new(TokenView) for _ in range(n)]
    view.extend(tokens)
    kids: list[list[TokenView] | None] = [None] * n
    roots: list[TokenView] = []
    # zip takes the four strings of a token from the one iterator in turn
    for t, i, text, lower, tag, dep, x, a, h in zip(tokens, range(n), strings, strings, strings, strings, idx, alpha,
                                                    heads, strict=False):
        t.i = i
        t.doc = view
        t.text = text
        t.lower_ = lower
        t.tag_ = tag
        t.dep_ = dep
        t.idx = x
        t.is_alpha = a == 1
        t.person_ = t.time_ = t.span_ = None
        if h != i:
            t.head = tokens[h]
            k = kids[h]
            if k is None:
                kids[h] = [t]
            else:
                k.append(t)
        else:  # the root: its head is a twin, filled below, so that `root.head is root` stays False as in spaCy
            roots.append(t)
    lefts, rights = _edges(heads)
    for t, i, left, right, k in zip(tokens, range(n), lefts, rights, kids, strict=True):
        t.left_edge = tokens[left]
        t.right_edge = tokens[right]
        if k is None:
            t.children = t.lefts = t.rights = _EMPTY
            t.n_lefts = t.n_rights = 0
        else:  # dependents in index order; spaCy counts them all but finds them between the edges only
            nl = 0
            for c in k:
                if c.i > i:
                    break
                nl += 1
            if nl == 0:
                t.n_lefts, t.n_rights = 0, len(k)
                t.lefts = _EMPTY
                t.children = t.rights = tuple(k if k[-1].i <= right else [c for c in k if c.i <= right])
                continue
            ls, rs = k[:nl], k[nl:]
            t.n_lefts, t.n_rights = nl, len(rs)
            if ls[0].i < left:
                ls = [c for c in ls if c.i >= left]
            if rs and rs[-1].i > right:
                rs = [c for c in rs if c.i <= right]
            t.lefts, t.rights = tuple(ls), tuple(rs)
            t.children = t.lefts + t.rights
    for t in roots:
        twin = new(TokenView)
        (twin.i, twin.doc, twin.text, twin.lower_, twin.tag_, twin.dep_, twin.idx, twin.is_alpha, twin.lefts,
         twin.rights, twin.children, twin.n_lefts, twin.n_rights, twin.left_edge, twin.right_edge) = (
            t.i, t.doc, t.text, t.lower_, t.tag_, t.dep_, t.idx, t.is_alpha, t.lefts,
            t.rights, t.children, t.n_lefts, t.n_rights, t.left_edge, t.right_edge)
        twin.person_ = twin.time_ = twin.span_ = None
        twin.head = t
        t.head = twin
    view.sent_start = [None if s == 0 else s > 0 for s in start]
    view.starts = starts = [i for i, s in enumerate(start) if s > 0 or i == 0]
    view.sentences = [SentView(view, s, e) for s, e in zip(starts, starts[1:] + [n], strict=True)]



def doc_view(doc: Doc | Span | DocView) -> DocView:
    """The view of `doc` (or of a Span's doc), built once per doc and kept in its user_data."""
    if isinstance(doc, DocView):
        return doc
    if isinstance(doc, Span):
        doc = doc.doc
    view = doc.user_data.get(VIEW_KEY)
    if view is None:
        view = doc.user_data[VIEW_KEY] = DocView(doc)
    return view
