"""The T5 backend: the joint QASem seq2seq model format of `qasem_parser` (e.g. cattana/flan-t5-xl-qasem-joint-tokenized).

Input per predicate: "Generate QA pairs: " + the sentence's tokens, the predicate written as
"<extra_id_0>word<extra_id_1>" (no spaces: the model was trained so). Output: QA pairs separated by <extra_id_2>;
each splits at its first "?" into a raw question (7 slots, "_" for empty ones) and answers separated by
<extra_id_3> only (qasem_parser 1.1.16 splits on nothing else: a ";" belongs to the answer). Answers are matched
back to tokens ignoring spacing, at the occurrence nearest the predicate. `qasem` 0.2.2 does not import with transformers 5, so we call
model.generate ourselves. Tokenization, sentences and predicate detection are the embedded backend's (spaCy);
nominal predicates come from a nominalization classifier when configured (qasem_parser's procedure: softmax
over its two logits above 0.75 on every NN/NNS word, then the verb-form filter), else from the embedded
backend's trained detector. Prompts are never truncated (the package does not truncate either).
The model is read from a local directory (or the local hub cache) only: local_files_only, never a download.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spacy.tokens import Span

from parser import lexicon, qasrl_slots
from parser.embedded import DEFAULT_MODEL, EmbeddedParser, SentenceJob
from parser.embedded.copular import copular_frame
from parser.embedded.nominal import detect_nominal
from parser.embedded.verbal import is_verbal_predicate
from parser.types import Answer, PredicateFrame, QAPair

log = logging.getLogger(__name__)

PREFIX = "Generate QA pairs:"
PREDICATE_START = "<extra_id_0>"
PREDICATE_END = "<extra_id_1>"
QA_SEPARATOR = "<extra_id_2>"
ANSWER_SEPARATOR = "<extra_id_3>"
_SPECIALS = re.compile(r"<pad>|</s>|<unk>|<extra_id_(?![23]>)\d+>")


def build_prompt(tokens: Sequence[str], predicate: int) -> str:
    """The model input for one predicate of a tokenized sentence."""
    words = [PREFIX, *tokens[:predicate], f"{PREDICATE_START}{tokens[predicate]}{PREDICATE_END}", *tokens[predicate + 1 :]]
    return " ".join(words)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def find_answer(tokens: Sequence[str], answer: str, predicate: int) -> tuple[int, int] | None:
    """Token span whose text equals `answer` ignoring whitespace (then case), nearest the predicate."""
    target = _squash(answer)
    if not target:
        return None
    for fold in (False, True):
        goal = target.lower() if fold else target
        words = [t.lower() if fold else t for t in tokens]
        found: list[tuple[int, int]] = []
        for start in range(len(words)):
            if not goal.startswith(words[start][: len(goal)]) or not words[start]:
                continue
            acc = ""
            for end in range(start, len(words)):
                acc += words[end]
                if acc == goal:
                    found.append((start, end + 1))
                    break
                if not goal.startswith(acc):
                    break
        if found:
            return min(found, key=lambda s: (min(abs(s[0] - predicate), abs(s[1] - 1 - predicate)), s[0]))
    return None


def postprocess(decoded: str, tokens: Sequence[str], predicate: int, offset: int = 0) -> tuple[list[QAPair], int]:
    """QAs from one decoded output; also how many questions could not be read as 7 slots (dropped)."""
    text = _SPECIALS.sub(" ", decoded)
    qas: list[QAPair] = []
    dropped = 0
    for raw_pair in text.split(QA_SEPARATOR):
        question, mark, rest = raw_pair.partition("?")
        if not mark or not question.strip():
            continue
        slots = qasrl_slots.parse_raw_question(question)
        if slots is None:
            dropped += 1
            continue
        pieces = rest.split(ANSWER_SEPARATOR)  # as the package: a ';' inside an answer is part of it
        answers: list[Answer] = []
        for piece in pieces:
            span = find_answer(tokens, piece.strip(), predicate)
            if span is None or any((a.start - offset, a.end - offset) == span for a in answers):
                continue
            answers.append(Answer(span[0] + offset, span[1] + offset, " ".join(tokens[span[0] : span[1]])))
        if answers:
            qas.append(QAPair(slots, qasrl_slots.render(slots), answers, qasrl_slots.role_of(slots)))
    return qas, dropped


@dataclass
class _Request:
    job: int
    tokens: list[str]
    predicate: int  # sentence-relative
    frame: PredicateFrame


class T5Parser(EmbeddedParser):
    """QASem joint T5 model over spaCy's sentences and predicates; batched, on the GPU when there is one."""

    name = "t5"

    def __init__(
        self,
        model_dir: str = "",
        nominalization_model_dir: str | None = None,
        device: str | None = None,
        batch_size: int | None = None,
        num_beams: int = 4,
        max_length: int = 256,
        dtype: str | None = None,
        spacy_model: str = DEFAULT_MODEL,
        copular: bool = True,
        **_: Any,
    ):
        super().__init__(model=spacy_model, nominal=True, copular=copular)
        if not model_dir:
            raise ValueError("the t5 backend needs a model directory (settings.T5_MODEL_DIR)")
        self.model_dir = model_dir
        self.nominalization_model_dir = nominalization_model_dir or None
        self.device = device
        self.gen_batch_size = batch_size  # None: 128 on a GPU (H200: 17 predicates/s at 32, 100 at 256), 8 on CPU
        self.num_beams = num_beams
        self.max_length = max_length
        self.dtype = dtype
        self._model: Any = None
        self._tokenizer: Any = None
        self._classifier: Any = None
        self.dropped_questions = 0

    # ------------------------------------------------------------------ loading

    def load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if self.gen_batch_size is None:
            self.gen_batch_size = 128 if str(self.device).startswith("cuda") else 8
        kwargs: dict[str, Any] = {"local_files_only": True}
        if self.dtype:
            kwargs["dtype"] = getattr(torch, self.dtype)
        self._tokenizer = AutoTokenizer.from_pretrained(self.model_dir, local_files_only=True)
        self._model = AutoModelForSeq2SeqLM.from_pretrained(self.model_dir, **kwargs).to(self.device).eval()

    @property
    def classifier(self) -> Any:
        if self._classifier is None and self.nominalization_model_dir:
            from parser.nominal_classifier import NominalizationClassifier

            self._classifier = NominalizationClassifier(self.nominalization_model_dir, device=self.device)
        return self._classifier

    # ------------------------------------------------------------------ generation

    def encode(self, prompts: Sequence[str]) -> dict[str, Any]:
        """Tokenized prompts as the package tokenizes them: padded, never truncated (T5's positions are relative)."""
        self.load()
        enc = self._tokenizer(list(prompts), return_tensors="pt", padding=True)
        return {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}

    def generate(self, prompts: Sequence[str]) -> list[str]:
        """Decoded outputs (special tokens kept: <extra_id_2> separates the QAs) for prompts, in order."""
        self.load()
        import torch

        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))  # similar lengths pad less
        outputs: list[str] = [""] * len(prompts)
        size = self.gen_batch_size or 8
        for start in range(0, len(order), size):
            idx = order[start : start + size]
            enc = self.encode([prompts[i] for i in idx])
            with torch.inference_mode():
                out = self._model.generate(**enc, num_beams=self.num_beams, max_length=self.max_length)
            decoded = self._tokenizer.batch_decode(out.detach().cpu(), skip_special_tokens=False)
            for i, text in zip(idx, decoded, strict=True):
                outputs[i] = text
        return outputs

    # ------------------------------------------------------------------ frames

    def _nominal_predicates(self, jobs: Sequence[SentenceJob]) -> list[list[tuple[int, float]]]:
        """(sentence-relative index, probability) of the eventive nouns of each sentence.

        Given ones (probability 1); with a nominalization classifier, qasem_parser's procedure (every NN/NNS word
        scored, softmax above 0.75, then the verb-form filter); else the embedded backend's trained detector.
        """
        out: list[list[tuple[int, float]]] = [[] for _ in jobs]
        todo: list[int] = []
        for j, job in enumerate(jobs):
            if job.nominal_predicates is not None:
                out[j] = [(i, 1.0) for i in job.nominal_predicates]
            elif job.predicates is None:
                todo.append(j)
        if not todo:
            return out
        if self.classifier is not None:
            found = self.classifier.predict([[t.text for t in jobs[j].sent] for j in todo],
                                            [[t.tag_ for t in jobs[j].sent] for j in todo])
            for j, nouns in zip(todo, found, strict=True):
                sent = jobs[j].sent
                out[j] = [(i, p) for i, p in nouns if lexicon.nominalization_verb(sent[i].lower_) is not None]
            return out
        for j in todo:
            base = _base(jobs[j].sent)
            out[j] = [(t.i - base, hit[1]) for t in jobs[j].sent if (hit := detect_nominal(t)) is not None]
        return out

    def frames_for_sentences(self, jobs: Sequence[SentenceJob]) -> list[list[PredicateFrame]]:
        requests: list[_Request] = []
        out: list[list[PredicateFrame]] = [[] for _ in jobs]
        nominals = self._nominal_predicates(jobs)
        for j, job in enumerate(jobs):
            tokens = [t.text for t in job.sent]
            for i, frame in self._predicate_frames(job, nominals[j]):
                requests.append(_Request(j, tokens, i, frame))
            fixed = job.predicates is not None or job.nominal_predicates is not None
            if self.copular and not fixed:
                out[j].extend(self._copular_frames(job))
        decoded = self.generate([build_prompt(r.tokens, r.predicate) for r in requests]) if requests else []
        for request, text in zip(requests, decoded, strict=True):
            base = request.frame.token_index - request.predicate
            request.frame.qas, dropped = postprocess(text, request.tokens, request.predicate, offset=base)
            for qa in request.frame.qas:
                qa.confidence = request.frame.confidence
            self.dropped_questions += dropped
            out[request.job].append(request.frame)
        for sentence_frames in out:
            sentence_frames.sort(key=lambda f: f.token_index)
        return out

    @staticmethod
    def _predicate_frames(job: SentenceJob, nominals: list[tuple[int, float]]) -> list[tuple[int, PredicateFrame]]:
        """(sentence-relative index, empty frame) of each verbal and nominal predicate the model is asked about."""
        sent = job.sent
        base = _base(sent)  # Span indices are doc-global, a Doc's (parse_tokenized) are the sentence's own
        fixed = job.predicates is not None or job.nominal_predicates is not None
        verbal = job.predicates if job.predicates is not None else (
            [] if fixed else [t.i - base for t in sent if is_verbal_predicate(t)]
        )
        frames: list[tuple[int, PredicateFrame]] = []
        for i in verbal:
            tok = sent[i]
            frames.append((i, PredicateFrame(job.offset + base + i, tok.text, lexicon.verb_stem(tok.lower_, tok.tag_),
                                             "verbal", job.index, "VERB")))
        for i, p in nominals:
            tok = sent[i]
            verb = lexicon.nominalization_verb(tok.lower_) or tok.lower_
            frames.append((i, PredicateFrame(job.offset + base + i, tok.text, verb, "nominal", job.index, "NOUN",
                                             confidence=p)))
        return frames

    @staticmethod
    def _copular_frames(job: SentenceJob) -> list[PredicateFrame]:
        frames = []
        for tok in job.sent:
            if tok.tag_.startswith("VB") and tok.dep_ not in {"aux", "auxpass"} and lexicon.verb_stem(tok.lower_, tok.tag_) == "be":
                frame = copular_frame(tok, job.offset, job.index)
                if frame is not None:
                    frames.append(frame)
        return frames


def _base(sent: Any) -> int:
    """Where a sentence's tokens start in their Doc: a Span's start, 0 for a Doc of its own."""
    return sent.start if isinstance(sent, Span) else 0
