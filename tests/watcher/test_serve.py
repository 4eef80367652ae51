"""`dreaming watch` as a person (or launchd) runs it: a real process, real signals, real
nights in child processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from dreaming.ledger import Ledger, runs
from dreaming.vault import Vault
from tests.support import REPO, drop, raw_note
from watcher.control import request_night, wait_result
from watcher.heartbeat import read_heartbeat
from watcher.instance import watching_pid
from watcher.night import NightRequest, NightRunner

ROOT = REPO
DEADLINE = 60.0

# A night child whose model answers by rule, slowly: a SIGTERM lands mid-night.
SLOW_NIGHT = """
import sys, time
from tests.rule_model import install_hooks
install_hooks(lambda event: time.sleep(0.4) if event == "call" else None)
from watcher import cli
sys.argv = ["dreaming", *sys.argv[1:]]
cli.main()
"""

# The service with the slow night child, and (argv[2] == "modules") a report of the model
# libraries it imported, printed after it stops.
SERVE = """
import sys
from pathlib import Path
from watcher.serve import serve
serve(Path(sys.argv[1]), night_command=[sys.executable, "-c", sys.argv[2]])
if sys.argv[3:] == ["modules"]:
    heavy = ("mlx", "mlx_lm", "llama_cpp", "ik_llama_cpp", "transformers", "torch", "gguf")
    print("MODULES", sorted(m for m in sys.modules if m.split(".")[0] in heavy), flush=True)
    import os, resource
    if os.path.exists("/proc/self/statm"):
        # Now, after the night: a peak (ru_maxrss) would count the parent's pages at fork.
        pages = int(open("/proc/self/statm").read().split()[1])
        print("RSS_MB", pages * os.sysconf("SC_PAGE_SIZE") / 2**20, flush=True)
    else:
        print("RSS_MB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, flush=True)
"""


# Slow: `dreaming watch` in a child process, real signals.
pytestmark = pytest.mark.slow


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "watcher.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=DEADLINE,
    )


def wait_for(check: Callable[[], object], seconds: float = DEADLINE) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


class Watcher:
    """A watcher process; its output goes to a file (a full pipe would block it)."""

    def __init__(self, vault: Vault, argv: list[str]) -> None:
        self.vault = vault
        self.out = vault.root.parent / f"watch-{time.monotonic_ns()}.out"
        with self.out.open("wb") as f:
            self.proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)

    def output(self) -> str:
        return self.out.read_text(encoding="utf-8", errors="replace")

    def beat(self) -> dict[str, Any]:
        doc = read_heartbeat(self.vault)
        return dict(doc) if doc is not None else {}

    def started(self) -> Watcher:
        wait_for(lambda: self.beat().get("running") or self.proc.poll() is not None)
        assert self.proc.poll() is None, self.output()
        return self

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=DEADLINE)


@pytest.fixture
def watchers() -> Iterator[list[Watcher]]:
    made: list[Watcher] = []
    yield made
    for w in made:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()


def watch(made: list[Watcher], vault: Vault) -> Watcher:
    w = Watcher(vault, [sys.executable, "-m", "watcher.cli", "watch", "--vault", str(vault.root)])
    made.append(w)
    return w.started()


def serve_slow(made: list[Watcher], vault: Vault, *extra: str) -> Watcher:
    w = Watcher(vault, [sys.executable, "-c", SERVE, str(vault.root), SLOW_NIGHT, *extra])
    made.append(w)
    return w.started()


def test_status_says_how_to_start_a_watcher_when_none_ever_ran(vault: Vault) -> None:
    said = cli("status", "--vault", str(vault.root))
    assert (
        f"Watcher: not running; start it with: dreaming watch --vault {vault.root}" in said.stdout
    )
    doc = json.loads(cli("status", "--vault", str(vault.root), "--json").stdout)
    assert doc["watcher"]["running"] is False


def test_watch_runs_status_shows_it_and_sigterm_stops_it_with_exit_0(
    vault: Vault, watchers: list[Watcher]
) -> None:
    w = watch(watchers, vault)
    assert w.beat()["pid"] == w.proc.pid
    said = cli("status", "--vault", str(vault.root))
    assert f"Watcher: running (pid {w.proc.pid})" in said.stdout
    assert "next night" in said.stdout
    doc = json.loads(cli("status", "--vault", str(vault.root), "--json").stdout)["watcher"]
    assert (doc["running"], doc["state"], doc["pid"]) == (True, "watching", w.proc.pid)
    started = time.monotonic()
    assert w.terminate() == 0
    assert time.monotonic() - started < 10
    assert (w.beat()["running"], w.beat()["state"]) == (False, "stopped")
    assert "Watcher: stopped" in cli("status", "--vault", str(vault.root)).stdout
    assert "watching" in w.output()
    assert "dreaming service install" in w.output()
    log = (vault.logs / "watch.log").read_text()
    assert "signal SIGTERM: stopping" in log


@pytest.mark.timeout(60)
def test_a_watcher_with_a_named_pipe_in_articles_says_so_and_still_stops_on_sigterm(
    vault: Vault, watchers: list[Watcher]
) -> None:
    w = watch(watchers, vault)
    pipe = vault.articles / "Pipe.md"
    deadline = time.monotonic() + 15
    # Made again each second until said: the heartbeat says running a moment before the
    # watch is in place. A watcher stuck opening the pipe never says a word.
    while "articles/Pipe.md" not in w.output() and time.monotonic() < deadline:
        pipe.unlink(missing_ok=True)
        os.mkfifo(pipe)
        time.sleep(1)
    w.proc.send_signal(signal.SIGTERM)
    assert w.proc.wait(timeout=10) == 0
    assert "article articles/Pipe.md: a named pipe, not a file; delete it" in w.output()


def test_a_second_watch_on_the_vault_is_refused_naming_the_first(
    vault: Vault, watchers: list[Watcher]
) -> None:
    w = watch(watchers, vault)
    second = cli("watch", "--vault", str(vault.root))
    assert second.returncode == 1
    assert f"a dreaming watcher (pid {w.proc.pid}) already watches this vault" in second.stderr
    assert second.stderr.count("\n") == 1


def test_the_scheduled_night_runs_the_real_synthesize_child_on_an_empty_vault(
    vault: Vault, watchers: list[Watcher]
) -> None:
    at = (datetime.now() + timedelta(seconds=4)).strftime("%H:%M:%S")
    (vault.state / "config.toml").write_text(f'schedule = "{at}"\n')
    w = watch(watchers, vault)
    wait_for(lambda: (w.beat().get("last_night") or {}).get("status"))
    night = w.beat()["last_night"]
    assert night["status"] == "ok", (night, (vault.logs / "night.log").read_text())
    assert "0 model calls" in night["summary"]
    with Ledger(vault.ledger_path, read_only=True) as ledger:
        last = runs.last(ledger)
    assert last is not None
    assert (last.kind, last.status) == ("night", "ok")
    assert "night ok" in w.output()
    assert w.terminate() == 0


def test_synthesize_while_a_watcher_runs_goes_through_it(
    vault: Vault, watchers: list[Watcher]
) -> None:
    watch(watchers, vault)
    for args in (["--now"], []):
        said = cli("synthesize", "--vault", str(vault.root), *args)
        assert said.returncode == 0, said.stderr
        assert "the watcher (pid" in said.stderr
        assert said.stdout.startswith("run ")
        assert " ok: " in said.stdout
    assert "night started (requested)" in watchers[0].output()


def test_synthesize_now_without_a_watcher_runs_here_and_says_so(vault: Vault) -> None:
    said = cli("synthesize", "--now", "--vault", str(vault.root))
    assert said.returncode == 0, said.stderr
    assert "no watcher runs for this vault; running the night here" in said.stderr
    assert said.stdout.startswith("run ")


def done_units(vault: Vault) -> int:
    db = sqlite3.connect(f"file:{vault.ledger_path}?mode=ro", uri=True)
    try:
        (n,) = db.execute("SELECT COUNT(*) FROM work WHERE status = 'done'").fetchone()
    except sqlite3.Error:
        return 0
    finally:
        db.close()
    return int(n)


TALKS = {
    "bread.md": raw_note(
        ("user", "How do I keep Sourdough Bread fresh for a week?"),
        ("assistant", "Wrap it in a cotton cloth, or slice it and freeze it."),
        title="Bread",
    ),
    "requests.md": raw_note(
        ("user", "The `requests` library times out in Python. What should I do?"),
        ("assistant", "Pass a timeout to requests.get and retry with backoff."),
        title="Timeouts",
    ),
}


def test_sigterm_during_a_night_lets_the_child_finish_its_unit_and_record_interrupted(
    vault: Vault, watchers: list[Watcher]
) -> None:
    for name, text in TALKS.items():
        drop(vault, name, text)
    w = serve_slow(watchers, vault)
    request_night(vault, NightRequest("requested", model="rule:any"))
    wait_for(lambda: done_units(vault) >= 1)
    assert w.beat()["state"] == "night"
    assert w.terminate() == 0, w.output()
    with Ledger(vault.ledger_path, read_only=True) as ledger:
        last = runs.last(ledger)
    assert last is not None
    assert last.status == "interrupted", (vault.logs / "night.log").read_text()
    assert last.commit_sha is not None, "the stopped night committed its report"
    assert w.beat()["last_night"]["status"] == "interrupted"
    assert "night interrupted" in w.output()


def test_a_started_service_imports_no_model_library_and_stays_under_150_mb(
    vault: Vault, watchers: list[Watcher]
) -> None:
    w = serve_slow(watchers, vault, "modules")
    rid = request_night(vault, NightRequest("requested", model="rule:any"))
    result = wait_result(vault, rid, alive=lambda: watching_pid(vault) is not None)
    assert result.status == "ok", (result, (vault.logs / "night.log").read_text())
    assert w.terminate() == 0
    assert "MODULES []" in w.output(), w.output()
    rss = float(w.output().split("RSS_MB ")[1].split()[0])
    assert rss < 150, "the watcher stays small: the night's memory went with its child"


def test_the_night_log_is_rotated_before_a_night_past_1_mb(
    vault: Vault, watchers: list[Watcher]
) -> None:
    vault.logs.mkdir(parents=True, exist_ok=True)
    (vault.logs / "night.log").write_bytes(b"x" * (1024 * 1024 + 1))
    serve_slow(watchers, vault)
    rid = request_night(vault, NightRequest("requested", model="rule:any"))
    wait_result(vault, rid, alive=lambda: watching_pid(vault) is not None)
    assert (vault.logs / "night.log.1").stat().st_size == 1024 * 1024 + 1
    assert (vault.logs / "night.log").stat().st_size < 1024 * 1024
    assert os.path.getsize(vault.logs / "night.log") > 0


HOLD_RUN_LOCK = """
import sys, time
from dreaming.vault import Vault
from dreaming.vault.lock import run_lock
with run_lock(Vault.open(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""

# Stands in for `python -m watcher.cli`: says what it was asked, fails with an error line.
FAILING_CHILD = [sys.executable, "-c", "import sys; print(sys.argv[1:]); sys.exit('boom: fix X')"]


def test_a_night_waits_for_a_run_lock_another_process_holds_and_says_so(vault: Vault) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_RUN_LOCK, str(vault.root), "1.5"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    said: list[str] = []
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        result = NightRunner(vault, FAILING_CHILD).run(NightRequest("scheduled"), said.append)
    finally:
        holder.kill()
        holder.communicate()
    assert said == [
        f"the night waits: another dreaming run (pid {holder.pid}) is working on this vault"
    ]
    assert result.status == "failed", "it ran once the lock was free"


def test_a_night_stopped_while_it_waits_for_the_lock_is_skipped(vault: Vault) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_RUN_LOCK, str(vault.root), "60"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    runner = NightRunner(vault, FAILING_CHILD)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        threading.Timer(0.5, runner.terminate).start()
        result = runner.run(NightRequest("scheduled"), lambda _: None)
    finally:
        holder.kill()
        holder.communicate()
    assert result.status == "skipped"
    assert not (vault.logs / "night.log").exists(), "no child started"


def test_a_failed_night_child_is_reported_with_its_last_line(vault: Vault) -> None:
    result = NightRunner(vault, FAILING_CHILD).run(
        NightRequest("requested", stage="segment", limit=3, model="m"), lambda _: None
    )
    assert (result.status, result.exit_code) == ("failed", 1)
    assert result.summary == "the night failed: boom: fix X"
    log = (vault.logs / "night.log").read_text()
    assert "--- " in log
    assert "night (requested)" in log
    args = ["synthesize", "--here", "--vault", str(vault.root), "--stage", "segment"]
    assert str([*args, "--limit", "3", "--model", "m"]) in log
