"""Atomic facts against FActScore's human facts: word-bag F1, one-to-one greedy matching, P/R/F1 per threshold.

The measure, exactly: over the relevant sentences that have human atomic facts, facts are generated from the
sentence text (the backend sees the response's other sentences as context); words are lowercase
``[a-z0-9]+('[a-z]+)?``; similarity is the F1 of the two word bags; generated and human facts are matched one to
one, greedily by descending similarity; a pair counts when its similarity is >= t; precision = counted / generated
and recall = counted / human, both summed over all sentences. No Django: the command only prints this.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
THRESHOLDS = (0.5, 0.7)


def words(text: str) -> list[str]:
    """The measure's words: lowercase alphanumeric runs, an apostrophe suffix kept ("children's")."""
    return WORD.findall(text.lower())


def similarity(a: str | Counter, b: str | Counter) -> float:
    """F1 of the two word bags (0 when either is empty)."""
    bag_a = a if isinstance(a, Counter) else Counter(words(a))
    bag_b = b if isinstance(b, Counter) else Counter(words(b))
    overlap = sum((bag_a & bag_b).values())
    if not overlap:
        return 0.0
    p, r = overlap / sum(bag_a.values()), overlap / sum(bag_b.values())
    return 2 * p * r / (p + r)


def greedy_matches(generated: Sequence[str], human: Sequence[str]) -> list[tuple[int, int, float]]:
    """One-to-one pairs (generated index, human index, similarity), taken by descending similarity.

    Ties go to the earlier generated, then the earlier human fact, so the result does not depend on set order.
    Pairs of similarity 0 are never taken.
    """
    bags_g = [Counter(words(g)) for g in generated]
    bags_h = [Counter(words(h)) for h in human]
    pairs = [(similarity(g, h), i, j) for i, g in enumerate(bags_g) for j, h in enumerate(bags_h)]
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    used_g: set[int] = set()
    used_h: set[int] = set()
    out = []
    for sim, i, j in pairs:
        if sim <= 0:
            break
        if i in used_g or j in used_h:
            continue
        used_g.add(i)
        used_h.add(j)
        out.append((i, j, sim))
    return out


@dataclass
class FactScores:
    """Counts summed over sentences; precision, recall and F1 per threshold."""

    sentences: int = 0
    generated: int = 0
    human: int = 0
    counted: dict[float, int] = field(default_factory=lambda: {t: 0 for t in THRESHOLDS})

    def add(self, generated: Sequence[str], human: Sequence[str]) -> None:
        self.sentences += 1
        self.generated += len(generated)
        self.human += len(human)
        matches = greedy_matches(generated, human)
        for t in self.counted:
            self.counted[t] += sum(1 for _, _, sim in matches if sim >= t)

    def as_dict(self) -> dict[str, Any]:
        by_threshold = {}
        for t, counted in self.counted.items():
            p = counted / self.generated if self.generated else 0.0
            r = counted / self.human if self.human else 0.0
            f1 = 2 * p * r / (p + r) if p + r else 0.0
            by_threshold[str(t)] = {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f1, 4)}
        n = self.sentences or 1
        return {
            "sentences": self.sentences,
            "facts_per_sentence": round(self.generated / n, 3),
            "human_facts_per_sentence": round(self.human / n, 3),
            "by_threshold": by_threshold,
        }


def score(pairs: Iterable[tuple[Sequence[str], Sequence[str]]], thresholds: Sequence[float] = THRESHOLDS) -> FactScores:
    """Scores of (generated facts, human facts) per sentence."""
    out = FactScores(counted={t: 0 for t in thresholds})
    for generated, human in pairs:
        out.add(generated, human)
    return out


# ------------------------------------------------------------------------------------------------ FActScore files


@dataclass(frozen=True)
class LabeledResponse:
    """One responding generation of a FActScore labeled file: all its sentences (the context), and per sentence the
    human facts when it is relevant and has any (None otherwise: not measured)."""

    topic: str
    sentences: tuple[str, ...]
    human_facts: tuple[tuple[str, ...] | None, ...]
    model_facts: tuple[tuple[str, ...], ...] = ()  # the release's own (InstructGPT) facts, per sentence


class LabeledFileError(ValueError):
    """A FActScore labeled file that does not have the released shape (names the file, line and field)."""


def load_factscore_labeled(path: str | Path) -> list[LabeledResponse]:
    """Responses of one FActScore `data/labeled/*.jsonl` file; abstentions (annotations null) are left out."""
    out = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise LabeledFileError(f"{where}: not JSON ({exc.msg})") from exc
            annotations = row.get("annotations") if isinstance(row, dict) else None
            if annotations is None:
                continue
            if not isinstance(annotations, list):
                raise LabeledFileError(f"{where}: annotations must be a list or null")
            sentences: list[str] = []
            human: list[tuple[str, ...] | None] = []
            model: list[tuple[str, ...]] = []
            for k, sentence in enumerate(annotations):
                if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
                    raise LabeledFileError(f"{where}: annotations[{k}].text must be a string")
                sentences.append(sentence["text"])
                try:
                    model.append(tuple(str(f["text"]) for f in sentence.get("model-atomic-facts") or []))
                except (TypeError, KeyError) as exc:
                    raise LabeledFileError(f"{where}: annotations[{k}].model-atomic-facts[].text missing") from exc
                facts = sentence.get("human-atomic-facts")
                if sentence.get("is-relevant") and facts:
                    try:
                        human.append(tuple(str(f["text"]) for f in facts))
                    except (TypeError, KeyError) as exc:
                        raise LabeledFileError(f"{where}: annotations[{k}].human-atomic-facts[].text missing") from exc
                else:
                    human.append(None)
            out.append(LabeledResponse(str(row.get("topic", "")), tuple(sentences), tuple(human), tuple(model)))
    return out


def evaluate_released(responses: Iterable[LabeledResponse]) -> FactScores:
    """The release's own model facts (FActScore's InstructGPT splitting, before people revised them) against the
    human facts: how far the paper's automatic facts are from the revised ones under this measure."""
    return score(
        (m, h) for r in responses for m, h in zip(r.model_facts, r.human_facts, strict=True) if h is not None
    )


SplitSentences = Callable[[Sequence[str], Iterable[int] | None], list[list[str]]]


def evaluate_labeled(responses: Iterable[LabeledResponse], split_sentences: SplitSentences) -> FactScores:
    """Generate facts for each response's sentences (all of them, in order, so context is there) and score the
    measured ones."""
    pairs: list[Any] = []
    for response in responses:
        if not any(h is not None for h in response.human_facts):
            continue
        wanted = [i for i, h in enumerate(response.human_facts) if h is not None]
        generated = split_sentences(list(response.sentences), wanted)
        if len(generated) != len(response.sentences):
            raise ValueError(f"the backend gave {len(generated)} fact lists for {len(response.sentences)} sentences")
        pairs.extend((g, h) for g, h in zip(generated, response.human_facts, strict=True) if h is not None)
    return score(pairs)
