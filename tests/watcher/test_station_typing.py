"""A person typing into STATION.md while the watcher heats it: saves every 20 to 200 ms for a
minute, through the real watch loop, real git. Not one of their bytes may be committed
under dreaming's name, and their last save ends up committed as theirs."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import git
import pytest

from dreaming.station import card
from dreaming.station.settle import article_stems
from dreaming.vault import Vault
from dreaming.vault.repo import PIPELINE_AUTHOR, VaultRepo
from tests.watch_support import wait_for, watched

TYPING_SECONDS = 60.0
WORDS = ("bake", "the", "sourdough", "before", "noon", "then", "fix", "ledger", "tests", "ship")


# Slow: a minute of real typing against a real watcher.
pytestmark = pytest.mark.slow


def save(path: Path, data: bytes) -> None:
    """As an editor saves: the whole file at once (a temp file renamed into place)."""
    temp = path.with_name(".STATION.md.typing")
    temp.write_bytes(data)
    os.replace(temp, path)


def row(data: bytes, key: str) -> str:
    for line in data.decode().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 2 and cells[0] == key:
            return cells[1]
    raise AssertionError(f"no {key} row")


def reheated(before: bytes, hot: bytes, articles: list[str]) -> bytes:
    """What heat makes of `before` with the facts that `hot` shows."""
    notes = int(row(hot, "Cascade").split("notes ")[1].split()[0])
    facts = card.Facts(row(hot, "Git"), articles, notes, row(hot, "Heated"))
    return card.heat(before, facts)


def card_at(commit: git.Commit) -> bytes:
    data: bytes = (commit.tree / card.CARD).data_stream.read()
    return data


@pytest.mark.timeout(150)
def test_a_minute_of_typing_into_the_card_puts_no_byte_of_it_in_dreamings_commits(
    vault: Vault,
) -> None:
    repo = VaultRepo(vault.root)
    path = vault.root / card.CARD
    seed = path.read_bytes()
    rng = random.Random(22)
    saves: list[bytes] = []
    typed = ""
    with watched(vault) as w:
        end = time.monotonic() + TYPING_SECONDS
        while time.monotonic() < end:
            typed += rng.choice(WORDS) + " "
            data = seed.replace(b"## Durable\n", f"## Durable\n\n{typed}\n".encode())
            save(path, data)
            saves.append(data)
            time.sleep(rng.uniform(0.02, 0.2))
        last = saves[-1]

        def settled() -> bool:
            now = path.read_bytes()
            return now != last and repo.committed(path, now)

        wait_for(settled, 60)
        assert not [r for r in w.said if "watching stopped" in r.outcome]
    history = list(repo.repo.iter_commits("HEAD", paths=card.CARD))[::-1]
    theirs = [card_at(c) for c in history if c.author.name != PIPELINE_AUTHOR.name]
    # The first commit is `dreaming init`'s, laying the seed card.
    ours = [c for c in history[1:] if c.author.name == PIPELINE_AUTHOR.name]
    assert len(ours) > 10, "the heat ran a few times at least"
    articles = article_stems(vault)
    for commit in ours:
        before = card_at(commit.parents[0])
        assert before in theirs, f"{commit.hexsha[:7]} heated a card the person never committed"
        assert card_at(commit) == reheated(before, card_at(commit), articles), (
            f"{commit.hexsha[:7]} holds bytes its heat did not make"
        )
    assert set(theirs) <= set(saves), "a person commit holds bytes they never saved"
    assert last in theirs
    assert path.read_bytes() == reheated(last, path.read_bytes(), articles)
    assert repo.dirty_paths() == []
