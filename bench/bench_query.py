"""The read path's bench: the navigation index on a generated wiki, and basic-memory
side by side on a smaller one, in one run.

    python bench/bench_query.py [--articles 10000] [--small 1000] [--no-basic-memory]

Prints:
- the CPU model and the Python version
- on a fresh `dreaming init` vault of --articles generated articles (bench/wiki_gen.py),
  a table of measure, value, goal and ok/MISS:
  - index build: the first full refresh of a fresh Reader (goal < 10 s)
  - a cold `dreaming query resolve NAME --vault V` process, median of 5 (goal < 0.5 s)
  - in-process p50 and p95 of 200 calls each through Reader (each refreshes first, as
    a user's does): resolve of titles and aliases (goal p50 < 5 ms), section of a real
    heading (goal p50 < 10 ms), search of the 50 known-answer queries (goal p50 < 50 ms);
    three ways: back to back, seconds apart with no file events (every refresh `lstat`s
    every file: no goal, shown for scale) and seconds apart with file events followed,
    as `dreaming mcp` reads
  - an article edited in place: the next refresh once its file event has landed (file
    events followed), and once the 1 s recheck window has passed without them (every
    file `lstat`ed, the one parsed; no goal), and the resolve after it; an article saved
    by rename (as most editors save): the next resolve, refresh included; medians over
    20 articles each (goal < 50 ms)
  - search quality: the gold article at rank 1 and in the top 5, of 50 queries
- on a --small generated vault (the same generator, its own 50 queries), basic-memory
  (from PyPI, in its own Python 3.12 venv under ~/.cache/dreaming-bench/bm-venv, made on
  the first run; its HOME and config in a temp folder) given a copy of the articles, and
  dreaming on the same articles: index build seconds, search p50 (in-process, warm),
  one search from a cold CLI process, top-1 and top-5 hits; the ratios basic-memory ÷
  dreaming for the times. basic-memory that cannot be installed or run is one line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from bench.wiki_gen import HEADINGS, Query, generate  # noqa: E402
from dreaming.ledger import Ledger  # noqa: E402
from dreaming.query import Reader  # noqa: E402
from dreaming.query.index import RECHECK_SECONDS  # noqa: E402
from dreaming.vault import Vault  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402

BM_VENV = Path.home() / ".cache" / "dreaming-bench" / "bm-venv"
BM_INSTALL_S = 1800
BM_INDEX_S = 3600
BM_SEARCH_S = 900
CALLS = 200
EDITS = 20
COLD_RUNS = 5

# Run by basic-memory's own Python: its MCP `search_notes` tool in one event loop (as its
# MCP server answers an agent), one warm-up call, then each query timed. Prints JSON.
BM_SEARCH = """
import json, sys, time
from basic_memory.cli.commands.command_utils import run_with_cleanup
from basic_memory.mcp.tools import search_notes

project, queries = sys.argv[1], json.loads(sys.argv[2])

async def main():
    await search_notes(query="warm up", project=project, output_format="json", page_size=10)
    out = []
    for q in queries:
        start = time.perf_counter()
        found = await search_notes(query=q, project=project, output_format="json", page_size=10)
        seconds = time.perf_counter() - start
        if isinstance(found, str):
            out.append({"seconds": seconds, "error": found[:300], "paths": []})
            continue
        paths = []
        for hit in found["results"]:
            path = hit.get("file_path") or hit.get("permalink") or ""
            if path not in paths:
                paths.append(path)
        out.append({"seconds": seconds, "paths": paths})
    return out

print(json.dumps(run_with_cleanup(main())))
"""


@dataclass(frozen=True, slots=True)
class Row:
    measure: str
    value: str
    goal: str
    ok: bool | None
    """None: no goal, printed as a dash."""


def p50(xs: list[float]) -> float:
    return statistics.median(xs)


def p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


FOLLOWED = "calls >= 1 s apart, file events followed (dreaming mcp)"


def follow(reader: Reader) -> None:
    """Follow file events as `dreaming mcp` does."""
    if not reader.index.follow(wait=10):
        raise SystemExit("the file watch on articles/ never came up")


def timed(call: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    call(*args)
    return time.perf_counter() - start


def print_table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())


def hits(ranked: list[list[str]], queries: list[Query]) -> tuple[int, int]:
    """(gold at rank 1, gold in the top 5), ranked being distinct stems best first."""
    top1 = sum(1 for r, q in zip(ranked, queries, strict=True) if r[:1] == [q.gold])
    top5 = sum(1 for r, q in zip(ranked, queries, strict=True) if q.gold in r[:5])
    return top1, top5


def dreaming_command() -> list[str]:
    """`dreaming` as a user runs it: the console script beside this Python (pyproject's
    `dreaming = "watcher.cli:main"`), else the same entry point through this Python."""
    script = Path(sys.executable).with_name("dreaming")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from watcher.cli import main; main()"]


def cli_env() -> dict[str, str]:
    """This checkout's code first (an editable install may point at another checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def cold_cli(args: list[str], runs: int) -> float:
    """Median wall time of `runs` fresh `dreaming …` processes."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*dreaming_command(), *args], env=cli_env(), capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return p50(times)


def build(vault: Vault, ledger: Ledger, n: int) -> tuple[Reader, float]:
    """A fresh Reader's first full refresh over a vault of `n` articles."""
    reader = Reader(vault, ledger)
    start = time.perf_counter()
    done = reader.index.refresh()
    seconds = time.perf_counter() - start
    if done.parsed != n:
        raise SystemExit(f"the first refresh parsed {done.parsed} of {n} articles")
    return reader, seconds


def edited(text: str, mark: str) -> str:
    """The text with a sentence added to the first paragraph of its first section."""
    at = text.index("\n\n", text.index("\n## ")) + 2
    return f"{text[:at]}The {mark} note was added here. {text[at:]}"


def ten_k(work: Path, n: int) -> list[Row]:
    vault = init_vault(work / "big").vault
    start = time.perf_counter()
    queries = generate(vault.articles, n)
    print(
        f"generated {n} articles and {len(queries)} queries in {time.perf_counter() - start:.1f} s"
    )
    rng = random.Random(11)
    rows: list[Row] = []
    with Ledger(vault.ledger_path) as ledger:
        reader, build_s = build(vault, ledger, n)
        rows.append(
            Row("index build (first full refresh)", f"{build_s:.2f} s", "< 10 s", build_s < 10)
        )

        db = ledger.db
        names = [
            (name, stem)
            for name, stem in db.execute(
                "SELECT name, stem FROM nav_names WHERE how IN ('title', 'alias')"
            )
        ]
        sections = [
            (stem, heading)
            for stem, heading in db.execute(
                "SELECT stem, heading FROM nav_sections WHERE position > 0"
            )
            if heading in HEADINGS
        ]
        titles = dict(db.execute("SELECT stem, title FROM nav_articles"))

        cold = cold_cli(
            ["query", "resolve", rng.choice(names)[0], "--vault", str(vault.root)], COLD_RUNS
        )
        rows.append(
            Row(
                f"cold `dreaming query resolve` (median of {COLD_RUNS})",
                f"{cold:.3f} s",
                "< 0.5 s",
                cold < 0.5,
            )
        )

        asked = [rng.choice(names) for _ in range(CALLS)]
        pairs = [rng.choice(sections) for _ in range(CALLS)]
        texts = [q.text for q in (queries * CALLS)[:CALLS]]
        modes = ("back to back", "calls >= 1 s apart, no file events", FOLLOWED)
        for when in modes:
            # Back to back, a refresh trusts the last full check for 1 s (no lstat); calls
            # seconds apart make each refresh lstat every file (`recheck_seconds = 0` gives
            # every call that check without the wait) unless file events are followed, as
            # `dreaming mcp` does: then a refresh looks only at the files events name.
            reader.index.recheck_seconds = RECHECK_SECONDS if when == modes[0] else 0.0
            if when == FOLLOWED:
                follow(reader)
            for tool, ts, goal in (
                ("resolve", [timed(reader.resolve, n) for n, _ in asked], 0.005),
                ("section", [timed(reader.section, s, h) for s, h in pairs], 0.010),
                ("search", [timed(reader.search, t) for t in texts], 0.050),
            ):
                rows.append(
                    Row(
                        f"{tool}, {when}: p50 / p95 of {CALLS} calls",
                        f"{ms(p50(ts))} / {ms(p95(ts))}",
                        f"p50 < {goal * 1000:.0f} ms" if when != modes[1] else "-",
                        p50(ts) < goal if when != modes[1] else None,
                    )
                )
        reader.index.recheck_seconds = RECHECK_SECONDS
        wrong = sum(1 for name, stem in asked if reader.resolve_stems(name)[:1] != [stem])
        if wrong:
            rows.append(
                Row(
                    "resolve: names not resolved to their article",
                    f"{wrong} of {CALLS}",
                    "0",
                    False,
                )
            )

        stems = rng.sample(sorted(titles), 3 * EDITS)
        refresh_t: dict[str, list[float]] = {"followed": [], "unfollowed": []}
        after_t, renamed_t = [], []
        for i in range(2 * EDITS):
            # Half the edits while file events are followed (an agent's next call comes
            # well after the event lands), half with the index checking every file.
            how = "followed" if i < EDITS else "unfollowed"
            if i == EDITS:
                reader.index.close()
            stem = stems[i]
            path = vault.articles / f"{stem}.md"
            path.write_text(
                edited(path.read_text(encoding="utf-8"), f"editmark{i}"), encoding="utf-8"
            )
            time.sleep(0.2 if how == "followed" else RECHECK_SECONDS + 0.05)
            start = time.perf_counter()
            done = reader.index.refresh()
            refresh_t[how].append(time.perf_counter() - start)
            if done.parsed != 1:
                raise SystemExit(f"an edit in place ({how}): the refresh parsed {done.parsed}")
            after_t.append(timed(reader.resolve, titles[stem]))
        for i in range(EDITS):
            # A save by rename changes the folder: the next read lists it and lstats the one.
            stem = stems[2 * EDITS + i]
            path = vault.articles / f"{stem}.md"
            saved = work / "saved.md"
            saved.write_text(
                edited(path.read_text(encoding="utf-8"), f"renamark{i}"), encoding="utf-8"
            )
            os.replace(saved, path)
            renamed_t.append(timed(reader.resolve, titles[stem]))
            if stem not in reader.search_stems(f"renamark{i}"):
                raise SystemExit(f"a save by rename of {stem} was not seen by the next read")
        for how in ("followed", "unfollowed"):
            took = p50(refresh_t[how])
            goal, ok = ("< 50 ms", took < 0.05) if how == "followed" else ("-", None)
            rows.append(
                Row(
                    f"edit in place, file events {how}: next refresh (median of {EDITS})",
                    ms(took),
                    goal,
                    ok,
                )
            )
        rows.append(Row("  the resolve after it", ms(p50(after_t)), "< 50 ms", p50(after_t) < 0.05))
        rows.append(
            Row(
                f"save by rename: next resolve, refresh included (median of {EDITS})",
                ms(p50(renamed_t)),
                "< 50 ms",
                p50(renamed_t) < 0.05,
            )
        )

        ranked = [reader.search_stems(q.text, limit=10) for q in queries]
        top1, top5 = hits(ranked, queries)
        rows.append(Row("search top-1 hits", f"{top1}/{len(queries)}", "-", None))
        rows.append(Row("search top-5 hits", f"{top5}/{len(queries)}", "-", None))
    return rows


@dataclass
class Side:
    build_s: float
    search_p50: float
    cold_s: float
    top1: int
    top5: int


def dreaming_small(vault: Vault, n: int, queries: list[Query]) -> Side:
    with Ledger(vault.ledger_path) as ledger:
        reader, build_s = build(vault, ledger, n)
        reader.search("warm up")
        search_t = [timed(reader.search, q.text) for q in queries]
        ranked = [reader.search_stems(q.text, limit=10) for q in queries]
    cold = cold_cli(["query", "search", queries[0].text, "--vault", str(vault.root)], 3)
    return Side(build_s, p50(search_t), cold, *hits(ranked, queries))


def bm_python(given: str | None) -> str | None:
    """A Python 3.12+ to make basic-memory's venv with (it needs 3.12)."""
    candidates = [given] if given else []
    candidates += ["python3.12", "python3.13", "python3"]
    candidates += sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.1[23]*/bin/python3"))
    for exe in candidates:
        if exe is None:
            continue
        try:
            done = subprocess.run(
                [exe, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.strip() == "True":
            return exe
    return None


def bm_venv(python: str | None) -> Path:
    """basic-memory's venv, made and installed on the first run; its `basic-memory`."""
    exe = BM_VENV / "bin" / "basic-memory"
    if exe.is_file():
        return exe
    found = bm_python(python)
    if found is None:
        raise RuntimeError("no Python 3.12 or newer found (basic-memory needs one; --bm-python)")
    print(f"basic-memory: making {BM_VENV} with {found} and `pip install basic-memory` …")
    shutil.rmtree(BM_VENV, ignore_errors=True)
    BM_VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([found, "-m", "venv", str(BM_VENV)], check=True, capture_output=True)
    done = subprocess.run(
        [str(BM_VENV / "bin" / "pip"), "install", "--quiet", "basic-memory"],
        capture_output=True,
        text=True,
        timeout=BM_INSTALL_S,
    )
    if done.returncode != 0 or not exe.is_file():
        shutil.rmtree(BM_VENV, ignore_errors=True)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"pip install basic-memory failed: {last}")
    return exe


def bm_env(home: Path) -> dict[str, str]:
    """Everything basic-memory keeps (config, database, caches) under `home`; no update
    checks, no analytics, no model downloads."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BASIC_MEMORY_", "XDG_"))}
    env.pop("PYTHONPATH", None)
    env |= {
        "HOME": str(home),
        "BASIC_MEMORY_CONFIG_DIR": str(home / ".basic-memory"),
        "BASIC_MEMORY_AUTO_UPDATE": "false",
        "BASIC_MEMORY_NO_PROMOS": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "HF_HUB_OFFLINE": "1",
        "LOGFIRE_IGNORE_NO_CONFIG": "1",
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }
    return env


def basic_memory(work: Path, articles: Path, queries: list[Query], python: str | None) -> Side:
    exe = bm_venv(python)
    notes = work / "bm-notes"
    shutil.copytree(articles, notes)  # it adds frontmatter to every note it indexes
    home = work / "bm-home"
    home.mkdir()
    env = bm_env(home)
    version = subprocess.run(
        [str(exe), "--version"], env=env, capture_output=True, text=True, timeout=120
    ).stdout.strip()
    count = sum(1 for _ in notes.glob("*.md"))
    print(f"basic-memory: {version or 'version unknown'}; `project add` of {count} notes …")
    start = time.perf_counter()
    done = subprocess.run(
        [str(exe), "project", "add", "bench", str(notes), "--default", "--local"],
        env=env,
        capture_output=True,
        text=True,
        timeout=BM_INDEX_S,
    )
    build_s = time.perf_counter() - start
    said = [ln.strip() for ln in done.stdout.splitlines() if ln.strip()]
    if done.returncode != 0:
        raise RuntimeError(
            f"`basic-memory project add` failed: {(said or [done.stderr.strip()])[-1]}"
        )
    for line in said:
        if "notes from" in line or "semantic" in line.lower() or "indexed," in line:
            print(f"basic-memory: {line}")
    log = home / ".basic-memory" / "basic-memory.log"
    why = [
        ln
        for ln in (log.read_text(errors="replace") if log.is_file() else "").splitlines()
        if "Semantic search disabled" in ln
    ]
    if why:
        print(f"basic-memory: {why[0].split(' - ', 1)[-1][:200]}")

    script = work / "bm_search.py"
    script.write_text(BM_SEARCH, encoding="utf-8")
    done = subprocess.run(
        [
            str(BM_VENV / "bin" / "python"),
            str(script),
            "bench",
            json.dumps([q.text for q in queries]),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=BM_SEARCH_S,
        cwd=work,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"basic-memory's search_notes failed: {last}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    errors = [f["error"] for f in found if "error" in f]
    if errors:
        print(f"basic-memory: {len(errors)} searches answered an error, e.g. {errors[0]!r}")
    ranked = [[p.removesuffix(".md") for p in f["paths"]] for f in found]

    cold = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(
            [str(exe), "tool", "search-notes", queries[0].text, "--json", "--project", "bench"],
            env=env,
            capture_output=True,
            check=True,
            timeout=BM_SEARCH_S,
        )
        cold.append(time.perf_counter() - start)
    return Side(build_s, p50([f["seconds"] for f in found]), p50(cold), *hits(ranked, queries))


def side_by_side(work: Path, n: int, with_bm: bool, python: str | None) -> None:
    vault = init_vault(work / "small").vault
    queries = generate(vault.articles, n)
    print(f"\nside by side on {n} generated articles, {len(queries)} known-answer queries")
    bm: Side | None = None
    if with_bm:
        try:
            bm = basic_memory(work, vault.articles, queries, python)
        except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as e:
            print(f"basic-memory: skipped: {' '.join(str(e).split())[:300]}")
    else:
        print("basic-memory: skipped (--no-basic-memory)")
    ours = dreaming_small(vault, n, queries)

    def ratio(theirs: float, mine: float) -> str:
        if mine <= 0:
            return "-"
        return f"{theirs / mine:.0f}x" if theirs >= 10 * mine else f"{theirs / mine:.1f}x"

    head = ("measure", "basic-memory", "dreaming", "basic-memory ÷ dreaming")
    rows = [
        (
            "index build",
            f"{bm.build_s:.1f} s" if bm else "-",
            f"{ours.build_s:.2f} s",
            ratio(bm.build_s, ours.build_s) if bm else "-",
        ),
        (
            "search p50, in-process (warm)",
            ms(bm.search_p50) if bm else "-",
            ms(ours.search_p50),
            ratio(bm.search_p50, ours.search_p50) if bm else "-",
        ),
        (
            "one search from a cold CLI process (median of 3)",
            f"{bm.cold_s:.2f} s" if bm else "-",
            f"{ours.cold_s:.2f} s",
            ratio(bm.cold_s, ours.cold_s) if bm else "-",
        ),
        (
            "search top-1 hits",
            f"{bm.top1}/{len(queries)}" if bm else "-",
            f"{ours.top1}/{len(queries)}",
            "",
        ),
        (
            "search top-5 hits",
            f"{bm.top5}/{len(queries)}" if bm else "-",
            f"{ours.top5}/{len(queries)}",
            "",
        ),
    ]
    print_table(head, rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=10_000, help="the big vault's size")
    parser.add_argument("--small", type=int, default=1000, help="the side-by-side vault's size")
    parser.add_argument("--no-basic-memory", action="store_true", help="skip basic-memory")
    parser.add_argument("--bm-python", help="a Python 3.12+ for basic-memory's venv")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    print(f"python: {platform.python_version()} ({sys.executable})")
    work = Path(tempfile.mkdtemp(prefix="dreaming-bench-query-"))
    try:
        rows = ten_k(work, args.articles)
        print(f"\nthe read path on {args.articles} generated articles")
        print_table(
            ("measure", "value", "goal", "ok"),
            [
                (r.measure, r.value, r.goal, "-" if r.ok is None else "ok" if r.ok else "MISS")
                for r in rows
            ],
        )
        side_by_side(work, args.small, not args.no_basic_memory, args.bm_python)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
