"""Atomic facts (the FActScore step): each sentence of a response broken into short, independent claims.

Two backends behind `split(parsed) -> facts per sentence`:
- `llm`: any OpenAI-compatible chat-completions endpoint (LLM_BASE_URL / LLM_API_KEY / LLM_MODEL). The instruction
  and demonstrations follow FActScore's prompt style; they are our own sentences, not FActScore's.
- `embedded`: no model. One short sentence per predicate-argument frame, rendered from the frame's QAs (subject,
  the verb with its auxiliaries, the other arguments in sentence order). A sound starting point that annotators
  then edit; a sentence with no usable frame is kept whole as one fact, so no claim is silently dropped.
"""
from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from parser.types import ParsedText, PredicateFrame

INSTRUCTION = (
    "Please breakdown the following sentence into independent facts. Each fact is one short sentence that makes a "
    "single claim, names its subject instead of using a pronoun when the sentence allows, and keeps the sentence's "
    "meaning. Write one fact per line, each starting with '- '. Do not add anything the sentence does not say."
)
DEMONSTRATIONS: list[tuple[str, list[str]]] = [
    (
        "Marie Laurent is a French cellist who won the Geneva competition in 2004 and has taught in Lyon since 2010.",
        [
            "Marie Laurent is French.",
            "Marie Laurent is a cellist.",
            "Marie Laurent won the Geneva competition.",
            "Marie Laurent won the Geneva competition in 2004.",
            "Marie Laurent has taught in Lyon.",
            "Marie Laurent has taught in Lyon since 2010.",
        ],
    ),
    (
        "The bridge, which opened in 1932, was closed for repairs after a truck struck it last week.",
        [
            "The bridge opened in 1932.",
            "The bridge was closed.",
            "The bridge was closed for repairs.",
            "A truck struck the bridge.",
            "A truck struck the bridge last week.",
            "The bridge was closed after a truck struck it.",
        ],
    ),
    (
        "He did not attend the ceremony.",
        ["He did not attend the ceremony."],
    ),
]

AUX_WORDS = frozenset(
    "is are was were be been being am has have had having will would can could may might shall should must "
    "do does did not n't 's 're 've 'd 'll never also".split()
)


class FactBackend(Protocol):
    name: str

    def split(self, parsed: ParsedText) -> list[list[str]]: ...

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]: ...


class LLMError(RuntimeError):
    """The chat endpoint failed or answered something we cannot read."""


def parse_fact_lines(text: str) -> list[str]:
    """Facts from a reply: lines starting with '-', '*' or a number; else non-empty lines."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    bulleted = [re.sub(r"^(?:[-*\u2022]|\d+[.)])\s*", "", line) for line in lines if re.match(r"^(?:[-*\u2022]|\d+[.)])\s*", line)]
    facts = bulleted if bulleted else lines
    return [f for f in (f.strip() for f in facts) if f]


class LLMFactBackend:
    """FActScore-style splitting with an OpenAI-compatible chat endpoint, one request per sentence."""

    name = "llm"

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, retries: int = 2):
        if not base_url or not model:
            raise ValueError("the llm atomic-facts backend needs LLM_BASE_URL and LLM_MODEL")
        self.url = base_url.rstrip("/") + ("" if base_url.rstrip("/").endswith("/chat/completions") else "/chat/completions")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries

    def messages(self, sentence: str) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": INSTRUCTION}]
        for demo, facts in DEMONSTRATIONS:
            msgs.append({"role": "user", "content": demo})
            msgs.append({"role": "assistant", "content": "\n".join(f"- {f}" for f in facts)})
        msgs.append({"role": "user", "content": sentence})
        return msgs

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                    return json.loads(reply.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                last = exc
                if exc.code not in (429, 500, 502, 503, 504):
                    raise LLMError(f"chat endpoint answered HTTP {exc.code}") from exc
            except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as exc:
                last = exc
            time.sleep(min(2.0**attempt * 0.2, 5.0))
        raise LLMError(f"chat endpoint failed after {self.retries + 1} tries: {last}")

    def split_sentence(self, sentence: str) -> list[str]:
        reply = self._post({"model": self.model, "messages": self.messages(sentence), "temperature": 0})
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"unexpected chat reply: {str(reply)[:200]}") from exc
        return parse_fact_lines(content or "")

    def split(self, parsed: ParsedText) -> list[list[str]]:
        return self.split_sentences([s.text for s in parsed.sentences])

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        keep = set(range(len(sentences))) if wanted is None else set(wanted)
        return [self.split_sentence(s) if i in keep and s.strip() else [] for i, s in enumerate(sentences)]


class FrameFactBackend:
    """One fact per frame, rendered from its QAs' answers around the verb; no model (the first embedded backend,
    kept to compare against)."""

    name = "frames"

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        """Each sentence parsed alone (frames need the parser's output), then split as `split` does."""
        from parser.embedded import EmbeddedParser

        keep = set(range(len(sentences))) if wanted is None else set(wanted)
        parser = EmbeddedParser()
        out: list[list[str]] = []
        for index, parsed in enumerate(parser.parse_many(sentences)):
            facts = [f for per in self.split(parsed) for f in per] if index in keep else []
            out.append(facts)
        return out

    def split(self, parsed: ParsedText) -> list[list[str]]:
        by_sentence: dict[int, list[PredicateFrame]] = {}
        for frame in parsed.frames:
            by_sentence.setdefault(frame.sentence_index, []).append(frame)
        out = []
        for sentence in parsed.sentences:
            facts: list[str] = []
            for frame in by_sentence.get(sentence.index, []):
                fact = render_frame(parsed, frame)
                if fact and fact not in facts:
                    facts.append(fact)
            out.append(facts or ([sentence.text.strip()] if sentence.text.strip() else []))
        return out


def _verb_group(parsed: ParsedText, frame: PredicateFrame, floor: int) -> tuple[int, int]:
    """The predicate with the auxiliaries and negation right before it ('has not been shot')."""
    start = frame.token_index
    while start - 1 >= floor and parsed.tokens[start - 1].text.lower() in AUX_WORDS:
        start -= 1
    return start, frame.token_index + 1


PLURAL_AUX = {"is": "are", "was": "were", "has": "have", "isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't"}


def _answer_span(parsed: ParsedText, qa) -> tuple[int, int]:
    """The first answer, with its preposition when the question asks through one ('in the office')."""
    answer = qa.answers[0]
    start, prep = answer.start, qa.raw_question[5]
    if prep != "_" and start > 0 and parsed.tokens[start - 1].text.lower() == prep.split()[-1]:
        start -= 1
    return start, answer.end


def render_frame(parsed: ParsedText, frame: PredicateFrame) -> str | None:
    """'<subject> <aux verb> <other arguments in sentence order>.' for a verbal or copular frame with a subject."""
    if frame.kind == "nominal" or not frame.qas:
        return None
    subject_qa = None
    others: list[tuple[int, int]] = []
    for qa in frame.qas:
        if not qa.answers:
            continue
        span = _answer_span(parsed, qa)
        if subject_qa is None and qa.raw_question[2] == "_" and qa.role in {"R0", "R1"} and span[1] <= frame.token_index:
            subject_qa = qa
        elif span not in others:
            others.append(span)
    if subject_qa is None:
        return None
    subject = (subject_qa.answers[0].start, subject_qa.answers[0].end)
    verb = _verb_group(parsed, frame, subject[1])
    verb_text = parsed.span_text(*verb)
    aux = subject_qa.raw_question[1]
    if verb == (frame.token_index, frame.token_index + 1) and aux != "_":
        # a participle without its own auxiliaries ("men armed with rifles", "before making a getaway")
        if aux not in {"is", "was", "isn't", "wasn't", "has", "had"}:
            return None  # infinitives and the like: the sentence does not assert them
        head_word = parsed.tokens[subject[1] - 1].text
        if head_word.lower().endswith("s") and not head_word[:1].isupper():
            aux = PLURAL_AUX.get(aux, aux)
        prefix = " ".join(subject_qa.raw_question[3].split()[:-1])
        verb_text = " ".join(w for w in (aux, prefix, verb_text) if w)
    parts = [subject, verb]
    for span in sorted(others):
        if span[0] >= verb[1] and all(span[0] >= p[1] or span[1] <= p[0] for p in parts):
            parts.append(span)
    pieces = [parsed.span_text(*subject), verb_text] + [parsed.span_text(a, b) for a, b in parts[2:]]
    text = re.sub(r"\s+([,.;:!?])", r"\1", " ".join(pieces).strip())
    text = re.sub(r"\s+('s\b|n't\b)", r"\1", text)
    if not text:
        return None
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


class EmbeddedFactBackend:
    """Rule facts from the dependency parse (parser/facts/embedded.py); no model."""

    name = "embedded"

    def __init__(self, resolve_pronouns: bool = True):
        from parser.facts.embedded import EmbeddedFactSplitter

        self.splitter = EmbeddedFactSplitter(resolve_pronouns=resolve_pronouns)

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        return self.splitter.split_sentences(sentences, wanted)

    def split(self, parsed: ParsedText) -> list[list[str]]:
        return self.split_sentences([s.text for s in parsed.sentences])


BACKENDS = ("embedded", "frames", "llm")


def get_backend(name: str | None = None, **options: Any) -> FactBackend:
    """`embedded` (default), `frames` or `llm` (needs base_url and model; api_key optional)."""
    name = (name or "embedded").strip().lower()
    if name == "embedded":
        return EmbeddedFactBackend(resolve_pronouns=options.get("resolve_pronouns", True))
    if name == "frames":
        return FrameFactBackend()
    if name == "llm":
        return LLMFactBackend(options.get("base_url", ""), options.get("model", ""), options.get("api_key", ""))
    raise ValueError(f"unknown atomic-facts backend {name!r}; choose one of {', '.join(BACKENDS)}")


def settings_options(settings: Any) -> dict[str, Any]:
    """Backend options from a settings object (Django's, or anything with the same attribute names)."""
    return {
        "base_url": getattr(settings, "LLM_BASE_URL", ""),
        "api_key": getattr(settings, "LLM_API_KEY", ""),
        "model": getattr(settings, "LLM_MODEL", ""),
    }
