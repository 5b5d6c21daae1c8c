"""The llm scorer against a fake OpenAI-compatible endpoint on loopback: prompt, P(Yes), hard labels, retries."""
from __future__ import annotations

import json
import math
from http.server import BaseHTTPRequestHandler

import pytest

from annotation_tasks.scoring.base import Claim, Reference, ScorerError
from annotation_tasks.scoring.llm import DEFAULT_TEMPLATE, LLMScorer, render
from tests.crowd.fakes.loopback import LoopbackFake

ARTICLE = Reference("The council approved the library on Tuesday.")


class FakeChat(LoopbackFake):
    """Answers /chat/completions from a queue of (status, body) replies; records every request body."""

    def __init__(self, replies: list[tuple[int, dict]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict] = []

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                status, reply = fake.replies.pop(0) if len(fake.replies) > 1 else fake.replies[0]
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _choice(content: str, top: list[tuple[str, float]] | None = None) -> dict:
    choice: dict = {"index": 0, "message": {"role": "assistant", "content": content}}
    if top is not None:
        choice["logprobs"] = {"content": [{"token": top[0][0], "logprob": top[0][1],
                                           "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}]}
    return {"choices": [choice]}


@pytest.fixture
def fake():
    servers = []

    def start(replies):
        server = FakeChat(replies).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def test_prompt_holds_definition_example_article_and_qa():
    template = DEFAULT_TEMPLATE.read_text()
    prompt = render(template, ARTICLE, Claim.qa("Who approved something?", "the council", "approved"))
    assert "deduced from the article" in prompt
    assert prompt.count("Answer: Yes") == 1 and prompt.count("Answer: No") == 1  # one supported, one unsupported
    assert "ARTICLE: The council approved the library on Tuesday." in prompt
    assert "QA: Who approved something? - the council" in prompt
    assert prompt.rstrip().endswith("Is the QA supported by the article? Answer with only Yes or No.\nAnswer:")


def test_p_yes_from_first_token_logprobs(fake):
    server = fake([(200, _choice("Yes", [("Yes", math.log(0.6)), ("No", math.log(0.2)), (" yes", math.log(0.1))]))])
    scorer = LLMScorer(server.url + "/v1", "judge-1", api_key="k")
    score = scorer.score_batch([(ARTICLE, Claim.fact("The council approved the library."))])[0]
    assert score.value == pytest.approx(0.7 / 0.9)
    assert score.evidence["from"] == "logprobs"
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    assert request["model"] == "judge-1" and request["logprobs"] is True and request["max_tokens"] == 1
    assert "STATEMENT: The council approved the library." in request["messages"][0]["content"]


def test_hard_label_when_the_endpoint_gives_no_logprobs(fake):
    server = fake([(200, _choice("No."))])
    scorer = LLMScorer(server.url, "judge-1", concurrency=1)
    assert scorer.score_batch([(ARTICLE, Claim.fact("The mayor approved it."))])[0].value == 0.0
    server.replies = [(200, _choice("yes"))]
    assert scorer.score_batch([(ARTICLE, Claim.fact("The council approved it."))])[0].value == 1.0


def test_an_unparsed_reply_scores_half_and_says_so(fake):
    server = fake([(200, _choice("Maybe"))])
    score = LLMScorer(server.url, "judge-1").score_batch([(ARTICLE, Claim.fact("x"))])[0]
    assert score.value == 0.5 and score.evidence["unparsed"] is True


def test_server_errors_are_retried_then_reported(fake):
    server = fake([(500, {"error": "busy"}), (200, _choice("Yes"))])
    scorer = LLMScorer(server.url, "judge-1", retries=2)
    assert scorer.score_batch([(ARTICLE, Claim.fact("x"))])[0].value == 1.0
    assert len(server.requests) == 2
    down = fake([(400, {"error": "bad request"})])
    with pytest.raises(ScorerError, match="failed"):
        LLMScorer(down.url, "judge-1", retries=3).score_batch([(ARTICLE, Claim.fact("x"))])
    assert len(down.requests) == 1  # a client error is not retried


def test_a_replaced_template_changes_prompt_and_version(fake, tmp_path):
    server = fake([(200, _choice("Yes"))])
    custom = tmp_path / "paper.txt"
    custom.write_text("Definition {kind}.\nArticle: {article}\n{item}\nYes or No? {not_a_placeholder}")
    default, replaced = LLMScorer(server.url, "judge-1"), LLMScorer(server.url, "judge-1", template=custom)
    assert default.version != replaced.version
    replaced.score_batch([(ARTICLE, Claim.fact("x"))])
    assert server.requests[-1]["messages"][0]["content"].endswith("Yes or No? {not_a_placeholder}")
    missing = tmp_path / "bad.txt"
    missing.write_text("no placeholders")
    with pytest.raises(ScorerError, match="placeholders"):
        LLMScorer(server.url, "judge-1", template=missing)


def test_many_pairs_keep_their_order(fake):
    server = fake([(200, _choice("Yes"))])
    scorer = LLMScorer(server.url, "judge-1", concurrency=3)
    pairs = [(ARTICLE, Claim.fact(f"claim {i}")) for i in range(7)]
    assert [s.value for s in scorer.score_batch(pairs)] == [1.0] * 7
    assert sorted(r["messages"][0]["content"].split("STATEMENT: ")[1].split("\n")[0] for r in server.requests) == sorted(
        f"claim {i}" for i in range(7))
