"""vizcoll is a Python package: its wheel holds the engine and a ``vizcoll`` command, and depends on what the
engine imports, no more (the app's packages are extras)."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from vizcoll.cli import main

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = {"hostlist": "python-hostlist", "PIL": "Pillow", "yaml": "PyYAML"}  # import name -> PyPI name


def third_party_imports(files) -> set[str]:
    names = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {
        DISTRIBUTION.get(n, n) for n in names if n not in sys.stdlib_module_names and n not in ("vizcoll", "__future__")
    }


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def normal(name: str) -> str:
    """A distribution's name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def bare(requirement: str) -> str:
    return normal(re.split(r"[\[<>=~! ]", requirement, maxsplit=1)[0])


def test_the_engine_depends_on_what_it_imports_and_the_app_on_its_extras():
    engine = [p for p in (ROOT / "vizcoll").rglob("*.py") if "ui" not in p.relative_to(ROOT / "vizcoll").parts]
    needed = {normal(n) for n in third_party_imports(engine)} - {"distributed", "dask"}  # --dask: the extra
    assert needed == {bare(r) for r in project()["dependencies"]}
    extras = {bare(r) for extra in project()["optional-dependencies"].values() for r in extra}
    app = {normal(n) for n in third_party_imports((ROOT / "vizcoll" / "ui").rglob("*.py"))} | {"gunicorn"}
    assert app - needed <= extras | {"werkzeug"}  # werkzeug comes with Flask


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source")  # setuptools builds in place
    shutil.copytree(ROOT / "vizcoll", source / "vizcoll", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    return next(out.glob("vizcoll-*.whl"))


def test_the_wheel_holds_every_module_and_the_vizcoll_command(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if n.endswith("entry_points.txt"))
        metadata = next(archive.read(n).decode() for n in names if n.endswith("METADATA"))
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "vizcoll").rglob("*.py")}
    modules |= {str(p.relative_to(ROOT)) for p in (ROOT / "vizcoll" / "lessons").glob("*.json")}  # shipped lessons
    assert modules <= names and not any(n.startswith(("tests/", "benchmarks/")) for n in names)
    assert "vizcoll = vizcoll.cli:main" in entry_points
    assert "Provides-Extra: dask" in metadata and "Requires-Dist: numpy>=2.0" in metadata


def test_an_installed_vizcoll_command_runs(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
    )
    done = subprocess.run([venv / "bin" / "vizcoll", "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"vizcoll {project()['version']}"


def test_exports_without_the_drawing_extras_say_what_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "kaleido", None)  # as if not installed
    assert main(["figures", "--page", "trees"]) == 2
    assert capsys.readouterr().err == (
        "vizcoll: error: figures draws with the app's figure code, which needs "
        'kaleido: pip install "vizcoll[web,export]" (in the project folder: '
        'pip install ".[web,export]")\n'
    )
