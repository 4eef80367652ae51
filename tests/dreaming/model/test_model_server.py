"""The OpenAI route against a real `mlx_lm.server` on loopback, serving smollm2-135m."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreaming.model import load
from tests.fixtures.model.support import free_port, tiny_cache, tiny_folder

__all__ = ["tiny_cache", "tiny_folder"]  # fixtures, imported for pytest

READY_SECONDS = 180


# Slow: a real mlx_lm.server process.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mlx_server(tiny_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "mlx_lm", "server", "--model", str(tiny_folder)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "WARNING"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + READY_SECONDS
            while True:
                if process.poll() is not None:
                    pytest.fail(f"mlx_lm.server exited: {log.read_text(errors='replace')[-800:]}")
                try:
                    with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"mlx_lm.server not ready in {READY_SECONDS} s")
                time.sleep(0.5)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_real_server_answers_with_usage(mlx_server: str) -> None:
    model = load(f"openai:{mlx_server}")
    completion = model.complete(
        "check", "Answer in one short sentence.", "What is the capital of France?"
    )
    assert completion.text.strip()
    usage = completion.usage
    assert usage.prompt_tokens > 5
    assert 0 < usage.generated_tokens < 2048
    assert usage.seconds > 0
