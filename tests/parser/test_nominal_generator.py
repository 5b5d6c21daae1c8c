"""The learned answer generator of nominal arguments (parser.embedded.nominal.generated_arguments): which phrases
it walks to, that the learned signatures are all it walks, and which doers it must never propose. Sentences
written by hand; the expectations are read off their dependency parse."""
from __future__ import annotations

from parser.embedded import EmbeddedParser
from parser.embedded.arguments import noun_governor
from parser.embedded.nominal import (
    GEN_CONTAINS,
    agent_allowed,
    arguments_in_clause,
    generator,
    path_candidates,
    signature_prefixes,
    use_generator,
)


def _noun(embedded: EmbeddedParser, text: str, word: str):
    return next(t for t in embedded.nlp(text) if t.text == word)


def _last_edge(sig: str) -> str:
    return sig.rsplit("|", 1)[-1].rsplit(">", 1)[-1]


def test_signatures_name_the_path_from_the_noun(embedded: EmbeddedParser) -> None:
    n = _noun(embedded, "Smith said that the company would begin an investigation in Paris.", "investigation")
    found = path_candidates(n)
    assert (GEN_CONTAINS, n, (n.left_edge.i, n.right_edge.i + 1)) in [(s, h, sp) for s, h, sp in found if h.i == n.i]
    for sig, head, span in found:
        if sig.startswith(GEN_CONTAINS):
            assert span[0] <= n.i < span[1]  # a phrase holding the noun
            continue
        edge = f"prep:{head.lower_}" if head.dep_ == "prep" else head.dep_
        assert _last_edge(sig) == edge and not span[0] <= n.i < span[1]
        assert sig.count("^") + bool(sig.split("|")[0]) + sig.split("|")[1].count(">") + 1 <= 3  # within 3 edges
    subjects = {n.doc[sp[0]:sp[1]].text for sig, _, sp in found if _last_edge(sig) == "nsubj"}
    assert "the company" in subjects


def test_learned_prefixes_walk_to_exactly_the_wanted_signatures(embedded: EmbeddedParser) -> None:
    n = _noun(embedded, "Protesters gathered in the square during the withdrawal phase of the army.", "withdrawal")
    everything = path_candidates(n)
    assert everything
    for sig in {s for s, _, _ in everything}:
        walked = path_candidates(n, {sig}, signature_prefixes([sig]))
        assert [(s, h.i, sp) for s, h, sp in walked] == [(s, h.i, sp) for s, h, sp in everything if s == sig]


def test_a_doer_is_only_generated_as_an_active_clause_subject(embedded: EmbeddedParser) -> None:
    assert agent_allowed("dobj|nsubj") and agent_allowed("pobj^prep:in^dobj|nsubj")
    assert not agent_allowed("compound^dobj|nsubj")  # "they made the investment decision": who invested?
    assert not agent_allowed("conj|nsubj") and not agent_allowed("pobj^agent|nsubjpass")
    assert not agent_allowed("dobj|dobj")  # an object is no doer
    n = _noun(embedded, "They announced the investment decision.", "investment")
    sigs = {s for s, _, _ in path_candidates(n)}
    compound_subjects = {s for s in sigs if s.split("|")[0].startswith("compound") and _last_edge(s) == "nsubj"}
    assert compound_subjects  # the path exists ...
    use_generator({s: ("agent", "") for s in compound_subjects})
    try:
        found = arguments_in_clause(n, "invest", noun_governor(n))
    finally:
        use_generator(None)
    assert not [a for a in found.generated if a.rule[4:] in compound_subjects]  # ... and is never asked


def test_a_copular_complement_of_the_noun_is_never_generated(embedded: EmbeddedParser) -> None:
    n = _noun(embedded, "The claim that prices rose was false.", "claim")
    assert "false" not in {n.doc[sp[0]:sp[1]].text for _, _, sp in path_candidates(n)}


def test_the_artefact_generator_asks_only_valid_slots() -> None:
    table = generator()
    assert table
    for sig, (kind, wh) in table.items():
        assert kind in {"agent", "obj", "adj"}
        assert kind != "agent" or agent_allowed(sig)
        assert (wh == "") == (kind != "adj")
