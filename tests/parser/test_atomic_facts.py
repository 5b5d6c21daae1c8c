"""Atomic facts: the FActScore LLM procedure against a fake OpenAI-compatible server on loopback, the registry,
and the frames backend. (The dependency-rule splitter: test_facts_embedded.py; the measure: test_facts_evaluation.)"""
from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from parser import atomic_facts
from parser.embedded import EmbeddedParser
from parser.facts import llm
from tests.crowd.fakes.loopback import LoopbackFake


class FakeChat(LoopbackFake):
    """Speaks /v1/chat/completions: answers each prompt by its last sentence, can fail a few times first."""

    def __init__(self, replies: dict[str, str], fail_first: int = 0, status: int = 503, finish: str = "stop"):
        self.replies, self.fail_first, self.status, self.finish = replies, fail_first, status, finish
        self.requests: list[dict] = []
        self.headers: list[dict] = []

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, **body})
                fake.headers.append(dict(self.headers))
                if fake.fail_first > 0:
                    fake.fail_first -= 1
                    self.send_response(fake.status)
                    self.end_headers()
                    return
                prompt = body["messages"][-1]["content"]
                asked = prompt.rstrip("\n").rsplit("\n", 1)[-1].split(": ", 1)[1]
                payload = {
                    "id": "x", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": fake.replies[asked]},
                                 "finish_reason": fake.finish}],
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        return Handler


@pytest.fixture
def serve() -> Iterator:
    fakes: list[FakeChat] = []

    def start(fake: FakeChat) -> str:
        fakes.append(fake.start())
        return fake.url + "/v1"

    yield start
    for fake in fakes:
        fake.stop()


DEMOS = [
    {"sentence": "Ann Lee is a Canadian poet.", "facts": ["Ann Lee is Canadian.", "Ann Lee is a poet."]},
    {"sentence": "Bo Chen plays chess.", "facts": ["Bo Chen plays chess."]},
    {"sentence": "The bridge opened in 1932 and closed in 1990.",
     "facts": ["The bridge opened in 1932.", "The bridge closed in 1990."]},
    {"sentence": "She won the Booker Prize for her novel Dust in 2004.",
     "facts": ["She won the Booker Prize.", "She won the Booker Prize for her novel.", "Her novel is Dust."]},
]


@pytest.fixture
def demo_files(tmp_path: Path) -> tuple[Path, Path]:
    demos = tmp_path / "demos.json"
    demos.write_text(json.dumps(DEMOS), encoding="utf-8")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Split into facts: {sentence}\n", encoding="utf-8")
    return demos, prompt


def test_llm_backend_follows_the_factscore_prompt_and_cleans_the_list(serve, demo_files, embedded: EmbeddedParser) -> None:
    demos, prompt = demo_files
    text = "Ada Lovelace won a prize for her poem in 1843. The theatre closed on November 27, 1852."
    fake = FakeChat({
        "Ada Lovelace won a prize for her poem in 1843.":
            "- Ada Lovelace won a prize.\n\n- Ada Lovelace won a prize in 1843.\n- Ada Lovelace won it in 1901.\n-\n"
            "- Ada Lovelace won a prize for her poem",
        "The theatre closed on November 27, 1852.":
            "- The theatre closed.\n- The theatre closed on November 27.\nPlease breakdown ...\n- junk",
    })
    backend = atomic_facts.get_backend("llm", base_url=serve(fake), model="tiny-chat", api_key="k-123",
                                       demos=str(demos), prompt=str(prompt), fixed=2, similar=1)
    facts = backend.split(embedded.parse(text))
    assert facts == [
        # blank and empty items dropped, the last given its stop, the fact with a date the sentence lacks dropped
        ["Ada Lovelace won a prize.", "Ada Lovelace won a prize in 1843.", "Ada Lovelace won a prize for her poem."],
        # the abbreviated date repaired to the sentence's; the reply ends where it starts over
        ["The theatre closed.", "The theatre closed on November 27, 1852."],
    ]
    first = fake.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["model"] == "tiny-chat" and first["temperature"] == 0
    assert fake.headers[0]["Authorization"] == "Bearer k-123"
    blocks = first["messages"][0]["content"].strip().split("\n\n")
    # two fixed demonstrations, then the BM25-closest one (the prize sentence), then the sentence asked about
    assert [b.splitlines()[0] for b in blocks] == [
        "Split into facts: Ann Lee is a Canadian poet.",
        "Split into facts: Bo Chen plays chess.",
        "Split into facts: She won the Booker Prize for her novel Dust in 2004.",
        "Split into facts: Ada Lovelace won a prize for her poem in 1843.",
    ]
    assert blocks[2].splitlines()[1:] == [f"- {f}" for f in DEMOS[3]["facts"]]
    second = fake.requests[1]["messages"][0]["content"].strip().split("\n\n")
    assert second[2].splitlines()[0] == "Split into facts: The bridge opened in 1932 and closed in 1990."


def test_generic_facts_a_longer_fact_contains_are_dropped() -> None:
    facts = llm.postprocess("He was born in Ohio.", ["He was born.", "He was born in Ohio.", "He was born in Ohio."])
    assert facts == ["He was born in Ohio."]
    # a sentence date no fact accounts for: FActScore keeps the list as it came (de-duplicated)
    assert llm.postprocess("He was born in 1950 in Ohio.", ["He was born in Ohio.", "He was born in 1951."]) == [
        "He was born in Ohio.", "He was born in 1951."]


def test_truncated_reply_loses_its_last_item_and_no_fact_replies_give_none(serve, demo_files) -> None:
    demos, prompt = demo_files
    fake = FakeChat({"It rained in Leeds.": "- It rained.\n- It rained in Le"}, finish="length")
    backend = atomic_facts.get_backend("llm", base_url=serve(fake), model="m", demos=str(demos), prompt=str(prompt))
    assert backend.split_sentence("It rained in Leeds.") == ["It rained."]
    none = FakeChat({"Thanks for asking.": "This sentence does not contain any facts."})
    backend = atomic_facts.get_backend("llm", base_url=serve(none), model="m", demos=str(demos), prompt=str(prompt))
    assert backend.split_sentence("Thanks for asking.") == []
    assert backend.split_sentences(["Sure, here is a bio.", "Thanks for asking."], wanted=[0]) == [[], []]
    assert len(none.requests) == 1  # 'Sure ...' is never sent (FActScore), and sentence 1 was not wanted


def test_a_demonstration_identical_to_the_sentence_is_never_shown(demo_files) -> None:
    demos, prompt = demo_files
    builder = llm.PromptBuilder(llm.load_demonstrations(demos), llm.load_prompt(prompt), fixed=1, similar=2)
    text = builder.build("Bo Chen plays chess.")
    assert text.count("Bo Chen plays chess.") == 1 and text.rstrip().endswith("Bo Chen plays chess.")


def test_llm_backend_retries_overload_then_gives_up_on_client_errors(serve, demo_files) -> None:
    demos, prompt = demo_files
    fake = FakeChat({"It rained.": "- It rained."}, fail_first=2, status=503)
    backend = llm.LLMFactBackend(serve(fake), "m", retries=2, demos=demos, prompt=prompt)
    assert backend.split_sentence("It rained.") == ["It rained."]
    assert len(fake.requests) == 3
    bad = FakeChat({}, fail_first=5, status=401)
    backend = llm.LLMFactBackend(serve(bad), "m", retries=3, demos=demos, prompt=prompt)
    with pytest.raises(atomic_facts.LLMError, match="401"):
        backend.split_sentence("It rained.")
    assert len(bad.requests) == 1  # no retry on a client error


def test_demonstration_and_prompt_files_are_checked(tmp_path: Path) -> None:
    bad_json = tmp_path / "a.json"
    bad_json.write_text("[{", encoding="utf-8")
    with pytest.raises(llm.DemonstrationError, match=r"a\.json: not JSON"):
        llm.load_demonstrations(bad_json)
    no_facts = tmp_path / "b.json"
    no_facts.write_text(json.dumps([DEMOS[0], {"sentence": "X.", "facts": []}]), encoding="utf-8")
    with pytest.raises(llm.DemonstrationError, match=r"b\.json: \[1\]\.facts"):
        llm.load_demonstrations(no_facts)
    paper_shape = tmp_path / "demons.json"
    paper_shape.write_text(json.dumps({d["sentence"]: d["facts"] for d in DEMOS}), encoding="utf-8")
    assert [d.sentence for d in llm.load_demonstrations(paper_shape)] == [d["sentence"] for d in DEMOS]
    template = tmp_path / "p.txt"
    template.write_text("Break this down.", encoding="utf-8")
    with pytest.raises(llm.DemonstrationError, match="exactly once"):
        llm.load_prompt(template)
    with pytest.raises(ValueError, match="missing.json"):
        atomic_facts.get_backend("llm", base_url="http://127.0.0.1:9", model="m", demos=str(tmp_path / "missing.json"))


def test_packaged_demonstrations_are_human_facts_of_whole_sentences() -> None:
    demos = llm.load_demonstrations()
    assert 200 <= len(demos) <= 500
    assert len({d.sentence for d in demos}) == len(demos)
    assert all(f.endswith((".", '"', "”")) and "  " not in f for d in demos for f in d.facts)
    assert llm.load_prompt() == "Please breakdown the following sentence into independent facts: {sentence}"


def test_backend_registry() -> None:
    with pytest.raises(ValueError, match="LLM_BASE_URL"):
        atomic_facts.get_backend("llm", base_url="", model="m")
    with pytest.raises(ValueError, match="unknown atomic-facts backend 'magic'; choose one of embedded, frames, llm"):
        atomic_facts.get_backend("magic")
    assert atomic_facts.get_backend(None).name == "embedded"


def test_frames_backend_renders_one_fact_per_frame(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse(
        "Both were shot in the confrontation with police and have been recovering in hospital since the attack. Ouch!"
    )
    facts = atomic_facts.get_backend("frames").split(parsed)
    assert facts[0] == [
        "Both were shot in the confrontation with police.",
        "Both have been recovering in hospital since the attack.",
    ]
    assert facts[1] == ["Ouch!"]  # no frame: the sentence itself, never nothing
