"""`openai:<base url>[#model]` — any OpenAI-compatible chat-completions server.

The load-once route across runs (the server keeps the model warm between nights)
and the way to move inference to a bigger machine. Standard library only: one POST
per call, greedy, the same single output backstop as in-process models.

Constraints: a Json one is sent as `response_format` (structured output); every
constrained answer is validated when it arrives, since a server may ignore the hint.

Failure policy: a refused or dropped connection and HTTP 5xx are transient (a
server restarting), so they are retried a bounded number of times with exponential
backoff; a timeout is not, since a hung server would multiply the wait; anything
else (4xx, garbage, a malformed address) fails the call at once with what to check.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dreaming.config import DEFAULT_MODEL
from dreaming.errors import ModelError
from dreaming.model.base import (
    MAX_OUTPUT_TOKENS,
    Completion,
    HoldsNoWeights,
    Usage,
    constrained,
    finished_text,
    one_line,
)
from dreaming.model.constraint import Constraint, Json

DEFAULT_TIMEOUT = 600.0
"""Seconds for one whole answer: a 1.5B on a laptop CPU writes ~3 tok/s."""
DEFAULT_RETRIES = 3


def _start_hint(url: str, folder: Path | None) -> str:
    where = str(folder) if folder else "<folder>"
    return (
        f"no model server at {url}; start one with: mlx_lm.server --model {where} "
        f"--port 8080, or set model to {DEFAULT_MODEL}"
    )


class _Transient(Exception):
    def __init__(self, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


class OpenAIModel(HoldsNoWeights):
    def __init__(
        self,
        spec: str,
        base_url: str,
        model: str | None = None,
        *,
        default_folder: Path | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._spec = spec
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.default_folder = default_folder
        """The installed default model, named in the hint on how to start a server."""
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep

    @property
    def spec(self) -> str:
        return self._spec

    @property
    def endpoint(self) -> str:
        root = self.base_url if self.base_url.endswith("/v1") else self.base_url + "/v1"
        return root + "/chat/completions"

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        messages = [{"role": "user", "content": user}]
        if system:
            messages.insert(0, {"role": "system", "content": system})
        body: dict[str, Any] = {
            "messages": messages,
            "temperature": 0,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "stream": False,
        }
        # Without a name, mlx_lm.server and llama.cpp answer with the model they serve;
        # vLLM and Ollama need one (#model).
        if self.model:
            body["model"] = self.model
        if isinstance(constraint, Json):
            body["response_format"] = response_format(constraint)
        started = time.perf_counter()
        raw = self._post(stage, json.dumps(body).encode("utf-8"))
        seconds = time.perf_counter() - started
        return constrained(stage, self._parse(stage, raw, seconds), constraint)

    def _post(self, stage: str, data: bytes) -> bytes:
        attempt = 0
        while True:
            try:
                return self._post_once(stage, data)
            except _Transient as e:
                attempt += 1
                if attempt > self.retries:
                    if e.refused:
                        raise ModelError(_start_hint(self.base_url, self.default_folder)) from None
                    raise ModelError(
                        f"model server at {self.base_url} failed {attempt} times for stage "
                        f"{stage} ({e}); check the server's log"
                    ) from None
                self._sleep(self.backoff * 2 ** (attempt - 1))

    def _post_once(self, stage: str, data: bytes) -> bytes:
        try:
            request = urllib.request.Request(
                self.endpoint,
                data=data,
                headers={"Content-Type": "application/json", "Accept": "application/json"},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body: bytes = response.read()
                return body
        except urllib.error.HTTPError as e:
            detail = one_line(e.read()[:400].decode("utf-8", "replace"))
            if e.code >= 500:
                raise _Transient(f"HTTP {e.code}: {detail}") from None
            raise ModelError(
                f"model server at {self.base_url} rejected the request for stage {stage} "
                f"(HTTP {e.code}: {detail}); check the base URL and the #model name"
            ) from None
        except TimeoutError:
            raise self._timeout(stage) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise self._timeout(stage) from None
            refused = isinstance(e.reason, ConnectionRefusedError)
            raise _Transient(one_line(e.reason), refused=refused) from None
        except (http.client.InvalidURL, ValueError) as e:
            # A malformed address fails the same way every time: retrying cannot help.
            raise ModelError(
                f"model server address {self.base_url!r} is not a valid URL ({one_line(e)}); "
                "expected http(s)://HOST[:PORT][/PATH], e.g. http://127.0.0.1:8080"
            ) from None
        except (http.client.HTTPException, ConnectionError) as e:
            raise _Transient(f"{type(e).__name__}: {one_line(e)}") from None

    def _timeout(self, stage: str) -> ModelError:
        return ModelError(
            f"no answer from model server at {self.base_url} within {self.timeout:.0f} s "
            f"for stage {stage}; the server may be hung or overloaded: restart it"
        )

    def _parse(self, stage: str, raw: bytes, seconds: float) -> Completion:
        def garbage(why: str) -> ModelError:
            sample = one_line(raw[:80].decode("utf-8", "replace"))
            return ModelError(
                f"model server at {self.base_url} sent {why} for stage {stage} "
                f"({sample!r}); is it an OpenAI-compatible server?"
            )

        try:
            payload = json.loads(raw)
        except ValueError:
            raise garbage("invalid JSON") from None
        try:
            choice = payload["choices"][0]
            content = choice["message"].get("content") or ""
            finish = choice.get("finish_reason")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise garbage("no choices[0].message") from None
        if not isinstance(content, str):
            raise garbage("a non-text message")
        usage = _usage(payload, seconds)
        return finished_text(stage, content, usage, stopped=finish != "length")


def response_format(constraint: Json) -> dict[str, Any]:
    """The OpenAI structured-output request for a Json constraint; llama.cpp's server,
    vLLM and Ollama hold decoding to it, others ignore it and the answer is validated."""
    schema = dict(constraint.schema)
    schema["required"] = list(schema["properties"])
    schema["additionalProperties"] = False
    return {
        "type": "json_schema",
        "json_schema": {"name": "answer", "strict": True, "schema": schema},
    }


def _usage(payload: dict[str, Any], seconds: float) -> Usage:
    def count(value: Any) -> int:
        return int(value) if isinstance(value, int | float) else 0

    given = payload.get("usage")
    usage: dict[str, Any] = given if isinstance(given, dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    prompt_seconds = None
    timings = payload.get("timings")  # llama.cpp's server adds these
    if isinstance(timings, dict):
        cached = cached or count(timings.get("cache_n"))
        if isinstance(timings.get("prompt_ms"), int | float):
            prompt_seconds = float(timings["prompt_ms"]) / 1000
    return Usage(
        prompt_tokens=count(usage.get("prompt_tokens")),
        generated_tokens=count(usage.get("completion_tokens")),
        seconds=seconds,
        cached_tokens=cached,
        prompt_seconds=prompt_seconds,
    )
