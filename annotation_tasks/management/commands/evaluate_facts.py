"""evaluate_facts FILE... [--backend B] [--json]: atomic facts against FActScore's human-revised facts."""
from __future__ import annotations

import json
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from parser import atomic_facts
from parser.facts import evaluation


class Command(BaseCommand):
    help = (
        "Generate atomic facts for the relevant sentences of FActScore labeled files and match them one to one "
        "against the human facts (word-bag F1; P/R/F1 at thresholds 0.5 and 0.7)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("files", nargs="+", help="FActScore data/labeled/*.jsonl files")
        parser.add_argument("--backend", default=None, help=f"one of {', '.join(atomic_facts.BACKENDS)} "
                            "(default: settings.ATOMIC_FACTS_BACKEND)")
        parser.add_argument("--keep-pronouns", action="store_true",
                            help="embedded backend: leave subject pronouns as written (default: resolve to the entity)")
        parser.add_argument("--released", action="store_true",
                            help="score the file's own model-atomic-facts (FActScore's InstructGPT facts) instead")
        parser.add_argument("--json", action="store_true", help="one JSON object per file on stdout")

    def handle(self, *args, files: list[str], backend: str | None, json: bool, keep_pronouns: bool,
               released: bool, **options) -> None:
        splitter = None
        if not released:
            try:
                splitter = atomic_facts.get_backend(
                    backend or settings.ATOMIC_FACTS_BACKEND, resolve_pronouns=not keep_pronouns,
                    **atomic_facts.settings_options(settings),
                )
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
        for path in files:
            began = time.perf_counter()
            try:
                responses = evaluation.load_factscore_labeled(path)
                if splitter is None:
                    report = evaluation.evaluate_released(responses).as_dict()
                else:
                    report = evaluation.evaluate_labeled(responses, splitter.split_sentences).as_dict()
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc}") from exc
            except evaluation.LabeledFileError as exc:
                raise CommandError(str(exc)) from exc
            except atomic_facts.LLMError as exc:
                raise CommandError(f"{path}: {exc}") from exc
            name = "released model facts" if splitter is None else splitter.name + (" (pronouns kept)" if keep_pronouns else "")
            report = {"file": path, "backend": name, **report, "seconds": round(time.perf_counter() - began, 1)}
            self.stdout.write(_dumps(report) if json else render(report))


def render(r: dict) -> str:
    lines = [
        f"{r['file']} (backend {r['backend']}): {r['sentences']} sentences, {r['facts_per_sentence']:.2f} facts per "
        f"sentence against {r['human_facts_per_sentence']:.2f} human",
    ]
    for t, m in r["by_threshold"].items():
        lines.append(f"  similarity >= {t}: P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}")
    return "\n".join(lines) + "\n"


def _dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)
