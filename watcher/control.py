"""Requests to a running watcher: `.dreaming/control/`, one file a request.

`dreaming synthesize` (with or without `--now`) writes `<id>.request.json` while a
watcher runs, so the vault never has a second writer; the watcher takes each
request once (it deletes the file before running the night) and answers with
`<id>.result.json`, which the waiting command reads and deletes.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

from dreaming.errors import DreamingError, RefusedFileError
from dreaming.vault import Vault, write_atomic
from dreaming.vault.files import MAX_STATE_BYTES, read_bytes
from watcher.night import NightRequest, NightResult

CONTROL_DIR = "control"
REQUEST = ".request.json"
RESULT = ".result.json"


def control_dir(vault: Vault) -> Path:
    return vault.state / CONTROL_DIR


def request_night(vault: Vault, request: NightRequest) -> str:
    """Ask the watcher for a night; the request's id."""
    folder = control_dir(vault)
    folder.mkdir(parents=True, exist_ok=True)
    rid = uuid.uuid4().hex[:12]
    doc = json.dumps({"id": rid, **asdict(request)})
    write_atomic(folder / f"{rid}{REQUEST}", doc, expected=None, registry=None, vault=vault)
    return rid


def take_requests(vault: Vault) -> Iterator[tuple[str, NightRequest | None]]:
    """Each waiting request once, oldest first: (id, the request, or None if unreadable)."""
    folder = control_dir(vault)
    try:
        found = sorted(folder.glob(f"*{REQUEST}"), key=_mtime)
    except OSError:
        return
    for path in found:
        rid = path.name.removesuffix(REQUEST)
        try:
            doc = json.loads(read_bytes(vault, path, cap=MAX_STATE_BYTES, what="a request"))
            path.unlink()
        except FileNotFoundError:
            continue
        except (OSError, ValueError, RefusedFileError):
            # A named pipe among them too: refused unread, never waited on.
            path.unlink(missing_ok=True)
            yield rid, None
            continue
        yield rid, _request(doc)


def answer(vault: Vault, rid: str, result: NightResult) -> None:
    path = control_dir(vault) / f"{rid}{RESULT}"
    write_atomic(path, json.dumps(asdict(result)), expected=None, registry=None, vault=vault)


def wait_result(
    vault: Vault, rid: str, alive: Callable[[], bool], poll: float = 0.25
) -> NightResult:
    """The watcher's answer to request `rid`; raises when the watcher stops without one."""
    path = control_dir(vault) / f"{rid}{RESULT}"
    try:
        return _wait(vault, rid, path, alive, poll)
    except KeyboardInterrupt:
        # A request not yet taken is withdrawn; one taken runs to its end.
        (control_dir(vault) / f"{rid}{REQUEST}").unlink(missing_ok=True)
        raise


def _wait(
    vault: Vault, rid: str, path: Path, alive: Callable[[], bool], poll: float
) -> NightResult:
    while True:
        # Looked at before the file: an answer written just before the watcher exits counts.
        gone = not alive()
        if path.is_file():
            doc = json.loads(path.read_text(encoding="utf-8"))
            path.unlink(missing_ok=True)
            return NightResult(**doc)
        if gone:
            (control_dir(vault) / f"{rid}{REQUEST}").unlink(missing_ok=True)
            raise DreamingError(
                f"{vault.root}: the watcher stopped before it answered; run the night "
                "again (dreaming synthesize), or see .dreaming/logs/watch.log"
            )
        time.sleep(poll)


def _request(doc: object) -> NightRequest | None:
    if not isinstance(doc, dict):
        return None
    stage, limit, model = doc.get("stage"), doc.get("limit"), doc.get("model")
    since_policy, until, since = doc.get("since_policy"), doc.get("until"), doc.get("since")
    order = doc.get("order")
    if not (
        all(v is None or isinstance(v, str) for v in (stage, model, since_policy, until, since))
        and (limit is None or (isinstance(limit, int) and limit >= 0))
        and order in (None, "newest", "oldest")
    ):
        return None
    return NightRequest("requested", stage, limit, model, since_policy, until, since, order)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
