"""The embedded backend on sentences whose frames we know by hand (not copied from its output)."""
from __future__ import annotations

from parser import qasrl_slots
from parser.embedded import EmbeddedParser
from parser.types import ParsedText, PredicateFrame


def _frame(parsed: ParsedText, word: str) -> PredicateFrame:
    return next(f for f in parsed.frames if f.text == word)


def _answers(parsed: ParsedText, frame: PredicateFrame) -> dict[str, str]:
    """question -> answer text, taken from the text by the token span (so spans are checked too)."""
    return {qa.question: parsed.span_text(qa.answers[0].start, qa.answers[0].end) for qa in frame.qas}


def test_tokens_and_sentences_carry_character_offsets(embedded: EmbeddedParser) -> None:
    text = "The mayor resigned on Monday.  Protesters cheered outside city hall."
    parsed = embedded.parse(text)
    assert len(parsed.sentences) == 2
    for tok in parsed.tokens:
        assert text[tok.start : tok.end] == tok.text
    second = parsed.sentences[1]
    assert text[second.char_start : second.char_end] == "Protesters cheered outside city hall."
    assert parsed.tokens[second.start].text == "Protesters" and parsed.tokens[second.start].sentence == 1


def test_active_verb_subject_object_time_place(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The police arrested two men in Paris on Tuesday.")
    frame = _frame(parsed, "arrested")
    assert frame.kind == "verbal" and frame.verb_form == "arrest"
    answers = _answers(parsed, frame)
    assert answers["Who arrested someone?"] == "The police"
    assert answers["Who did someone arrest?"] == "two men"
    assert answers["Where did someone arrest someone?"] == "in Paris"
    assert answers["When did someone arrest someone?"] == "on Tuesday"


def test_passive_with_agent_and_reason(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The bridge was closed by engineers because the river flooded.")
    answers = _answers(parsed, _frame(parsed, "closed"))
    assert answers["What was closed?"] == "The bridge"
    assert answers["Who closed something?"] == "engineers"
    assert answers["Why was something closed?"] == "because the river flooded"


def test_negation_modal_and_perfect_tense(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The company will not raise prices. She has visited Rome.")
    raise_q = _answers(parsed, _frame(parsed, "raise"))
    assert raise_q["What won't raise something?"] == "The company"  # companies are "what"
    assert raise_q["What won't something raise?"] == "prices"
    visited = _frame(parsed, "visited")
    by_role = {qa.role: (qa.raw_question[1], parsed.span_text(qa.answers[0].start, qa.answers[0].end)) for qa in visited.qas}
    assert by_role == {"R0": ("has", "She"), "R1": ("has", "Rome")}


def test_controlled_and_coordinated_subjects(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The team wanted to win the cup and celebrated all night.")
    assert _answers(parsed, _frame(parsed, "win"))["Who might win something?"] == "The team"
    celebrated = _answers(parsed, _frame(parsed, "celebrated"))
    assert celebrated["Who celebrated?"] == "The team"
    assert _answers(parsed, _frame(parsed, "wanted"))["What did someone want to do?"] == "to win the cup"


def test_relative_clause_subject_is_its_antecedent(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The man who founded the company died yesterday.")
    founded = _answers(parsed, _frame(parsed, "founded"))
    assert founded["Who founded something?"] == "The man"
    died = _answers(parsed, _frame(parsed, "died"))
    assert died["Who died?"] == "The man who founded the company"
    assert died["When did someone die?"] == "yesterday"


def test_copular_sentence(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("Roselyn Sanchez is an actress.")
    frame = _frame(parsed, "is")
    assert frame.kind == "copular"
    answers = _answers(parsed, frame)
    assert answers["Who is an actress?"] == "Roselyn Sanchez"
    assert answers["What is Roselyn Sanchez?"] == "an actress"


def test_nominal_predicates_take_their_verb_from_the_lexicon(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The examination of the patient by doctors took three hours.")
    frame = _frame(parsed, "examination")
    assert frame.kind == "nominal" and frame.verb_form == "examine"
    answers = _answers(parsed, frame)
    assert answers["Who was examined?"] == "the patient"
    assert answers["Who examined someone?"] == "doctors"


def test_every_question_is_valid(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse(
        "Both were shot in the confrontation with police and have been recovering in hospital since the attack. "
        "Officials said the suspects might have been planning further attacks, which they denied. "
        "If prices keep rising, the bank could raise rates again next month."
    )
    qas = [qa for f in parsed.frames for qa in f.qas]
    assert len(qas) >= 10
    for qa in qas:
        assert qasrl_slots.invalid_reason(qa.raw_question) is None, qa.raw_question
        assert qa.role == qasrl_slots.role_of(qa.raw_question)
        assert all(0 <= a.start < a.end <= len(parsed.tokens) for a in qa.answers)


def test_pretokenized_parse_keeps_the_given_indices(embedded: EmbeddedParser) -> None:
    text = "Storms hit the coast. Thousands lost power."
    rows = [["Storms", 0, 6], ["hit", 7, 10], ["the", 11, 14], ["coast", 15, 20], [".", 20, 21],
            ["Thousands", 22, 31], ["lost", 32, 36], ["power", 37, 42], [".", 42, 43]]
    sentences = [{"start": 0, "end": 5, "text": "Storms hit the coast."}, {"start": 5, "end": 9, "text": "Thousands lost power."}]
    parsed = embedded.parse_pretokenized(text, rows, sentences)
    lost = _frame(parsed, "lost")
    assert lost.token_index == 6 and lost.sentence_index == 1
    spans = {qa.role: (qa.answers[0].start, qa.answers[0].end) for qa in lost.qas}
    assert spans == {"R0": (5, 6), "R1": (7, 8)}


def test_eventive_noun_detection_keeps_agent_nouns_and_drops_people_and_bare_times(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The leader of the party met people in the city after the end of the war last year.")
    nominal = {f.text for f in parsed.frames if f.kind == "nominal"}
    assert "leader" in nominal and "end" in nominal  # agent nouns and short nouns are QANom predicates
    assert not nominal & {"people", "city", "year"}  # groups of people; time / place nouns without an argument


def test_agent_nouns_name_their_doer_and_possessive_pronouns_name_their_antecedent(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The party praised its leader, John Smith.")
    answers = _answers(parsed, _frame(parsed, "leader"))
    assert answers["Who led someone?"] == "John Smith"  # the appositive is the doer
    assert answers["Who was led?"] == "The party"  # "its" answered by the earlier subject
    parsed = embedded.parse("Smith said his decision to resign was final.")
    assert _answers(parsed, _frame(parsed, "decision"))["Who decided something?"] == "Smith"


def test_nominal_arguments_from_light_verbs_conjuncts_and_time_compounds(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The damage caused by the hurricane was severe.")
    assert _answers(parsed, _frame(parsed, "damage")) == {"What damaged something?": "the hurricane"}
    parsed = embedded.parse("The production and distribution of goods stopped after the November elections.")
    assert _answers(parsed, _frame(parsed, "production"))["What was produced?"] == "goods"  # shared of-phrase
    assert _answers(parsed, _frame(parsed, "distribution"))["What was distributed?"] == "goods"
    assert _answers(parsed, _frame(parsed, "elections"))["When did something elect?"] == "November"


def test_nominal_theme_from_infinitive_and_that_clauses(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("Smith announced his decision to resign.")
    assert _answers(parsed, _frame(parsed, "decision")) == {"What was decided?": "to resign", "Who decided something?": "Smith"}
    parsed = embedded.parse("The claim that prices rose was false.")
    assert _answers(parsed, _frame(parsed, "claim")) == {"What was claimed?": "that prices rose"}
