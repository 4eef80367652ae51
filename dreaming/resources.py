"""Where the shipped data folders (vault_seed/, meta_templates/, launchd/) are."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The data folder `name`: inside the package in an installed wheel (pyproject maps
    the folders to dreaming/_data/), at the top of the checkout otherwise."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name
