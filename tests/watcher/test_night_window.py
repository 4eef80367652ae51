"""The watcher's nights end by `night_ends`; a night started by hand does not, unless
asked (`--until`); `--since` and `--order` reach the night, through a watcher too."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from click.testing import CliRunner

import stages.runner.pipeline
from dreaming.errors import DreamingError
from dreaming.vault import Vault
from stages.runner.report import NightReport
from watcher.cli import cli
from watcher.control import request_night, take_requests
from watcher.night import NightRequest, NightResult
from watcher.scheduler import NightScheduler


def scheduler(vault: Vault, night_ends: str | None, now: datetime) -> NightScheduler:
    def night(request: NightRequest) -> NightResult:
        return NightResult("ok", "")

    return NightScheduler(vault, "03:00", night, night_ends=night_ends, clock=lambda: now)


def test_a_scheduled_night_is_handed_its_end_the_same_morning(vault: Vault) -> None:
    fired = scheduler(vault, "07:00", datetime(2026, 3, 1, 3, 0, 2))
    assert fired.dated(NightRequest("scheduled")).until == "2026-03-01T07:00:00"


def test_a_night_caught_up_after_its_window_is_handed_an_end_already_past(vault: Vault) -> None:
    woke = scheduler(vault, "07:00", datetime(2026, 3, 1, 9, 12))
    assert woke.dated(NightRequest("catch-up")).until == "2026-03-01T07:00:00"


def test_a_night_asked_for_by_hand_keeps_what_the_person_asked(vault: Vault) -> None:
    watcher = scheduler(vault, "07:00", datetime(2026, 3, 1, 3, 0))
    assert watcher.dated(NightRequest("requested")).until is None
    assert watcher.dated(NightRequest("requested", until="05:00")).until == "05:00"


def test_with_no_night_ends_a_scheduled_night_has_no_end(vault: Vault) -> None:
    free = scheduler(vault, None, datetime(2026, 3, 1, 3, 0))
    assert free.dated(NightRequest("scheduled")).until is None


def test_the_night_child_is_told_its_end_order_and_date(vault: Vault) -> None:
    request = NightRequest("scheduled", until="2026-03-01T07:00:00", since="2025-01-01",
                           order="oldest")  # fmt: skip
    assert request.args() == [
        "--until", "2026-03-01T07:00:00", "--since", "2025-01-01", "--order", "oldest",
    ]  # fmt: skip


def test_a_request_through_the_watcher_carries_until_since_and_order(vault: Vault) -> None:
    asked = NightRequest("requested", until="06:00", since="2025-01-01", order="oldest")
    request_night(vault, asked)
    ((_, taken),) = list(take_requests(vault))
    assert taken == asked


def test_a_request_with_a_bad_order_is_unreadable(vault: Vault) -> None:
    request_night(vault, NightRequest("requested"))
    (path,) = (vault.state / "control").glob("*.request.json")
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "order": 3}))
    ((_, taken),) = list(take_requests(vault))
    assert taken is None


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What `dreaming synthesize` hands the runner (no night runs)."""
    calls: list[dict[str, Any]] = []

    def run_night(app: Any, **kw: Any) -> NightReport:
        calls.append({**kw, "settings": app.settings})
        return NightReport("r", "2026-03-01T03:00:00+00:00", "m", status="ok")

    monkeypatch.setattr(stages.runner.pipeline, "run_night", run_night)
    return calls


def test_a_night_started_by_hand_is_not_cut_by_night_ends(
    vault: Vault, asked: list[dict[str, Any]]
) -> None:
    (vault.state / "config.toml").write_text('night_ends = "07:00"\n')
    result = CliRunner().invoke(cli, ["synthesize", "--vault", str(vault.root)])
    assert result.exit_code == 0, result.output
    assert asked[0]["until"] is None


def test_synthesize_until_a_time_ends_the_night_at_its_next_occurrence(
    vault: Vault, asked: list[dict[str, Any]]
) -> None:
    result = CliRunner().invoke(cli, ["synthesize", "--vault", str(vault.root), "--until", "07:00"])
    assert result.exit_code == 0, result.output
    until = asked[0]["until"]
    assert isinstance(until, datetime)
    assert until.strftime("%H:%M") == "07:00"
    assert until > datetime.now()


def test_synthesize_since_and_order_override_the_settings_for_this_night(
    vault: Vault, asked: list[dict[str, Any]]
) -> None:
    (vault.state / "config.toml").write_text('backlog_order = "newest"\n')
    args = ["synthesize", "--vault", str(vault.root), "--since", "2025-01-31", "--order", "oldest"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    settings = asked[0]["settings"]
    assert (settings.backlog_since, settings.backlog_order) == ("2025-01-31", "oldest")


@pytest.mark.parametrize(
    ("args", "said"),
    [(["--until", "7am"], "HH:MM"), (["--since", "last year"], "YYYY-MM-DD")],
)
def test_a_bad_until_or_since_is_one_line_and_no_night(
    vault: Vault, asked: list[dict[str, Any]], args: list[str], said: str
) -> None:
    result = CliRunner().invoke(cli, ["synthesize", "--vault", str(vault.root), *args])
    assert isinstance(result.exception, DreamingError)
    assert said in str(result.exception)
    assert "\n" not in str(result.exception)
    assert asked == []
