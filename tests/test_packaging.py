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

from vizcoll import __version__
from vizcoll.cli import main

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE")  # what a build of the package reads besides vizcoll/
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


def source_copy(folder: Path) -> Path:
    """The package's files copied into ``folder`` (setuptools builds in place: never in the checkout)."""
    shutil.copytree(ROOT / "vizcoll", folder / "vizcoll", ignore=shutil.ignore_patterns("__pycache__"))
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out, source = tmp_path_factory.mktemp("wheel"), source_copy(tmp_path_factory.mktemp("source"))
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
    modules |= {str(p.relative_to(ROOT)) for p in (ROOT / "vizcoll" / "ui" / "assets").iterdir()}  # the app's assets
    assert modules <= names and not any(n.startswith(("tests/", "benchmarks/")) for n in names)
    assert "vizcoll = vizcoll.cli:main" in entry_points
    assert "Provides-Extra: dask" in metadata and "Requires-Dist: numpy>=2.0" in metadata
    assert f"Version: {__version__}\n" in metadata and "License-Expression: BSD-3-Clause" in metadata
    assert "Project-URL: Documentation, " in metadata and "Classifier: Framework :: Dash" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_an_installed_vizcoll_command_runs(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
    )
    done = subprocess.run([venv / "bin" / "vizcoll", "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"vizcoll {__version__}"
    script = "import importlib.metadata, vizcoll; print(importlib.metadata.version('vizcoll'), vizcoll.__version__)"
    versions = subprocess.run([venv / "bin" / "python", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert versions.stdout.split() == [__version__, __version__]


def test_the_version_is_written_once_and_the_changelog_has_its_section():
    assert "version" not in project() and project()["dynamic"] == ["version"]
    assert re.search(r"^## (\d+\.\d+\.\d+) ", (ROOT / "CHANGELOG.md").read_text(), re.M)[1] == __version__


def test_exports_without_the_drawing_extras_say_what_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "kaleido", None)  # as if not installed
    assert main(["figures", "--page", "trees"]) == 2
    assert capsys.readouterr().err == (
        "vizcoll: error: figures draws with the app's figure code, which needs "
        'kaleido: pip install "vizcoll[web,export]" (in the project folder: '
        'pip install ".[web,export]")\n'
    )
