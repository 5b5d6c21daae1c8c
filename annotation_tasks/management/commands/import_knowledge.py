"""import_knowledge FILE --project NAME [--name N] [--passage-words 256] [--top-k 5] [--no-retrieve] [--topic-only]"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.importers import ImportFormatError
from annotation_tasks.scoring.retrieval import PASSAGE_WORDS, TOP_K
from annotation_tasks.services import knowledge


class Command(BaseCommand):
    help = ("Import a knowledge source (JSONL of {title, text}, FActScore's format) cut into passages, then retrieve "
            "the best passages for every atomic fact of the project (BM25 on the topic and the fact).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--name", default=None, help="knowledge source name (default: the file name's stem)")
        parser.add_argument("--passage-words", type=int, default=PASSAGE_WORDS, help="words per passage")
        parser.add_argument("--top-k", type=int, default=TOP_K, help="passages kept per fact")
        parser.add_argument("--no-retrieve", action="store_true", help="only import; retrieve later")
        parser.add_argument("--topic-only", action="store_true",
                            help="facts whose topic has no document of that title get no passages (FActScore's rule)")

    def handle(self, *args, file: str, project: str, name: str | None, passage_words: int, top_k: int,
               no_retrieve: bool, topic_only: bool, **options) -> None:
        if not 1 <= top_k <= 50:
            raise CommandError(f"--top-k must be between 1 and 50, not {top_k}")
        try:
            source, n_passages, created = knowledge.import_knowledge(file, project, name=name,
                                                                     passage_words=passage_words)
            state = "imported" if created else "already present"
            self.stdout.write(f"{file}: knowledge source {source.name!r} {state}, {n_passages} passages")
            if not no_retrieve:
                counts = knowledge.retrieve_for_facts(project, k=top_k, topic_only=topic_only)
                self.stdout.write(
                    f"retrieved passages for {counts['with_passages']} of {counts['facts']} facts "
                    f"({counts['topics_matched']} topics with their own document, "
                    f"{counts['topics_unmatched']} without one: "
                    + ("no passages)" if topic_only else "searched in the whole corpus)")
                )
        except ImportFormatError as exc:
            raise CommandError(f"nothing imported: {exc}") from exc
        except knowledge.KnowledgeError as exc:
            raise CommandError(str(exc)) from exc
