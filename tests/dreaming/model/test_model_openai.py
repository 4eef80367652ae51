"""The OpenAI-compatible route against a stdlib fake server on loopback: answers,
retries with backoff, garbage, hangs and a server that is not there."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from dreaming.errors import ModelError
from dreaming.model import DEFAULT_MODEL, MAX_OUTPUT_TOKENS, ModelCallError, load
from dreaming.model.backends.openai import OpenAIModel
from dreaming.model.constraint import Choice, Json
from tests.fixtures.model.support import free_port

# Slow: a server on loopback, with real timeouts.
pytestmark = pytest.mark.slow


@dataclass
class Reply:
    status: int = 200
    body: bytes | dict[str, Any] = b""
    delay: float = 0.0


@dataclass
class FakeServer:
    url: str
    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def answer(content: str | None, finish: str = "stop", **usage: Any) -> dict[str, Any]:
    return {
        "choices": [
            {"message": {"role": "assistant", "content": content}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, **usage},
    }


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer(url="", replies=[])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            state.requests.append(json.loads(self.rfile.read(length)))
            state.paths.append(self.path)
            reply = state.replies.pop(0) if state.replies else Reply(500, b"no reply scripted")
            time.sleep(reply.delay)
            body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def model_for(server: FakeServer, **kwargs: Any) -> tuple[OpenAIModel, list[float]]:
    sleeps: list[float] = []
    model = OpenAIModel(
        "openai:test", server.url, kwargs.pop("model", None), sleep=sleeps.append, **kwargs
    )
    return model, sleeps


def test_answers_with_usage_and_sends_a_greedy_request(server: FakeServer) -> None:
    server.replies.append(Reply(body=answer("Paris.", prompt_tokens_details={"cached_tokens": 8})))
    model = load(f"openai:{server.url}#qwen")
    completion = model.complete("extract", "Be brief.", "Capital of France?", unit="chunk:1")
    assert completion.text == "Paris."
    assert model.load_seconds is None  # the server loaded it, not this process
    usage = completion.usage
    assert (usage.prompt_tokens, usage.generated_tokens, usage.cached_tokens) == (12, 3, 8)
    assert usage.seconds > 0
    sent = server.requests[0]
    assert server.paths == ["/v1/chat/completions"]
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert (sent["temperature"], sent["max_tokens"], sent["model"]) == (
        0,
        MAX_OUTPUT_TOKENS,
        "qwen",
    )


def test_base_url_with_v1_is_not_doubled(server: FakeServer) -> None:
    server.replies.append(Reply(body=answer("ok")))
    model, _ = model_for(server)
    model.base_url += "/v1"
    model.complete("s", None, "u")
    assert server.paths == ["/v1/chat/completions"]
    assert "model" not in server.requests[0]
    assert [m["role"] for m in server.requests[0]["messages"]] == ["user"]


def test_llama_cpp_timings_give_cache_and_prompt_time(server: FakeServer) -> None:
    body = answer("ok")
    body["timings"] = {"cache_n": 30, "prompt_ms": 250.0}
    server.replies.append(Reply(body=body))
    usage = model_for(server)[0].complete("s", None, "u").usage
    assert (usage.cached_tokens, usage.prompt_seconds) == (30, 0.25)


def test_5xx_is_retried_with_exponential_backoff(server: FakeServer) -> None:
    server.replies += [Reply(503, b"loading"), Reply(502, b"bad gateway"), Reply(body=answer("ok"))]
    model, sleeps = model_for(server, backoff=0.5)
    assert model.complete("s", None, "u").text == "ok"
    assert sleeps == [0.5, 1.0]
    assert len(server.requests) == 3


def test_retries_are_bounded(server: FakeServer) -> None:
    server.replies += [Reply(500, b"boom")] * 5
    model, sleeps = model_for(server, retries=2)
    with pytest.raises(ModelError, match=r"failed 3 times for stage s .*HTTP 500"):
        model.complete("s", None, "u")
    assert len(server.requests) == 3
    assert len(sleeps) == 2


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"<html>not json</html>", "invalid JSON"),
        (b'{"error": "x"}', "no choices"),
        (b'{"choices": []}', "no choices"),
        (b"[1, 2]", "no choices"),
        (b'{"choices": [{"message": {"content": 7}}]}', "non-text"),
    ],
)
def test_garbage_fails_the_call_without_retry(server: FakeServer, body: bytes, why: str) -> None:
    server.replies.append(Reply(body=body))
    model, sleeps = model_for(server)
    with pytest.raises(ModelError, match=why) as caught:
        model.complete("extract", None, "u")
    assert "stage extract" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert sleeps == []


def test_client_errors_are_not_retried(server: FakeServer) -> None:
    server.replies.append(Reply(404, b'{"error": "model not found"}'))
    model, sleeps = model_for(server)
    with pytest.raises(ModelError, match=r"HTTP 404.*#model"):
        model.complete("s", None, "u")
    assert sleeps == []


def test_a_hanging_server_times_out_once(server: FakeServer) -> None:
    server.replies.append(Reply(body=answer("late"), delay=1.5))
    model, sleeps = model_for(server, timeout=0.3)
    started = time.perf_counter()
    with pytest.raises(ModelError, match=r"no answer from model server .* within 0 s for stage s"):
        model.complete("s", None, "u")
    assert time.perf_counter() - started < 1.4
    assert sleeps == []


def test_runaway_and_empty_answers_fail_the_call(server: FakeServer) -> None:
    server.replies += [Reply(body=answer("la la la", finish="length")), Reply(body=answer(None))]
    model, _ = model_for(server)
    with pytest.raises(ModelError, match=f"did not stop within {MAX_OUTPUT_TOKENS} tokens"):
        model.complete("s", None, "u")
    with pytest.raises(ModelError, match="returned nothing for stage s"):
        model.complete("s", None, "u")


def test_no_server_says_how_to_start_one() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    sleeps: list[float] = []
    model = OpenAIModel("openai:x", url, sleep=sleeps.append, retries=2)
    with pytest.raises(
        ModelError, match=f"no model server at {url}; start one with: mlx_lm.server --model"
    ) as caught:
        model.complete("s", None, "u")
    assert DEFAULT_MODEL in str(caught.value)
    assert sleeps == [0.5, 1.0]


@pytest.mark.parametrize("url", ["http://[::1", "http://localhost:80x80", "http://local host:8080"])
def test_a_malformed_address_fails_at_once_without_retry(url: str) -> None:
    sleeps: list[float] = []
    model = OpenAIModel("openai:x", url, sleep=sleeps.append, retries=3)
    with pytest.raises(ModelError, match="is not a valid URL") as caught:
        model.complete("s", None, "u")
    assert url in str(caught.value)
    assert "\n" not in str(caught.value)
    assert sleeps == []


def test_a_json_constraint_is_sent_as_structured_output(server: FakeServer) -> None:
    schema = {"type": "object", "properties": {"subject": {"type": "string"}}}
    server.replies.append(Reply(body=answer('{\n  "subject": "Ada"\n}')))
    model, _ = model_for(server)
    completion = model.complete("anchor", None, "q", constraint=Json(schema))
    assert json.loads(completion.text) == {"subject": "Ada"}
    sent = server.requests[0]["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["schema"]["required"] == ["subject"]
    assert sent["json_schema"]["schema"]["additionalProperties"] is False


def test_a_server_answer_outside_the_constraint_fails_the_call(server: FakeServer) -> None:
    server.replies += [Reply(body=answer("Yes.")), Reply(body=answer(" no\n"))]
    model, _ = model_for(server)
    yes_no = Choice(("yes", "no"))
    with pytest.raises(ModelCallError, match="breaks its Choice constraint") as caught:
        model.complete("judge", None, "q", constraint=yes_no)
    assert caught.value.usage is not None
    assert caught.value.usage.prompt_tokens == 12  # the call was paid for
    assert model.complete("judge", None, "q", constraint=yes_no).text == "no"
    assert "response_format" not in server.requests[1]
