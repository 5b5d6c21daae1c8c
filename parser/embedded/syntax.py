"""Tag classes and token spans read off a spaCy parse: the vocabulary every rule module shares."""
from __future__ import annotations

from typing import Final

from spacy.attrs import DEP
from spacy.tokens import Doc, Span

from parser.embedded.view import DocView, TokenView

PUNCT_TAGS: Final = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", '"', "$"}) - {"$"}
EDGE_DEPS: Final = frozenset({"cc", "punct", "preconj"})
TRIM_END_DEPS: Final = frozenset({"cc", "punct"})
VERB_TAGS: Final = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
NOUN_TAGS: Final = frozenset({"NN", "NNS"})
PROPER_TAGS: Final = frozenset({"NNP", "NNPS"})
SUBJ_DEPS: Final = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
AUX_DEPS: Final = frozenset({"aux", "auxpass"})
RELATIVE_WORDS: Final = frozenset({"who", "whom", "which", "that", "whose", "where", "when"})


def trim(doc: Doc | Span, start: int, end: int) -> tuple[int, int]:
    """Drop punctuation, conjunctions and complementisers at the edges of a span."""
    while start < end:  # one Token object per position: each doc[i] builds a new one
        tok = doc[start]
        if tok.tag_ not in PUNCT_TAGS and tok.dep_ not in EDGE_DEPS:
            break
        start += 1
    while end > start:
        tok = doc[end - 1]
        if tok.tag_ not in PUNCT_TAGS and tok.dep_ not in TRIM_END_DEPS:
            break
        end -= 1
    return start, end


NOMINAL_HEAD_TAGS: Final = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "CD"})
ASIDE_DEPS: Final = frozenset({"appos", "acl", "relcl", "amod", "advmod", "npadvmod", "parataxis", "prep"})


def subtree_span(tok: TokenView, stop: TokenView | None = None) -> tuple[int, int]:
    """The token's subtree as a span; when `stop` (a dependent inside it) is given, cut the span before it.

    A noun phrase ends before an aside set off by a comma or a bracket ("The Phoenicians, the first to sail
    around Africa", "Tree branches, especially of conifers"): QA-SRL annotators answer with the phrase before it.
    """
    if stop is None and type(tok) is TokenView:  # the same phrases are asked about for many predicates
        found = tok.span_
        if found is None:
            found = tok.span_ = _subtree_span(tok, None)
        return found
    doc = tok.doc
    memo = doc.memo if isinstance(doc, DocView) else None
    if memo is not None:
        key = (tok.i, -1 if stop is None else stop.i)
        found = memo.get(key)
        if found is not None:
            return found
        found = memo[key] = _subtree_span(tok, stop)
        return found
    return _subtree_span(tok, stop)


def _subtree_span(tok: TokenView, stop: TokenView | None) -> tuple[int, int]:
    start, end = tok.left_edge.i, tok.right_edge.i + 1
    if stop is not None:
        if stop.i > tok.i:
            end = min(end, stop.left_edge.i)
        else:
            start = max(start, stop.right_edge.i + 1)
    if tok.n_rights and tok.tag_ in NOMINAL_HEAD_TAGS:
        end = min(end, _aside_start(tok, end))
    return trim(tok.doc, start, end)


def _aside_start(tok: TokenView, end: int) -> int:
    """Where the first comma- or bracket-led aside after a noun head begins (`end` when there is none)."""
    doc = tok.doc
    for c in tok.rights:
        if c.i >= end:
            break
        first = c.left_edge.i
        if c.dep_ in ASIDE_DEPS and first > tok.i + 0 and doc[first - 1].text in {",", "(", "-LRB-", "--"}:
            return first - 1
        if c.dep_ in ASIDE_DEPS and doc[first].text in {"(", "-LRB-"}:
            return first
    return end


def without(tok: TokenView, inner: TokenView) -> tuple[int, int]:
    """`tok`'s subtree minus the part that holds `inner` (e.g. the quoted clause minus 'he said')."""
    start, end = tok.left_edge.i, tok.right_edge.i + 1
    if inner.left_edge.i > tok.i:
        end = inner.left_edge.i
    elif inner.right_edge.i < tok.i:
        start = inner.right_edge.i + 1
    return trim(tok.doc, start, end)


def np_antecedent(noun: TokenView, clause: TokenView) -> tuple[int, int]:
    """The noun phrase a relative or participial clause modifies, without that clause."""
    return subtree_span(noun, stop=clause)


def doc_text(doc: Doc | DocView) -> str:
    """doc.text rebuilds the string from every token on each access: keep it once per doc."""
    text = doc.user_data.get("_factcrowd_text")
    if text is None:
        text = doc.user_data["_factcrowd_text"] = doc.text
    return text


def span_text(doc: Doc | DocView, span: tuple[int, int]) -> str:
    """The text of a token span with its inner spacing, as spaCy's `doc[a:b].text` (no Span built)."""
    start, end = span
    if start >= end:
        return ""
    last = doc[end - 1]
    return doc_text(doc)[doc[start].idx : last.idx + len(last.text)]


def conj_heads(doc: Doc | DocView) -> frozenset[int]:
    """Indices of the tokens that have a `conj` dependent, read once per parse: most arguments have none, and
    finding that out through `tok.children` scans the whole subtree each time."""
    found = doc.user_data.get("_factcrowd_conj_heads")
    if found is None:
        if isinstance(doc, DocView):
            found = frozenset([t.head.i for t in doc if t.dep_ == "conj"])
        else:
            conjuncts = (doc.to_array(DEP) == doc.vocab.strings["conj"]).nonzero()[0].tolist()
            found = frozenset(doc[i].head.i for i in conjuncts)
        doc.user_data["_factcrowd_conj_heads"] = found
    return found


def first_child(tok: TokenView, deps: str | frozenset[str] | set[str]) -> TokenView | None:
    """The first dependent of `tok` with one of `deps` (a preposition's object, a verb's agent phrase)."""
    if not (tok.n_lefts or tok.n_rights):  # no dependents: skip spaCy's scan for them
        return None
    if isinstance(deps, str):
        for g in tok.children:
            if g.dep_ == deps:
                return g
        return None
    for g in tok.children:
        if g.dep_ in deps:
            return g
    return None


def covers(tok: TokenView, i: int) -> bool:
    """Whether token index `i` lies inside `tok`'s subtree."""
    return tok.left_edge.i <= i <= tok.right_edge.i
