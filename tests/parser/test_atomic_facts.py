"""Atomic facts: the LLM backend against a fake OpenAI-compatible server on loopback, and the embedded backend."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from parser import atomic_facts
from parser.embedded import EmbeddedParser


class FakeChat:
    """Speaks /v1/chat/completions; replies with canned facts, can fail a few times first."""

    def __init__(self, replies: dict[str, str], fail_first: int = 0, status: int = 503):
        self.replies, self.fail_first, self.status = replies, fail_first, status
        self.requests: list[dict] = []
        self.headers: list[dict] = []

    def handler(self) -> type[BaseHTTPRequestHandler]:
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
                sentence = body["messages"][-1]["content"]
                payload = {
                    "id": "x", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": fake.replies[sentence]},
                                 "finish_reason": "stop"}],
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
    servers = []

    def start(fake: FakeChat) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), fake.handler())
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_llm_backend_sends_instruction_demonstrations_and_reads_bullets(serve, embedded: EmbeddedParser) -> None:
    text = "Ada Lovelace wrote the first program. She died in 1852."
    fake = FakeChat({
        "Ada Lovelace wrote the first program.": "- Ada Lovelace wrote a program.\n- The program was the first program.",
        "She died in 1852.": "Here are the facts:\n- Ada Lovelace died.\n- Ada Lovelace died in 1852.",
    })
    url = serve(fake)
    backend = atomic_facts.get_backend("llm", base_url=url, model="tiny-chat", api_key="k-123")
    facts = backend.split(embedded.parse(text))
    assert facts == [
        ["Ada Lovelace wrote a program.", "The program was the first program."],
        ["Ada Lovelace died.", "Ada Lovelace died in 1852."],
    ]
    first = fake.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["model"] == "tiny-chat" and first["temperature"] == 0
    roles = [m["role"] for m in first["messages"]]
    assert roles[0] == "system" and roles[-1] == "user" and roles.count("assistant") == len(atomic_facts.DEMONSTRATIONS)
    assert "independent facts" in first["messages"][0]["content"]
    assert fake.headers[0]["Authorization"] == "Bearer k-123"


def test_llm_backend_retries_overload_then_gives_up_on_client_errors(serve) -> None:
    fake = FakeChat({"It rained.": "- It rained."}, fail_first=2, status=503)
    backend = atomic_facts.LLMFactBackend(serve(fake), "m", retries=2)
    assert backend.split_sentence("It rained.") == ["It rained."]
    assert len(fake.requests) == 3
    bad = FakeChat({}, fail_first=5, status=401)
    backend = atomic_facts.LLMFactBackend(serve(bad), "m", retries=3)
    with pytest.raises(atomic_facts.LLMError, match="401"):
        backend.split_sentence("It rained.")
    assert len(bad.requests) == 1  # no retry on a client error


def test_llm_backend_needs_endpoint_and_model() -> None:
    with pytest.raises(ValueError, match="LLM_BASE_URL"):
        atomic_facts.get_backend("llm", base_url="", model="m")
    with pytest.raises(ValueError, match="unknown atomic-facts backend"):
        atomic_facts.get_backend("magic")


def test_fact_lines_parsing() -> None:
    assert atomic_facts.parse_fact_lines("- A.\n* B.\n1. C.\n\n2) D.") == ["A.", "B.", "C.", "D."]
    assert atomic_facts.parse_fact_lines("A.\nB.") == ["A.", "B."]


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
