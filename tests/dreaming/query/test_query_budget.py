"""Property: whatever an article holds and whatever a tool is asked, every page of every
result is at most BUDGET bytes as MCP sends it (text, structured content and echoes
together), and as `--json` prints it."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.ledger import Ledger
from dreaming.query import BUDGET, Reader, Result
from dreaming.query.budget import ENVELOPE
from dreaming.vault import Vault
from tests.query_support import conversation
from tests.support import draws
from watcher.mcp import answer

# Quotes, backslashes and control characters cost more in JSON than in UTF-8.
# Only text a file can hold: a lone surrogate cannot be written as UTF-8.
HEAVY = st.sampled_from(['"', "\\", "\x01", "\t", "é", "😀", "[", "]", " ", "a", "|"])
LINE = st.text(
    st.one_of(HEAVY, st.characters(codec="utf-8", exclude_characters="\n\r")), max_size=300
)
BODY = st.text(st.one_of(HEAVY, st.just("\n"), st.characters(codec="utf-8")), max_size=3000)
COUNT = itertools.count()
ASKED = st.one_of(LINE, st.text(HEAVY, min_size=900, max_size=1100))


def _article(title: str, kind: str, heading: str, body: str, link: str, field: str) -> str:
    return (
        f"# {title}\n\n```info\nkind: {kind}\ntype: {kind}\naliases: {title}\n"
        f"{field}: {field}\n```\n\n{body[:300]} [[{link}]][^1]\n\n## {heading}\n\n{body}[^1]\n\n"
        f"## See also\n\n- [[{link}]]\n\n## References\n\n"
        f"[^1]: `conv:0a1b2c3d` (2026-02-01, claude-code) — {field}\n\n[[Category:{kind}]]\n"
    )


def _sent(call: Callable[[], Result]) -> tuple[int, Result | None]:
    """The bytes MCP sends for the call, and the Result (None for a refusal)."""
    got: list[Result] = []

    def keep() -> Result:
        got.append(call())
        return got[0]

    sent = answer(keep).model_dump_json(by_alias=True, exclude_none=True)
    return len(sent.encode("utf-8")), (got[0] if got else None)


def _every_page(read: Callable[[int], Result]) -> list[tuple[int, Result | None]]:
    out = [_sent(lambda: read(1))]
    while (last := out[-1][1]) is not None and last.next is not None and len(out) < 50:
        page = len(out) + 1
        out.append(_sent(lambda page=page: read(page)))  # type: ignore[misc]
    return out


@settings(
    max_examples=draws(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    stem=st.text(
        st.one_of(HEAVY, st.characters(codec="utf-8", exclude_characters="/\0")),
        min_size=1,
        max_size=40,
    ),
    title=LINE,
    kind=LINE,
    heading=LINE,
    body=BODY,
    field=LINE,
    asked=ASKED,
)
def test_every_page_of_every_tool_fits_the_budget_for_any_text(
    vault: Vault,
    ledger: Ledger,
    stem: str,
    title: str,
    kind: str,
    heading: str,
    body: str,
    field: str,
    asked: str,
) -> None:
    for old in vault.articles.iterdir():
        old.unlink()
    stem = stem.lstrip(".") or "x"
    (vault.articles / f"{stem}.md").write_text(
        _article(title, kind, heading, body, asked[:300], field), encoding="utf-8"
    )
    reader = Reader(vault, ledger)
    reader.index.recheck_seconds = 0
    turns = [("user", body), ("assistant", field)]
    conv = conversation(ledger, "0a1b2c3d", turns, f"{asked[:300]}#{next(COUNT)}")
    reads: list[Callable[[int], Result]] = [
        lambda _: reader.resolve(title),
        lambda _: reader.resolve(asked),
        lambda p: reader.read(stem, page=p),
        lambda p: reader.read(stem, full=True, page=p),
        lambda p: reader.read(asked, page=p),
        lambda p: reader.section(stem, heading, page=p),
        lambda p: reader.section(stem, asked, page=p),
        lambda p: reader.links(stem, page=p),
        lambda p: reader.infobox(stem, page=p),
        lambda p: reader.list_by(page=p),
        lambda p: reader.list_by(kind=kind, type=asked, page=p),
        lambda p: reader.list_by(category=kind, page=p),
        lambda p: reader.category(asked, page=p),
        lambda _: reader.status(),
        lambda _: reader.search(f"{asked} {body[:200]}"),
        lambda p: reader.source(conv, page=p),
        lambda p: reader.source(asked, start=0, page=p),
        lambda _: reader.takeoff(stem),
        lambda _: reader.takeoff(asked),
    ]
    for read in reads:
        for size, result in _every_page(read):
            assert size <= BUDGET
            if result is not None:
                doc = json.dumps(result.document(), ensure_ascii=False, separators=(",", ":"))
                assert len(doc.encode("utf-8")) + ENVELOPE <= BUDGET
