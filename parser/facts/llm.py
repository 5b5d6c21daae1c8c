"""The FActScore procedure for atomic facts with any OpenAI-compatible chat endpoint.

As in FActScore's `atomic_facts.py` (Min et al., 2023): each sentence gets one prompt made of the instruction line
over a few demonstrations (the first `fixed` demonstrations of the set, then the `similar` ones BM25 ranks closest
to the sentence; the paper uses 7 and 1, BM25Okapi over space-split sentences), each followed by its facts as
"- " lines, and last the instruction line over the sentence itself. The reply is cleaned as the paper's code does
(`text_to_sentences` and the bio `postprocess_atomic_facts`): the "- " items, empty ones dropped, a final stop
added to the last; a fact that only repeats a longer one ("He was born." beside "He was born in 1956.") dropped; a
fact naming a number or date the sentence does not have is repaired to the sentence's date it abbreviates, or
dropped. Two differences, both safer: a last item cut off by the token limit (finish_reason "length") is dropped
rather than completed with a stop, and the date check uses a regular expression instead of spaCy's NER.

The demonstration set and the instruction are files (parser/data/), replaceable by settings ATOMIC_FACTS_DEMOS
and ATOMIC_FACTS_PROMPT; a demonstration identical to the sentence asked about is never shown (the packaged set
comes from the FActScore files we also evaluate on).
"""
from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"
DEFAULT_DEMOS = DATA / "factscore_demos.json"
DEFAULT_PROMPT = DATA / "factscore_prompt.txt"
FIXED_DEMOS = 7  # FActScore, bio setting: n = 7 first demonstrations ...
SIMILAR_DEMOS = 1  # ... and k = 1 chosen by BM25
# FActScore drops these facts when another fact contains them ("born." beside "born in 1956.")
GENERIC_ENDINGS = ("born.", " appointed.", " characterized.", " described.", " known.", " member.", " advocate.",
                   "served.", "elected.")
PERMITTED_ENDINGS = ("founding member.",)
SKIPPED_OPENINGS = ("Sure", "Please")  # FActScore gives such sentences no facts
NO_FACTS = "This sentence does not contain any facts"
MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
DATE = re.compile(rf"\b(?:{MONTH}\s+\d{{1,2}},?\s+\d{{3,4}}|\d{{1,2}}\s+{MONTH},?\s+\d{{3,4}}|{MONTH}\s+\d{{3,4}}|{MONTH}\s+\d{{1,2}})\b")
NUMBER = re.compile(r"\b\d+\b")


class LLMError(RuntimeError):
    """The chat endpoint failed or answered something we cannot read."""


class DemonstrationError(ValueError):
    """A demonstration or prompt file that cannot be used (names the file and the entry)."""


@dataclass(frozen=True)
class Demonstration:
    sentence: str
    facts: tuple[str, ...]


# ------------------------------------------------------------------------------------------------ files


def load_demonstrations(path: str | Path | None = None) -> list[Demonstration]:
    """A demonstration set: a JSON list of {"sentence", "facts"}, or FActScore's demons.json shape
    ({sentence: [facts]}). Order matters: the first ones are shown with every sentence."""
    path = Path(path) if path else DEFAULT_DEMOS
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DemonstrationError(f"{path}: cannot read the demonstrations ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise DemonstrationError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from exc
    if isinstance(data, dict):
        data = [{"sentence": k, "facts": v} for k, v in data.items()]
    if not isinstance(data, list) or not data:
        raise DemonstrationError(f"{path}: expected a non-empty list of {{sentence, facts}} (or a {{sentence: facts}} object)")
    out = []
    for k, item in enumerate(data):
        where = f"{path}: [{k}]"
        if not isinstance(item, dict) or not isinstance(item.get("sentence"), str) or not item["sentence"].strip():
            raise DemonstrationError(f"{where}.sentence must be a non-empty string")
        facts = item.get("facts")
        if not isinstance(facts, list) or not facts or not all(isinstance(f, str) and f.strip() for f in facts):
            raise DemonstrationError(f"{where}.facts must be a non-empty list of non-empty strings")
        out.append(Demonstration(item["sentence"].strip(), tuple(f.strip() for f in facts)))
    return out


def load_prompt(path: str | Path | None = None) -> str:
    """The instruction line, with `{sentence}` where the sentence goes (FActScore: "Please breakdown the
    following sentence into independent facts: {sentence}")."""
    path = Path(path) if path else DEFAULT_PROMPT
    try:
        template = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise DemonstrationError(f"{path}: cannot read the prompt template ({exc.strerror or exc})") from exc
    if template.count("{sentence}") != 1:
        raise DemonstrationError(f"{path}: the template must contain {{sentence}} exactly once")
    return template


# ------------------------------------------------------------------------------------------------ prompt


class PromptBuilder:
    """FActScore's prompt for one sentence: fixed demonstrations, then the BM25-closest, then the sentence."""

    def __init__(self, demonstrations: Sequence[Demonstration], template: str,
                 fixed: int = FIXED_DEMOS, similar: int = SIMILAR_DEMOS):
        from rank_bm25 import BM25Okapi

        self.demonstrations = list(demonstrations)
        self.template = template
        self.fixed = min(fixed, len(self.demonstrations))
        self.similar = similar
        self.bm25 = BM25Okapi([d.sentence.split(" ") for d in self.demonstrations])

    def closest(self, sentence: str) -> list[Demonstration]:
        """The `similar` demonstrations BM25 ranks closest (the sentence itself excluded), best first."""
        if self.similar <= 0:
            return []
        scores = self.bm25.get_scores(sentence.split(" "))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [self.demonstrations[i] for i in order if self.demonstrations[i].sentence != sentence.strip()][: self.similar]

    def line(self, sentence: str) -> str:
        return self.template.replace("{sentence}", sentence)

    def build(self, sentence: str) -> str:
        parts = []
        shown = [d for d in self.demonstrations[: self.fixed] if d.sentence != sentence.strip()]
        for demo in shown + self.closest(sentence):
            parts.append(self.line(demo.sentence) + "\n" + "".join(f"- {f}\n" for f in demo.facts))
        parts.append(self.line(sentence) + "\n")
        return "\n".join(parts)


# ------------------------------------------------------------------------------------------------ clean-up


def reply_facts(text: str, truncated: bool = False) -> list[str]:
    """The "- " items of a reply (FActScore's text_to_sentences): stripped, empty ones dropped, a stop added to
    the last one; when the reply was cut by the token limit, its last item is dropped instead. A reply that
    starts over with a new instruction line ends there."""
    facts: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("- ") or line == "-":
            item = line[1:].strip()
            if item:
                facts.append(item)
        elif facts and not line.startswith(("Please", "Sentence")):
            facts[-1] = f"{facts[-1]} {line}"  # an item wrapped over two lines
        elif facts:
            break
    if facts and truncated:
        facts.pop()
    elif facts and not facts[-1].endswith("."):
        facts[-1] += "."
    return facts


def date_entities(text: str) -> set[str]:
    """Dates and integers a fact names (FActScore's detect_entities keeps spaCy's date-like entities and every
    integer not inside one; this regular expression stands in for the NER)."""
    found = {m.group(0) for m in DATE.finditer(text)}
    for number in NUMBER.findall(text):
        if not any(number in entity for entity in found):
            found.add(number)
    return found


def postprocess(sentence: str, facts: Sequence[str]) -> list[str]:
    """FActScore's bio post-processing for one sentence's facts (see the module docstring)."""
    entities = date_entities(sentence)
    covered: set[str] = set()
    out: list[str] = []
    for i, fact in enumerate(facts):
        if fact.endswith(GENERIC_ENDINGS) and not fact.endswith(PERMITTED_ENDINGS):
            if any(fact[:-1] in other for j, other in enumerate(facts) if j != i):
                continue
        fact_entities = date_entities(fact)
        covered |= {e for e in fact_entities if e in entities}
        dropped = False
        for new in fact_entities - entities:
            longer = next((e for e in sorted(entities) if e.startswith(new)), None)
            if longer is None:
                dropped = True
                break
            fact = fact.replace(new, longer)
            covered.add(longer)
        if dropped or fact in out:
            continue
        out.append(fact)
    if entities != covered:
        return list(dict.fromkeys(facts))  # as FActScore: when the check cannot account for the dates, keep all
    return out


# ------------------------------------------------------------------------------------------------ backend


class LLMFactBackend:
    """FActScore atomic facts from an OpenAI-compatible chat endpoint, one request per sentence."""

    name = "llm"

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, retries: int = 2,
                 demos: str | Path | None = None, prompt: str | Path | None = None,
                 fixed: int = FIXED_DEMOS, similar: int = SIMILAR_DEMOS, max_tokens: int = 512):
        if not base_url or not model:
            raise ValueError("the llm atomic-facts backend needs LLM_BASE_URL and LLM_MODEL")
        base = base_url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.max_tokens = max_tokens
        self.prompts = PromptBuilder(load_demonstrations(demos), load_prompt(prompt), fixed, similar)

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
        sentence = sentence.strip()
        if not sentence or sentence.startswith(SKIPPED_OPENINGS):
            return []
        payload = {
            "model": self.model,
            "messages": [{"role": "user", "content": self.prompts.build(sentence)}],
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        reply = self._post(payload)
        try:
            choice = reply["choices"][0]
            content = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"unexpected chat reply: {str(reply)[:200]}") from exc
        if not isinstance(content, str):
            raise LLMError(f"unexpected chat reply content: {str(content)[:200]}")
        if content.strip().startswith(NO_FACTS):
            return []
        return postprocess(sentence, reply_facts(content, truncated=choice.get("finish_reason") == "length"))

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        keep = set(range(len(sentences))) if wanted is None else set(wanted)
        return [self.split_sentence(s) if i in keep else [] for i, s in enumerate(sentences)]
