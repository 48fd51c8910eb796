"""The kernels' cache folder: named by the text of every kernel file, so no edit loads stale code.

Numba keys a cached function by its own file only; a kernel that inlines code of another file
(``legal.play_random`` holds ``kernels.step_one``) would load its old machine code after an edit
of that file.  The batch's folder is named by a hash of all of them (``facedown.batch.jit``).
"""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from numba.core import config
from numba.core.registry import CPUDispatcher

from facedown.batch import jit
from facedown.batch.jit import KERNEL_MODULES, PACKAGE, PREFIX, cache_folder, sources_hash


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of the batch package's source files."""
    folder = tmp_path / "batch"
    folder.mkdir()
    for source in PACKAGE.glob("*.py"):
        shutil.copy(source, folder / source.name)
    return folder


def edit(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_the_name_changes_with_the_text_of_each_kernel_file(package: Path, module: str) -> None:
    before = sources_hash(package)
    source = package / f"{module}.py"
    original = source.read_text()
    edit(source, "\n# an edit\n")
    assert sources_hash(package) != before
    source.write_text(original)
    assert sources_hash(package) == before  # the name is the text's, not the file's time


def test_the_name_ignores_files_the_kernels_are_not_made_of(package: Path) -> None:
    before = sources_hash(package)
    edit(package / "core.py", "\n# an edit\n")
    edit(package / "policies.py", "\n# an edit\n")
    assert sources_hash(package) == before


def test_a_changed_file_gets_a_new_folder_and_the_old_ones_go(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "CACHE_DIR", "")
    first = cache_folder(package)
    assert first is not None
    assert first.is_dir()
    assert first.parent == package / "__pycache__"
    assert first.name.startswith(PREFIX)
    assert cache_folder(package) == first  # unchanged sources: the same folder
    loose = package / "__pycache__" / "kernels.step-783.py311.nbi"  # numba's own, of before
    loose.write_bytes(b"")
    edit(package / "kernels.py", "\n# an edit\n")
    second = cache_folder(package)
    assert second is not None
    assert second.is_dir()
    assert second != first
    assert not first.exists()
    assert not loose.exists()


def test_under_numba_cache_dir_the_folders_are_kept_apart(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    monkeypatch.setattr(config, "CACHE_DIR", str(shared))
    first = cache_folder(package)
    assert first is not None
    assert first.is_relative_to(shared)
    edit(package / "legal.py", "\n# an edit\n")
    second = cache_folder(package)
    assert second is not None
    assert second != first
    assert second.is_relative_to(shared)
    assert first.is_dir()  # a folder others may share: left alone (never read again)
    assert not (package / "__pycache__").exists()


def test_every_kernel_is_cached_in_the_folder_of_these_sources() -> None:
    assert jit.CACHE is not None
    assert jit.CACHE.name == PREFIX + sources_hash(PACKAGE)
    dispatchers = [
        value
        for name in KERNEL_MODULES
        for value in vars(importlib.import_module(f"facedown.batch.{name}")).values()
        if isinstance(value, CPUDispatcher)
    ]
    assert len(dispatchers) >= 20
    for dispatcher in dispatchers:
        cache: Any = dispatcher._cache  # type: ignore[attr-defined]
        path = Path(cache.cache_path)
        assert path.is_relative_to(jit.CACHE), dispatcher


def _relative_imports(path: Path) -> dict[str, set[str]]:
    """The package modules ``path`` imports from, with the names it takes from each."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.setdefault(node.module, set()).update(a.name for a in node.names)
    return out


def test_the_hash_covers_every_file_of_compiled_code() -> None:
    """Every module that compiles (imports ``kernel`` or ``inline``) is listed, and so is every
    module of the package that a listed one imports (its constants and kernels)."""
    for source in PACKAGE.glob("*.py"):
        imports = _relative_imports(source)
        compiles = bool(imports.get("jit", set()) & {"kernel", "inline"})
        if compiles:
            assert source.stem in KERNEL_MODULES, source.name
        if source.stem in KERNEL_MODULES:
            for module in imports:
                assert module in KERNEL_MODULES, f"{source.name} imports .{module}"


TOY = {
    "__init__.py": "",
    "layout.py": "STEP = 1\n",
    "kernels.py": (
        "from .jit import inline\nfrom .layout import STEP\n\n\n"
        "@inline\ndef advance(x: int) -> int:\n    return x + STEP\n"
    ),
    "legal.py": (
        "from .jit import kernel\nfrom .kernels import advance\n\n\n"
        "@kernel\ndef play(x: int) -> int:\n    return advance(x) * 10\n"
    ),
}
ASK = (
    "from toy.legal import play; from toy.jit import CACHE; "
    "print(play(1), play.stats.cache_hits.most_common(1), CACHE.name)"
)


def _run_toy(root: Path) -> tuple[str, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", ASK], cwd=root, capture_output=True, text=True, check=True
    )
    words = done.stdout.split()
    return words[0], " ".join(words[1:-1]), words[-1]


def test_an_edit_of_an_inlined_file_is_compiled_not_loaded_stale(tmp_path: Path) -> None:
    """End to end, with this package's jit module in a small package of the same shape: a
    kernel of legal.py inlines a function of kernels.py, which reads a constant of layout.py.
    Numba alone would load legal.py's stale code after an edit of either other file."""
    toy = tmp_path / "toy"
    toy.mkdir()
    shutil.copy(PACKAGE / "jit.py", toy / "jit.py")
    for name in KERNEL_MODULES:  # the files jit.py hashes; the toy's kernels are in three
        (toy / f"{name}.py").touch()
    for name, text in TOY.items():
        (toy / name).write_text(text)
    value, hits, first = _run_toy(tmp_path)
    assert value == "20"
    assert hits == "[]"  # compiled
    value, hits, again = _run_toy(tmp_path)
    assert (value, again) == ("20", first)
    assert hits != "[]"  # loaded from the cache
    (toy / "kernels.py").write_text(TOY["kernels.py"].replace("x + STEP", "x + 2 * STEP"))
    value, hits, second = _run_toy(tmp_path)
    assert value == "30"
    assert second != first
    (toy / "layout.py").write_text("STEP = 3\n")
    value, _, third = _run_toy(tmp_path)
    assert value == "70"
    assert third not in (first, second)
    assert [p.name for p in (toy / "__pycache__").glob(PREFIX + "*")] == [third]
