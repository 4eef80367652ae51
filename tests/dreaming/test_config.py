from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.config import DEFAULT_MODEL, default_model, load_settings
from dreaming.errors import ConfigError
from dreaming.vault import Vault


def test_defaults_apply_when_nothing_is_set(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DREAMING_MODEL", raising=False)
    settings = load_settings(vault.root)
    assert settings.model == DEFAULT_MODEL
    assert settings.schedule == "03:00"


def test_the_config_file_then_env_then_arguments(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    (vault.state / "config.toml").write_text('model = "mlx:a"\nmax_model_calls = 5\n')
    assert load_settings(vault.root).model == "mlx:a"
    monkeypatch.setenv("DREAMING_MODEL", "mlx:b")
    assert load_settings(vault.root).model == "mlx:b"
    assert load_settings(vault.root, model="mlx:c").model == "mlx:c"
    assert load_settings(vault.root).max_model_calls == 5


def test_a_broken_config_file_names_the_file(vault: Vault) -> None:
    (vault.state / "config.toml").write_text("model = [unclosed\n")
    with pytest.raises(ConfigError, match=r"config\.toml: not valid TOML"):
        load_settings(vault.root)


def test_an_invalid_schedule_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="schedule"):
        load_settings(tmp_path, schedule="25:00")


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("max_model_calls = [10]", "max_model_calls"),
        ("max_model_calls = true", "max_model_calls"),
        ("max_model_calls = 2.5", "max_model_calls"),
        ("max_model_seconds = -5", "max_model_seconds"),
        ('keep_model_resident = "ture"', "keep_model_resident"),
        ("model = 3", "model"),
        ("max_raw_file_mb = 0", "max_raw_file_mb"),
        ("max_raw_file_mb = 2.5", "max_raw_file_mb"),
        ("max_raw_file_mb = [1]", "max_raw_file_mb"),
        ("max_raw_file_mb = true", "max_raw_file_mb"),
        ("raw_read_timeout_s = 0", "raw_read_timeout_s"),
        ("raw_read_timeout_s = -1", "raw_read_timeout_s"),
        ('raw_read_timeout_s = "soon"', "raw_read_timeout_s"),
        ("raw_read_timeout_s = true", "raw_read_timeout_s"),
        ("raw_read_timeout_s = inf", "raw_read_timeout_s"),
        ("raw_read_timeout_s = nan", "raw_read_timeout_s"),
    ],
)
def test_invalid_values_are_refused_naming_the_setting(
    vault: Vault, text: str, setting: str
) -> None:
    (vault.state / "config.toml").write_text(text + "\n")
    with pytest.raises(ConfigError, match=setting):
        load_settings(vault.root)


def test_a_misspelled_setting_is_refused(vault: Vault) -> None:
    (vault.state / "config.toml").write_text("max_model_call = 5\n")
    with pytest.raises(ConfigError, match="unknown setting max_model_call"):
        load_settings(vault.root)


def test_the_configured_model_comes_from_the_vault_then_the_environment(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dreaming.config import configured_model

    monkeypatch.delenv("DREAMING_MODEL", raising=False)
    assert configured_model(None) == DEFAULT_MODEL
    monkeypatch.setenv("DREAMING_MODEL", "openai:http://127.0.0.1:8080")
    assert configured_model(tmp_path) == "openai:http://127.0.0.1:8080"
    monkeypatch.delenv("DREAMING_MODEL")
    (vault.state / "config.toml").write_text('model = "mlx:qwen2.5-coder-0.5b"\n')
    assert configured_model(vault.root) == "mlx:qwen2.5-coder-0.5b"


def test_the_raw_file_size_limit_has_a_default_and_can_be_raised(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DREAMING_MAX_RAW_FILE_MB", raising=False)
    assert load_settings(vault.root).max_raw_file_mb == 512
    (vault.state / "config.toml").write_text("max_raw_file_mb = 2048\n")
    assert load_settings(vault.root).max_raw_file_mb == 2048
    monkeypatch.setenv("DREAMING_MAX_RAW_FILE_MB", "64")
    assert load_settings(vault.root).max_raw_file_mb == 64


def test_the_read_time_limit_of_a_raw_file_comes_from_the_file_then_the_environment(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_settings(vault.root).raw_read_timeout_s == 300
    (vault.state / "config.toml").write_text("raw_read_timeout_s = 600\n")
    assert load_settings(vault.root).raw_read_timeout_s == 600
    monkeypatch.setenv("DREAMING_RAW_READ_TIMEOUT_S", "2.5")
    assert load_settings(vault.root).raw_read_timeout_s == 2.5


@pytest.mark.parametrize(
    ("system", "machine", "spec"),
    [
        ("linux", "x86_64", "gguf:qwen2.5-coder-1.5b"),
        ("linux", "AMD64", "gguf:qwen2.5-coder-1.5b"),
        ("darwin", "arm64", "mlx:qwen2.5-coder-1.5b"),
        ("linux", "aarch64", "mlx:qwen2.5-coder-1.5b"),
    ],
)
def test_the_default_model_runs_where_it_is_fast(system: str, machine: str, spec: str) -> None:
    assert default_model(system, machine) == spec


def test_a_night_ends_at_seven_newest_first_with_no_date_unless_set(vault: Vault) -> None:
    settings = load_settings(vault.root)
    assert settings.night_ends == "07:00"
    assert settings.backlog_order == "newest"
    assert settings.backlog_since is None


def test_night_ends_and_the_backlog_settings_come_from_the_file_then_the_environment(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    (vault.state / "config.toml").write_text(
        'night_ends = "6:30"\nbacklog_order = "oldest"\nbacklog_since = 2025-01-31\n'
    )
    settings = load_settings(vault.root)
    assert (settings.night_ends, settings.backlog_order) == ("06:30", "oldest")
    assert settings.backlog_since == "2025-01-31"
    monkeypatch.setenv("DREAMING_NIGHT_ENDS", "")
    monkeypatch.setenv("DREAMING_BACKLOG_ORDER", "newest")
    monkeypatch.setenv("DREAMING_BACKLOG_SINCE", "2024-06-01")
    settings = load_settings(vault.root)
    assert settings.night_ends is None, "an empty night_ends: a night has no set end"
    assert (settings.backlog_order, settings.backlog_since) == ("newest", "2024-06-01")


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ('night_ends = "7am"', 'a local time HH:MM such as "07:00"'),
        ('night_ends = "24:00"', 'a local time HH:MM such as "07:00"'),
        ("night_ends = 7", 'a local time HH:MM such as "07:00"'),
        ('night_ends = "03:00"', "the same as schedule"),
        ('backlog_order = "random"', '"newest" or "oldest"'),
        ('backlog_since = "last year"', "a date YYYY-MM-DD"),
        ('backlog_since = "2025-02-30"', "a date YYYY-MM-DD"),
    ],
)
def test_a_bad_night_or_backlog_setting_is_one_line_naming_the_file_and_the_fix(
    vault: Vault, text: str, fix: str
) -> None:
    (vault.state / "config.toml").write_text(text + "\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(vault.root)
    said = str(caught.value)
    assert "\n" not in said
    assert str(vault.state / "config.toml") in said
    assert text.split(" =")[0] in said
    assert fix in said


def test_a_bad_value_from_the_environment_names_the_variable_not_the_file(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DREAMING_BACKLOG_ORDER", "sideways")
    with pytest.raises(ConfigError) as caught:
        load_settings(vault.root)
    assert "$DREAMING_BACKLOG_ORDER" in str(caught.value)
    assert "config.toml" not in str(caught.value)


def test_a_config_file_linked_out_of_the_vault_is_refused_unread(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "config.toml"
    outside.write_text('model = "openai:http://elsewhere"\n')
    config = vault.state / "config.toml"
    config.unlink()
    config.symlink_to(outside)
    with pytest.raises(ConfigError, match=r"config.toml: a link; .* put the file itself"):
        load_settings(vault.root)
