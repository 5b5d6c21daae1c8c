"""A read-only view of a spaCy parse with every token attribute the rules read computed once per doc.

spaCy builds a new Python Token object on every `doc[i]`, `.head`, `.children` or `.left_edge`, and decodes a
new string on every `.tag_`, `.dep_` or `.lower_` (measured: 0.2-1.6 us each, most of the rules' time). The
rules read the same few attributes of the same tokens many times per predicate, so `doc_view(doc)` reads them
once from spaCy's arrays into slotted objects that duck-type spaCy's Token, Doc and Span for the attributes the
rules use; anything else falls through to the real spaCy object. The tokens are viewbuild.TokenView, a native
class when the rules are compiled (their typed parameters then read its fields directly).

Identity is kept as spaCy has it: spaCy never returns the same Token object twice, so `tok.head is tok` is
False even for the root (whose head is itself). The view's tokens are shared objects, so the root's `.head` is a
twin (same attributes, another object) whose own `.head` is the root again; `==` compares the position in the
doc as spaCy's Token does.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from spacy.tokens import Doc, Span
from spacy.tokens import Token as SpacyToken

from parser.embedded.viewbuild import TokenView, _edges, build_tokens, release_tokens

VIEW_KEY = "_factcrowd_view"
__all__ = ["RELEASED", "VIEW_KEY", "DocView", "SentView", "TokenView", "_edges", "as_view", "doc_view"]
# what a released view's tokens point their head and edges at (a TokenView field cannot hold None when compiled)
RELEASED: TokenView = TokenView()


def _fall_through(cls: type, spacy_cls: type, real: Callable[[Any], Any]) -> None:
    """Give `cls` a property for each public name of `spacy_cls` it does not define, reading it from `real(self)`
    (the spaCy object the view stands for). One property per name rather than one __getattr__: a class with
    __getattr__ routes every attribute read through a slower hook (and Python cannot specialise reads of its
    slots), and the rules read the slots millions of times."""
    def reader(name: str) -> property:
        def get(self: Any) -> Any:
            return getattr(real(self), name)

        return property(get, doc=f"spaCy's {spacy_cls.__name__}.{name}, read from the real object")

    for name in sorted(n for n in dir(spacy_cls) if not n.startswith("__")):
        if not hasattr(cls, name):
            setattr(cls, name, reader(name))


if "__mypyc_attrs__" not in vars(TokenView):  # running as Python: properties instead of the __getattr__ hook
    del TokenView.__getattr__
    _fall_through(TokenView, SpacyToken, lambda t: t.doc.doc[t.i])


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

    if TYPE_CHECKING:  # at run time: spaCy Span's names through properties (_fall_through)
        def __getattr__(self, name: str) -> Any: ...


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
        release_tokens(self, RELEASED)
        self.clear()
        self.sentences = []
        self.memo = {}

    def has_annotation(self, attr: str | int, *, require_complete: bool = False) -> bool:
        return self.doc.has_annotation(attr, require_complete=require_complete)

    if TYPE_CHECKING:  # at run time: spaCy Doc's names through properties (_fall_through)
        def __getattr__(self, name: str) -> Any: ...

    __hash__ = object.__hash__  # type: ignore[assignment]  # one view per doc; never equal to another

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other


_fall_through(SentView, Span, lambda s: s.doc.doc[s.start : s.end])
_fall_through(DocView, Doc, lambda d: d.doc)


def _build(view: DocView, doc: Doc) -> None:
    """Every token's attributes from spaCy's arrays (one call for all of them, not one object per access)."""
    if len(doc):
        view.sent_start, view.starts = build_tokens(view, doc)
        starts = view.starts
        view.sentences = [SentView(view, s, e) for s, e in zip(starts, starts[1:] + [len(doc)], strict=True)]


def as_view(tok: TokenView | SpacyToken) -> TokenView:
    """The view's token for a spaCy Token (the rules' public functions take either; inside they read views)."""
    if type(tok) is TokenView:
        return tok
    return doc_view(tok.doc)[tok.i]


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
