"""The composition root: one App per entry point owns settings, vault, ledger, registry, model."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

import dreaming.model
from dreaming.errors import ConfigError, LedgerError, ModelError, VaultError
from dreaming.model import Completion, Constraint, TextModel, Usage
from dreaming.vault import Vault, write_atomic
from tests.support import Answer, ScriptedModelFactory
from watcher.app import App, implied_model, implied_vault


def configure(vault: Vault, text: str) -> None:
    (vault.state / "config.toml").write_text(text, encoding="utf-8")


def test_no_dreaming_variable_of_the_shell_reaches_a_test() -> None:
    assert [name for name in os.environ if name.startswith("DREAMING_")] == []


def test_the_app_reads_the_vaults_settings(vault: Vault) -> None:
    configure(vault, 'schedule = "4:05"\n')
    with App.open(vault.root) as app:
        assert app.vault == vault
        assert app.settings.schedule == "04:05"


def test_a_bad_setting_refuses_only_a_command_that_reads_the_settings(vault: Vault) -> None:
    configure(vault, "schedule = [\n")
    with App.open(vault.root) as app:
        assert app.ledger.version > 0
        with pytest.raises(ConfigError, match="not valid TOML"):
            app.settings  # noqa: B018


def test_without_a_path_the_app_opens_the_implied_vault(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(vault.root)
    assert implied_vault() == vault.root
    with App.open(None) as app:
        assert app.vault.root == vault.root
    monkeypatch.setenv("DREAMING_VAULT", str(vault.root))
    monkeypatch.chdir(vault.root.parent)
    assert implied_vault() == vault.root


def test_without_any_vault_the_app_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(VaultError, match="pass --vault PATH, set DREAMING_VAULT"):
        App.open(None)


def test_the_ledger_opens_once_and_closes_with_the_app(vault: Vault) -> None:
    with App.open(vault.root) as app:
        ledger = app.ledger
        assert app.ledger is ledger
    with pytest.raises(LedgerError, match="closed"):
        ledger.db.execute("SELECT 1")


def test_each_app_owns_one_registry_of_its_own_writes(vault: Vault) -> None:
    with App.open(vault.root) as first, App.open(vault.root) as second:
        path = vault.articles / "A.md"
        write_atomic(path, "ours\n", expected=None, registry=first.own_writes, vault=vault)
        assert first.own_writes.is_own(path)
        assert not second.own_writes.is_own(path)


def test_the_model_comes_from_the_settings_loaded_once_and_released(
    vault: Vault, scripted_answers: Callable[[Iterable[Answer]], Path]
) -> None:
    answers = scripted_answers([Answer("extract", "hello", "a claim")])
    configure(vault, f'model = "scripted:{answers}"\n')
    with App.open(vault.root) as app:
        model = app.model
        assert app.model is model
        assert model.complete("extract", None, "hello").text == "a claim"
        app.unload_model()
        assert app.model is not model


class Spy:
    """A model that counts its loads and unloads."""

    spec = "spy"
    load_seconds = None

    def __init__(self) -> None:
        self.unloads = 0

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        return Completion("", Usage())

    def unload(self) -> None:
        self.unloads += 1


def test_the_model_is_released_when_the_app_closes(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[Spy] = []

    def load(spec: str) -> TextModel:
        loaded.append(Spy())
        return loaded[-1]

    monkeypatch.setattr(dreaming.model, "load", load)
    with App.open(vault.root) as app:
        assert app.model is loaded[0]
    assert [spy.unloads for spy in loaded] == [1]
    with App.open(vault.root):
        pass
    assert len(loaded) == 1


def test_the_implied_model_is_the_implied_vaults(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(vault, 'model = "openai:http://127.0.0.1:1#m"\n')
    monkeypatch.chdir(vault.root)
    assert implied_model() == "openai:http://127.0.0.1:1#m"


def test_the_scripted_model_fixture_answers_exactly_its_script(
    scripted_model: ScriptedModelFactory,
) -> None:
    model = scripted_model([Answer("bucket", "which subject?", "Rust", system="S")])
    assert model.complete("bucket", "S", "which subject?").text == "Rust"
    with pytest.raises(ModelError, match="no scripted answer for stage bucket"):
        model.complete("bucket", None, "which subject?")


def test_a_command_s_model_replaces_the_settings_model_for_this_app_only(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str] = []

    def load(spec: str) -> TextModel:
        loaded.append(spec)
        return Spy()

    monkeypatch.setattr(dreaming.model, "load", load)
    with App.open(vault.root) as app:
        first = app.model
        app.use_model("scripted:other.jsonl")
        assert app.model is not first
        assert app.settings.model == "scripted:other.jsonl"
    with App.open(vault.root) as app:
        assert app.settings.model != "scripted:other.jsonl"
    assert loaded[1] == "scripted:other.jsonl"
