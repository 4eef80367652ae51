"""Where the shipped data folders (vault_seed/, meta_templates/, launchd/) are."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_dir(name: str) -> Path:
    """The folder `name` beside the packages, in a checkout or an installed wheel."""
    here = Path(__file__).resolve().parent.parent / name
    if here.is_dir():
        return here
    return Path(str(resources.files(name)))
