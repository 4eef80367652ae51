"""What an installed wheel holds: our three packages, the data folders inside `dreaming`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = ("vault_seed", "meta_templates", "launchd")
CODE = ("dreaming", "stages", "watcher")


# Slow: builds and installs a wheel with pip.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files setuptools puts into the wheel (its build_py step), built from a copy."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REPO / "pyproject.toml", src)
    shutil.copy(REPO / "README.md", src)
    for name in (*CODE, *DATA):
        shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(out)],
        cwd=src, check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return out


def test_the_wheel_installs_no_data_folder_as_a_top_level_name(lib: Path) -> None:
    assert sorted(p.name for p in lib.iterdir()) == sorted(CODE)
    for name in DATA:
        shipped = sorted(p.relative_to(REPO / name) for p in (REPO / name).rglob("*"))
        installed = lib / "dreaming" / "_data" / name
        assert sorted(p.relative_to(installed) for p in installed.rglob("*")) == shipped


def test_the_wheel_holds_every_package_of_the_checkout(lib: Path) -> None:
    for top in CODE:
        for init in (REPO / top).rglob("__init__.py"):
            assert (lib / init.relative_to(REPO)).is_file(), f"{init.parent} is not in pyproject"


def test_an_installed_dreaming_finds_its_data_inside_the_package(lib: Path) -> None:
    script = "from dreaming.resources import data_dir; print(data_dir('vault_seed'))"
    found = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(lib)!r}); {script}"],
        capture_output=True, text=True, check=True, cwd=lib.parent, timeout=60,
    )  # fmt: skip
    assert Path(found.stdout.strip()) == lib / "dreaming" / "_data" / "vault_seed"


def test_a_checkout_finds_its_data_at_the_top() -> None:
    from dreaming.resources import data_dir

    assert data_dir("meta_templates") == REPO / "meta_templates"
