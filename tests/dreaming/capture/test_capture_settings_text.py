"""A host's settings file is the person's text: install adds ours and changes no other
byte of it, uninstall takes ours out and gives back the bytes as they were, and a file
dreaming cannot edit that way is refused in one line before anything is written."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.capture import claude, codex, pi
from dreaming.capture.hostfile import HOOK_FILE, HookError, shell_command
from tests.support import draws

ARGV = ["/opt/dreaming/.venv/bin/python", "-I", "-S", str(HOOK_FILE), "claude-code", "/v/ü"]
OURS = {"type": "command", "command": shell_command(ARGV), "timeout": claude.TIMEOUT}


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.dreaming-backup-*"))


def written(tmp_path: Path, text: str, name: str = "settings.json") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def content(path: Path) -> str:
    """The file's text, its line endings as they are."""
    return path.read_bytes().decode("utf-8")


def is_subsequence(short: str, long: str) -> bool:
    """Whether `long` is `short` with characters inserted (and none changed or taken out)."""
    chars = iter(long)
    return all(c in chars for c in short)


def exact(text: str) -> Any:
    """JSON as read with every number kept as its text and duplicate keys kept."""
    return json.loads(text, parse_float=str, parse_int=str, object_pairs_hook=list)


NUMBERS = (
    '{\n  "cleanupPeriodDays": 1e400,\n  "ratio": 0.1000000000000000055511151231257827,\n'
    '  "big": 123456789012345678901234567890,\n  "zero": -0,\n  "e": 1E+2,\n'
    '  "long": ' + "7" * 5000 + "\n}\n"
)


def test_install_keeps_every_number_as_it_was_written(tmp_path: Path) -> None:
    path = written(tmp_path, NUMBERS)
    claude.install(path, ARGV)
    after = content(path)
    assert is_subsequence(NUMBERS, after)
    for literal in ("1e400", "0.1000000000000000055511151231257827", "-0,", "1E+2", "7" * 5000):
        assert literal in after
    assert claude.inspect(path).events == claude.EVENTS
    claude.uninstall(path)
    assert content(path) == NUMBERS


def test_install_keeps_duplicate_keys_order_tabs_and_crlf(tmp_path: Path) -> None:
    text = '{\r\n\t"z": 1,\r\n\t"a": {"k": 1, "k": 2},\r\n\t"z": [1,2]\r\n}'
    path = written(tmp_path, text)
    claude.install(path, ARGV)
    after = content(path)
    assert is_subsequence(text, after)
    assert after.startswith(text[: text.rindex("]") + 1] + ',\r\n\t"hooks": {\r\n\t\t"SessionEnd"')
    claude.uninstall(path)
    assert content(path) == text


def test_install_beside_the_person_s_hooks_adds_and_uninstall_takes_out_only_ours(
    tmp_path: Path,
) -> None:
    text = (
        '{\n    "hooks": {\n        "SessionEnd": [\n            {"hooks": [{"type": '
        '"command", "command": "say bye", "timeout": 1.50}]}\n        ],\n'
        '        "Stop": []\n    },\n    "model": "opus"\n}\n'
    )
    path = written(tmp_path, text)
    claude.install(path, ARGV)
    after = content(path)
    assert is_subsequence(text, after)
    assert '"timeout": 1.50}' in after
    doc = json.loads(after)
    assert doc["hooks"]["SessionEnd"][1] == {"hooks": [OURS]}
    assert doc["hooks"]["PreCompact"] == [{"hooks": [OURS]}]
    assert list(doc["hooks"]) == ["SessionEnd", "Stop", "PreCompact"]
    claude.uninstall(path)
    assert content(path) == text


def test_a_lone_surrogate_in_the_person_s_file_is_kept_as_written(tmp_path: Path) -> None:
    text = '{"statusLine": {"type": "command", "command": "echo \\ud800"}}\n'
    path = written(tmp_path, text)
    change = claude.install(path, ARGV)
    assert change.changed
    after = content(path)
    assert '"echo \\ud800"' in after
    claude.uninstall(path)
    assert content(path) == text


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"hooks": {}, "model": "x", "hooks": {"Stop": []}}', '"hooks"'),
        ('{"hooks": {"SessionEnd": [], "SessionEnd": []}}', '"SessionEnd"'),
        ('{"hooks": {"PreCompact": [{"hooks": [], "hooks": []}]}}', '"hooks"'),
    ],
)
def test_a_duplicate_key_where_ours_go_is_refused_in_one_line(
    tmp_path: Path, text: str, key: str
) -> None:
    path = written(tmp_path, text)
    with pytest.raises(HookError) as e:
        claude.install(path, ARGV)
    said = str(e.value)
    assert said.startswith(f"{path}: {key} twice in one object")
    assert "nothing was changed" in said
    assert "\n" not in said
    assert content(path) == text
    assert backups(path) == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"a": NaN}', "not valid JSON"),
        ('{"a": -Infinity}', "not valid JSON"),
    ],
)
def test_a_settings_file_dreaming_cannot_read_as_json_is_refused_before_any_backup(
    tmp_path: Path, text: str, said: str
) -> None:
    path = written(tmp_path, text)
    with pytest.raises(HookError, match=said) as e:
        claude.install(path, ARGV)
    assert "\n" not in str(e.value)
    with pytest.raises(HookError, match=said):
        claude.uninstall(path)
    assert claude.inspect(path).problem is not None
    assert content(path) == text
    assert backups(path) == []


NOT_UTF8 = [*ARGV[:-1], "/v/\udcff"]
"""A vault whose name is not UTF-8, as Python spells such a path."""


@pytest.mark.parametrize("host", ["claude-code", "codex", "pi"])
def test_a_command_that_is_not_utf8_is_refused_before_any_backup(tmp_path: Path, host: str) -> None:
    module, text = {
        "claude-code": (claude, '{"model": "opus"}\n'),
        "codex": (codex, 'model = "o3"\n'),
        "pi": (pi, None),
    }[host]
    path = tmp_path / "settings"
    if text is not None:
        path.write_text(text)
    with pytest.raises(HookError, match="not UTF-8") as e:
        module.install(path, NOT_UTF8)
    assert "\n" not in str(e.value)
    assert (content(path) if text is not None else None) == text
    assert backups(path) == []


def test_a_codex_config_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    text = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"
    path = written(tmp_path, text, "config.toml")
    with pytest.raises(HookError, match="nested too deeply"):
        codex.install(path, ARGV)
    assert codex.inspect(path).problem is not None
    assert backups(path) == []


def test_codex_keeps_a_crlf_file_s_line_endings(tmp_path: Path) -> None:
    text = 'model = "o3"\r\n[profiles.fast]\r\nmodel = "o4"\r\n'
    path = written(tmp_path, text, "config.toml")
    codex.install(path, ARGV)
    after = path.read_bytes()
    assert after.endswith(text.encode())
    assert b"\n" not in after.replace(b"\r\n", b"")
    codex.uninstall(path)
    assert content(path) == text


# --- the property: any settings file, install then uninstall, its exact bytes back ---


@dataclass(frozen=True)
class Style:
    indent: str | None
    newline: str
    colon: str


NUMBER_TEXTS = st.one_of(
    st.sampled_from(["0", "-0", "1e400", "-1E-400", "0.1000000000000000055511151231257827"]),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,4})?", fullmatch=True),
)
STRING_TEXTS = st.one_of(
    st.text(max_size=8).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.text(max_size=8).map(json.dumps),
    st.sampled_from(['"\\ud800"', '"\\/\\b"', '"é\\u00e9"']),
)
LITERALS = st.one_of(st.sampled_from(["null", "true", "false"]), NUMBER_TEXTS, STRING_TEXTS).map(
    lambda t: ("lit", t)
)
KEYS = st.one_of(st.sampled_from(["model", "env", "a", "a", "é"]), st.text(max_size=6))


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4).map(lambda items: ("arr", items)),
        st.lists(st.tuples(KEYS, children), max_size=4).map(lambda ms: ("obj", ms)),
    )


VALUES = st.recursive(LITERALS, containers, max_leaves=8)
COMMANDS = st.sampled_from(["say bye", "notify-send done", "./check.sh ü", 'x \\"y\\"'])
HANDLER = st.tuples(COMMANDS, st.sampled_from([None, "5", "1.50", "1e1"])).map(
    lambda h: (
        "obj",
        [("type", ("lit", '"command"')), ("command", ("lit", json.dumps(h[0])))]
        + ([("timeout", ("lit", h[1]))] if h[1] else []),
    )
)
GROUP = st.tuples(st.sampled_from([None, '"Bash"', '"auto"']), st.lists(HANDLER, max_size=3)).map(
    lambda g: (
        "obj",
        ([("matcher", ("lit", g[0]))] if g[0] else []) + [("hooks", ("arr", g[1]))],
    )
)
EVENT_NAMES = st.sampled_from(["SessionEnd", "PreCompact", "Stop", "PreToolUse"])
# A list or hooks object of the person's that is empty is left out: ours alone in it
# would be taken out with it (docs/capture.md says so; a test below shows it).
PERSON_HOOKS = st.dictionaries(EVENT_NAMES, st.lists(GROUP, min_size=1, max_size=3), min_size=1)
STYLES = st.builds(
    Style,
    st.sampled_from([None, "  ", "    ", "\t"]),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from([": ", ":", " : "]),
)


@st.composite
def settings_texts(draw: st.DrawFn) -> str:
    members = draw(st.lists(st.tuples(KEYS.filter(lambda k: k != "hooks"), VALUES), max_size=5))
    hooks = draw(st.none() | PERSON_HOOKS)
    if hooks is not None:
        node = ("obj", [(event, ("arr", groups)) for event, groups in hooks.items()])
        members.insert(draw(st.integers(0, len(members))), ("hooks", node))
    style = draw(STYLES)
    return render(("obj", members), style, 0) + draw(st.sampled_from(["", "\n", style.newline]))


def render(node: Any, style: Style, depth: int) -> str:
    kind, body = node
    if kind == "lit":
        return str(body)
    parts = (
        [json.dumps(k, ensure_ascii=False) + style.colon + render(v, style, depth + 1)
         for k, v in body]
        if kind == "obj"
        else [render(v, style, depth + 1) for v in body]
    )  # fmt: skip
    opening, closing = "{}" if kind == "obj" else "[]"
    if not parts:
        return opening + closing
    if style.indent is None:
        return opening + ", ".join(parts) + closing
    inner = style.newline + style.indent * (depth + 1)
    return (
        opening + inner + ("," + inner).join(parts) + style.newline + style.indent * depth + closing
    )


@given(text=settings_texts())
@settings(
    max_examples=draws(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_install_adds_only_ours_and_uninstall_gives_back_the_exact_bytes(
    tmp_path: Path, text: str
) -> None:
    path = written(tmp_path, text)
    before = json.loads(text)
    assert claude.install(path, ARGV).changed
    after = content(path)
    assert is_subsequence(text, after)
    doc = json.loads(after)
    for event in claude.EVENTS:
        assert doc["hooks"][event] == [*before.get("hooks", {}).get(event, []), {"hooks": [OURS]}]
    assert {k: v for k, v in doc.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }
    assert not claude.install(path, ARGV).changed
    assert claude.uninstall(path).changed
    assert content(path) == text
    assert exact(content(path)) == exact(text)


def test_an_empty_list_of_the_person_s_that_only_ours_filled_goes_with_ours(
    tmp_path: Path,
) -> None:
    text = '{"hooks": {"SessionEnd": [], "Stop": []}}'
    path = written(tmp_path, text)
    claude.install(path, ARGV)
    claude.uninstall(path)
    assert content(path) == '{"hooks": {"Stop": []}}'


TOML_VALUES = st.one_of(
    st.text(max_size=6).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.sampled_from(["1e400", "0x1F", "1_000", "-0.0", "inf", "1979-05-27T07:32:00Z", "'lit'"]),
    st.sampled_from(['"""multi\nline"""', "[1, 2,\n  3]", '{ a = 1, "b c" = "d" }']),
    st.integers().map(str),
)
TOML_LINES = st.one_of(
    st.tuples(st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True), TOML_VALUES).map(
        lambda kv: f"{kv[0]} = {kv[1]}"
    ),
    st.sampled_from(["# a comment", "", "   ", "[profiles.fast]", "[[servers]]", "[a.b]"]),
)


@st.composite
def toml_texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(TOML_LINES, max_size=10))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        text = ""
    return text


@given(text=toml_texts())
@settings(
    max_examples=draws(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_codex_install_adds_only_ours_and_uninstall_gives_back_the_exact_bytes(
    tmp_path: Path, text: str
) -> None:
    path = written(tmp_path, text, "config.toml")
    assert codex.install(path, ARGV).changed
    after = content(path)
    assert after.endswith(text)
    assert tomllib.loads(after) == {**tomllib.loads(text), "notify": ARGV}
    assert codex.uninstall(path).changed
    assert content(path) == text
