"""pyproject is honest: every third-party import declared, every declared dependency used."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Mapping
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OWN = ("dreaming", "stages", "watcher")
# Extras that only tests and tools use: no runtime import may rely on them.
TOOL_EXTRAS = ("dev",)
# Declared, yet no `import` names them: each with the reason it stays.
INDIRECT = {
    "cmeel-openblas": "a BLAS library that blas.py loads with ctypes from its file path",
}
# Imports of optional extras that a plain install lacks, so their distribution is unknown here.
NOT_INSTALLED = {"llama_cpp": "llama-cpp-python", "ik_llama_cpp": "ik-llama-cpp-python"}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match, requirement
    return norm(match.group())


def declared(pyproject: dict[str, object]) -> tuple[set[str], set[str]]:
    """(runtime dependencies with the runtime extras, the tools-only extras)."""
    project = pyproject["project"]
    assert isinstance(project, dict)
    runtime = {requirement_name(r) for r in project["dependencies"]}
    tools: set[str] = set()
    for extra, requirements in project.get("optional-dependencies", {}).items():
        target = tools if extra in TOOL_EXTRAS else runtime
        target.update(requirement_name(r) for r in requirements)
    return runtime, tools


def imported(source: str) -> set[str]:
    """Top-level module names an absolute import in `source` names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def third_party(names: set[str]) -> set[str]:
    return {n for n in names if n not in sys.stdlib_module_names and n not in OWN}


def distributions(name: str, mapping: Mapping[str, list[str]]) -> set[str]:
    if name in NOT_INSTALLED:
        return {norm(NOT_INSTALLED[name])}
    return {norm(d) for d in mapping.get(name, [])}


def problems(
    imports: set[str], runtime: set[str], tools: set[str], mapping: Mapping[str, list[str]]
) -> list[str]:
    found: list[str] = []
    used: set[str] = set()
    for name in sorted(imports):
        dists = distributions(name, mapping)
        used |= dists
        if not dists & runtime:
            where = "only in a tools extra" if dists & tools else "not declared"
            found.append(f"import {name} ({', '.join(sorted(dists)) or 'not installed'}): {where}")
    for dist in sorted(runtime - used - set(INDIRECT)):
        found.append(f"{dist}: declared, but no runtime module imports it")
    return found


def imports_under(*tops: str) -> set[str]:
    names: set[str] = set()
    for top in tops:
        for path in (REPO / top).rglob("*.py"):
            names |= imported(path.read_text(encoding="utf-8"))
    return third_party(names)


def test_pyproject_declares_exactly_what_the_code_imports() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    runtime, tools = declared(pyproject)
    assert problems(imports_under(*OWN), runtime, tools, packages_distributions()) == []


def test_the_tests_import_only_what_the_dev_install_brings() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    runtime, tools = declared(pyproject)
    mapping = packages_distributions()
    missing = {
        name
        for name in imports_under("tests", "bench") - {"tests", "bench"}
        if not distributions(name, mapping) & (runtime | tools)
    }
    assert missing == set()


def test_every_indirect_dependency_is_declared() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    runtime, _ = declared(pyproject)
    assert set(INDIRECT) <= runtime


def test_the_check_names_an_undeclared_import_and_an_unused_dependency() -> None:
    source = "import numpy as np\nfrom yaml import safe_load\nimport os\nfrom . import sibling\n"
    imports = third_party(imported(source))
    mapping = {"numpy": ["numpy"], "yaml": ["PyYAML"], "mistune": ["mistune"]}
    assert imports == {"numpy", "yaml"}
    assert problems(imports, {"numpy", "rich"}, {"pyyaml"}, mapping) == [
        "import yaml (pyyaml): only in a tools extra",
        "rich: declared, but no runtime module imports it",
    ]


def test_requirement_names_lose_versions_extras_and_markers() -> None:
    assert requirement_name("mlx[cpu]>=0.29; sys_platform == 'linux'") == "mlx"
    assert requirement_name("GitPython>=3.1.40") == "gitpython"
    assert requirement_name("python_frontmatter >= 1") == "python-frontmatter"
