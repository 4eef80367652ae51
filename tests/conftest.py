"""Shared fixtures: real vaults made by `dreaming init`, real git, real SQLite, and a
scripted model; no `DREAMING_*` variable of the developer's shell reaches a test."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from dreaming.ledger import Ledger
from dreaming.model import TextModel, load, unload_all
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from tests import support
from tests.support import Answer, ScriptedModelFactory


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast lane: no test marked slow, a tenth of each property test's examples",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fast"):
        support.FAST_LANE = True
        chosen = config.option.markexpr
        config.option.markexpr = f"({chosen}) and not slow" if chosen else "not slow"
        settings.register_profile("fast", max_examples=10)
        settings.load_profile("fast")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that loads a real model is slow whatever its module says."""
    for item in items:
        if item.get_closest_marker("model") is not None:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _no_dreaming_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that needs a variable sets it itself (monkeypatch.setenv)."""
    for name in list(os.environ):
        if name.startswith("DREAMING_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def _vault_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vault made by `dreaming init` for the whole session, never used directly;
    its git objects packed and git's sample hooks left out, so each copy is a few files."""
    root = init_vault(tmp_path_factory.mktemp("template") / "vault").vault.root
    subprocess.run(["git", "-C", str(root), "gc", "-q", "--prune=now"], check=True)
    for sample in (root / ".git" / "hooks").glob("*.sample"):
        sample.unlink()
    return root


@pytest.fixture
def vault(tmp_path: Path, _vault_template: Path) -> Vault:
    """A fresh vault as `dreaming init` makes it: a copy of the session's template, its
    git history and ledger included (a tenth of the time `init` takes)."""
    shutil.copytree(_vault_template, tmp_path / "vault", symlinks=True)
    return Vault.open(tmp_path / "vault")


@pytest.fixture
def ledger(vault: Vault) -> Iterator[Ledger]:
    with Ledger(vault.ledger_path) as led:
        yield led


@pytest.fixture
def scripted_answers(tmp_path: Path) -> Callable[[Iterable[Answer]], Path]:
    """Writes answers into a fresh `scripted:` file and returns its path."""
    made: list[Path] = []

    def write(answers: Iterable[Answer]) -> Path:
        path = tmp_path / f"answers-{len(made)}.jsonl"
        path.write_text("".join(a.line() for a in answers), encoding="utf-8")
        made.append(path)
        return path

    return write


@pytest.fixture
def scripted_model(scripted_answers: Callable[[Iterable[Answer]], Path]) -> ScriptedModelFactory:
    """A loaded `scripted:` model that gives exactly these answers, and fails loudly otherwise."""

    def make(answers: Iterable[Answer]) -> TextModel:
        return load(f"scripted:{scripted_answers(answers)}")

    return make


@pytest.fixture(autouse=True, scope="session")
def _models_released() -> Iterator[None]:
    """Models a test left loaded are closed before the interpreter tears down the
    modules their destructors need (llama.cpp's would print errors at exit)."""
    yield
    unload_all()
