"""The rules read spaCy's parse through parser.embedded.view: every attribute they read must equal spaCy's."""
from __future__ import annotations

import dataclasses

from spacy.tokens import Doc

from parser.embedded import EmbeddedParser
from parser.embedded.rules import copular_frame, nominal_frame, verbal_frame
from parser.embedded.view import TokenView, _edges, doc_view

TEXTS = [
    "Caitlin Hayden, spokeswoman for the White House, reacted to the British vote by saying: \"The US will "
    "continue to consult with the UK Government -- one of our closest allies and friends -- on Syria.\"",
    "Two security guards were injured in the robbery. He said the company would begin an investigation.",
    "Roselyn Sanchez is an actress who was born in Puerto Rico and moved to New York in 1993.",
]


def _attributes(tok) -> tuple:
    return (tok.i, tok.text, tok.lower_, tok.tag_, tok.dep_, tok.idx, tok.is_alpha, tok.is_sent_start, tok.head.i,
            [c.i for c in tok.children], [c.i for c in tok.lefts], [c.i for c in tok.rights], tok.n_lefts,
            tok.n_rights, tok.left_edge.i, tok.right_edge.i, [t.i for t in tok.subtree], (tok.sent.start, tok.sent.end),
            len(tok), str(tok))


def test_view_reads_what_spacy_gives(embedded: EmbeddedParser) -> None:
    docs = list(embedded.nlp.pipe(TEXTS)) + [embedded.nlp(Doc(embedded.nlp.vocab, words="the bombing of the bridge".split()))]
    for doc in docs:
        view = doc_view(doc)
        assert doc_view(doc) is view  # built once per doc
        assert len(view) == len(doc)
        for tok in doc:
            mine = view[tok.i]
            assert isinstance(mine, TokenView)
            assert _attributes(mine) == _attributes(tok)
            assert mine == view[tok.i] and hash(mine) == hash(tok)
            assert mine.shape_ == tok.shape_  # names the view lacks come from spaCy's Token
        # spaCy never hands out the same Token twice: the root's head is not the root, yet equal to it
        root = next(t for t in view if t.dep_ == "ROOT")
        assert root.head is not root and root.head == root and root.head.head is not root.head
        heads = [t.head.i for t in doc]
        assert _edges(heads) == ([t.left_edge.i for t in doc], [t.right_edge.i for t in doc])


def test_edges_follow_spacy_on_non_projective_trees(embedded: EmbeddedParser) -> None:
    vocab = embedded.nlp.vocab
    # the heads spaCy gives TEXTS[0]: arcs cross, and spaCy leaves token 14's right edge at 28, not 38
    crossing = [1, 9, 1, 1, 3, 7, 7, 4, 1, 9, 9, 13, 13, 10, 9, 14, 15, 15, 19, 21, 21, 15, 23, 21, 23, 27, 27, 24,
                21, 19, 29, 33, 33, 30, 33, 33, 29, 29, 37, 9, 9]
    for heads in (crossing, [0, 3, 0, 0], [1, 1, 5, 1, 3, 3, 5]):
        doc = Doc(vocab, words=[f"w{i}" for i in range(len(heads))], heads=heads, deps=["dep"] * len(heads))
        if heads is crossing:
            assert doc[14].right_edge.i != max(t.i for t in doc[14].subtree)
        assert _edges([t.head.i for t in doc]) == ([t.left_edge.i for t in doc], [t.right_edge.i for t in doc])
        view = doc_view(doc)
        assert [_attributes(t) for t in view] == [_attributes(t) for t in doc]


def test_frames_through_the_view_equal_frames_from_spacy_tokens(embedded: EmbeddedParser) -> None:
    """The rules duck-type the tokens (training and the T5 backend give them spaCy's): both give the same frames."""
    for text in TEXTS:
        frames = embedded.parse(text).frames
        assert frames
        doc = embedded.nlp(text)  # a fresh parse: no view, no cached results
        doc.user_data["_factcrowd_text"] = text
        for frame in frames:
            tok = doc[frame.token_index]
            if frame.kind == "verbal":
                again = verbal_frame(tok, 0, frame.sentence_index)
            elif frame.kind == "copular":
                again = copular_frame(tok, 0, frame.sentence_index)
            else:
                again = nominal_frame(tok, frame.verb_form, 0, frame.sentence_index, confidence=frame.confidence)
            assert dataclasses.asdict(again) == dataclasses.asdict(frame)
