"""The lexical features and the overlap / embedded scorers on hand-made cases whose answer is known."""
from __future__ import annotations

import json

import pytest

from annotation_tasks.scoring import registry
from annotation_tasks.scoring.base import Claim, Reference, Score, ScorerError, score_one
from annotation_tasks.scoring.embedded import DEFAULT_COEFFICIENTS, EmbeddedScorer
from annotation_tasks.scoring.features import ReferenceIndex, qa_features, statement_features
from annotation_tasks.scoring.text import sentences, stem, tokens

ARTICLE = Reference(
    "Muir told BBC Scotland she will miss the Commonwealth Games. "
    "The 24-year-old finished fourth in the 5,000 m at the World Championships in London. "
    "She did not run in Glasgow."
)


def test_stems_match_inflections_and_numbers():
    assert stem("finished") == stem("finishing") == stem("finish")
    assert stem("studies") == stem("study")
    assert stem("5,000") == "5000"
    assert stem("third") == "3rd"
    assert [t.text for t in tokens("isn't")] == ["is", "n't"]
    assert [t.stem for t in tokens("isn't")][-1] == "not"


def test_sentences_split_on_end_punctuation():
    text = "One here. Two there? Three."
    assert [text[a:b] for a, b in sentences(text)] == ["One here.", "Two there?", "Three."]


def test_a_name_the_article_never_gives_is_flagged():
    index = ReferenceIndex.build(ARTICLE)
    given = qa_features(Claim.qa("who finished something?", "Muir", "finished"), index)
    invented = qa_features(Claim.qa("who finished something?", "Laura Muir", "finished"), index)
    assert given["name_missing"] == 0.0 and given["answer_coverage"] == 1.0
    assert invented["name_missing"] == 1.0 and invented["answer_coverage"] == 0.5


def test_a_wrong_number_is_flagged_and_the_right_one_is_not():
    index = ReferenceIndex.build(ARTICLE)
    assert qa_features(Claim.qa("what did someone finish?", "third", "finished"), index)["number_missing"] == 1.0
    assert qa_features(Claim.qa("what did someone finish?", "fourth", "finished"), index)["number_missing"] == 0.0


def test_predicate_and_answer_must_meet_in_one_sentence():
    index = ReferenceIndex.build(ARTICLE)
    # "London" and "finished" share a sentence; "Glasgow" only appears beside "run".
    assert qa_features(Claim.qa("where did someone finish?", "London", "finished"), index)["predicate_answer_sentence"] == 1.0
    assert qa_features(Claim.qa("where did someone finish?", "Glasgow", "finished"), index)["predicate_answer_sentence"] == 0.0


def test_negation_mismatch_against_the_best_sentence():
    index = ReferenceIndex.build(ARTICLE)
    assert statement_features(Claim.fact("She ran in Glasgow."), index)["negation_mismatch"] == 1.0
    assert statement_features(Claim.fact("She did not run in Glasgow."), index)["negation_mismatch"] == 0.0


def test_overlap_is_the_share_of_content_words_found():
    scorer = registry.get_scorer("overlap")
    full = score_one(scorer, ARTICLE, Claim.fact("Muir finished fourth in London."))
    half = score_one(scorer, ARTICLE, Claim.fact("Laura Muir finished in Paris."))
    assert full.value == 1.0
    assert half.value == pytest.approx(2 / 4)  # laura, muir, finished, paris: muir and finished found
    assert half.evidence["missing"] == ["laura", "paris"]


def test_embedded_prefers_the_supported_variant():
    scorer = registry.get_scorer("embedded")
    pairs = [
        (ARTICLE, Claim.qa("who finished something?", "Muir", "finished")),
        (ARTICLE, Claim.qa("who finished something?", "Laura Muir", "finished")),
        (ARTICLE, Claim.qa("what did someone finish?", "fourth in the 5,000 m", "finished")),
        (ARTICLE, Claim.qa("what did someone finish?", "third in the 10,000 m", "finished")),
    ]
    scores = scorer.score_batch(pairs)
    assert all(isinstance(s, Score) and 0 <= s.value <= 1 for s in scores)
    assert scores[0].value > scores[1].value
    assert scores[2].value > scores[3].value
    assert scores[0].evidence["head"] == "qa"
    fact = score_one(scorer, ARTICLE, Claim.fact("Muir finished fourth in London."))
    assert fact.evidence["head"] == "statement"


def test_embedded_version_follows_the_coefficients(tmp_path):
    shipped = EmbeddedScorer()
    data = json.loads(DEFAULT_COEFFICIENTS.read_text())
    data["heads"]["qa"]["intercept"] += 1.0
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    changed = EmbeddedScorer(other)
    assert changed.version != shipped.version
    claim = Claim.qa("who finished something?", "Muir", "finished")
    assert score_one(changed, ARTICLE, claim).value > score_one(shipped, ARTICLE, claim).value


def test_embedded_rejects_broken_coefficients(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"heads": {"qa": {"features": ["answer_coverage"], "coef": [], "intercept": 0},
                                         "statement": {"features": [], "coef": [], "intercept": 0}}}))
    with pytest.raises(ScorerError, match="1 features but 0 coef"):
        EmbeddedScorer(bad)


def test_unknown_scorer_names_the_choices():
    with pytest.raises(registry.UnknownScorer, match="unknown scorer 'minicheck'; choose one of") as caught:
        registry.get_scorer("minicheck")
    assert all(name in str(caught.value) for name in ("embedded", "llm", "nli", "overlap"))


def test_claim_kind_and_score_range_are_checked():
    with pytest.raises(ValueError, match="claim kind"):
        Claim("sentence", "x")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Score(1.5)
