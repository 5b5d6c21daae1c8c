"""Build realistic units for work tests, e2e tests and bench/bench_first_label.py.

Responses carry secrets a worker must never see (system names, metadata, gold explanations) so tests can
assert on the serialized payload.
"""
from __future__ import annotations

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    AtomicFact,
    Batch,
    GoldLabel,
    Predicate,
    Project,
    Response,
    Source,
)
from annotation_tasks.services.units import compose_units

SECRET_SYSTEM = "secret-system-gpt-x"
SECRET_META = "secret-metadata-value"
GOLD_EXPLANATION = "gold-explanation-do-not-leak"

NAMES = ["Anna", "Boris", "Chen", "Dana", "Emil", "Farah", "Goran", "Hana", "Ivan", "Jana"]
CITIES = ["Paris", "Lyon", "Oslo", "Rome", "Kyiv", "Lima", "Riga", "Baku", "Doha", "Kobe"]


def _tokenize(words: list[str]) -> tuple[str, list[list]]:
    text, tokens, pos = "", [], 0
    for w in words:
        if text:
            text += " "
            pos += 1
        tokens.append([w, pos, pos + len(w)])
        text += w
        pos += len(w)
    return text, tokens


def make_response(project: Project, source: Source, ext: str, n_qas: int, system: str = SECRET_SYSTEM,
                  with_facts: bool = False, gold: bool = True) -> Response:
    """A response of n_qas sentences "Name visited City ." — one predicate, one QA and one span per sentence."""
    words: list[str] = []
    sentences = []
    for k in range(n_qas):
        start = len(words)
        sent = [NAMES[k % 10], "visited", CITIES[(k * 3 + len(ext)) % 10], "."]
        words.extend(sent)
        sentences.append({"start": start, "end": start + 4, "text": " ".join(sent), "is_relevant": True})
    text, tokens = _tokenize(words)
    response = Response.objects.create(
        project=project, source=source, external_id=ext, system=system, text=text, tokens=tokens,
        sentences=sentences, metadata={"secret": SECRET_META},
    )
    for k, sent in enumerate(sentences):
        s = sent["start"]
        pred = Predicate.objects.create(response=response, token_index=s + 1, text="visited", verb_form="visit",
                                        sentence_index=k)
        qa = QA.objects.create(response=response, predicate=pred, question="Who visited something?",
                               answer=words[s], answer_start=s, answer_end=s + 1, order=k,
                               metadata={"secret": SECRET_META})
        span = AnswerSpan.objects.create(response=response, start=s, end=s + 1, text=words[s], order=k)
        span.qas.add(qa)
        if gold and k == 0:
            GoldLabel.objects.create(span=span, value="covered", explanation=GOLD_EXPLANATION)
            GoldLabel.objects.create(qa=qa, value="supported", explanation=GOLD_EXPLANATION)
        if with_facts:
            f1 = AtomicFact.objects.create(response=response, sentence_index=k, text=f"{words[s]} visited a city.", order=0)
            AtomicFact.objects.create(response=response, sentence_index=k, text=f"The city is {words[s + 2]}.", order=1)
            if gold and k == 0:
                GoldLabel.objects.create(fact=f1, value="S", explanation=GOLD_EXPLANATION)
    return response


def make_unit(name: str = "Demo", *, protocol: list[str] | None = None, n_qas: int = 2, n_responses: int = 2,
              wanted: int = 3, with_facts: bool = False, passages: list[str] | None = None,
              provider: str = "local", n_sources: int = 1, gold: bool = True, unit_caps: dict | None = None):
    """A project with one batch and n_sources units; returns the first unit (or the list when n_sources > 1).
    `unit_caps` replaces the project's default caps (a bench that wants one whole large unit)."""
    project = Project.objects.create(
        name=name, protocol=protocol or ["span_coverage", "qa_support", "pairwise"],
        annotations_per_item=wanted, instructions="Judge each answer against the source.",
        **({"unit_caps": unit_caps} if unit_caps is not None else {}),
    )
    batch = Batch.objects.create(project=project, name="b1", provider=provider)
    for i in range(n_sources):
        source = Source.objects.create(project=project, external_id=f"s{i}", text="Anna visited Paris . Boris visited Lyon .",
                                       passages=passages or [], metadata={"secret": SECRET_META})
        for j in range(n_responses):
            make_response(project, source, f"s{i}-r{j}", n_qas, system=f"{SECRET_SYSTEM}-{j}", with_facts=with_facts,
                          gold=gold)
    units = compose_units(batch, assignments_wanted=wanted)
    return units if n_sources > 1 else units[0]
