"""The two ways the batch compiles a function with numba, in one place, and where they are cached.

``kernel``: compiled on its own, cached on disk (``cache=True``: the first import on a machine
compiles, later ones load), and without numba's reference counting (``_nrt=False``): the kernels
allocate nothing, and counting the references of a dozen arrays at every call costed more than
the rules themselves (230 ns a game and step before, 5 ns after, for the seat asked).
``inline``: the same, inlined into its callers (small helpers on the hot path).

The cache folder.  Numba keys a cached function by the text of its own file only, but a kernel
carries the code of what it inlines or calls from other files (``legal.play_random`` holds
``kernels.step_one``) and the constants of :mod:`.layout`: edit one of those and numba would
load the old machine code.  So the batch keeps its cache in a folder of its own, named by a hash
of the text of every file the kernels are made of (:data:`KERNEL_MODULES`, and numba's version):
any edit of one compiles every kernel afresh, in a new folder.  The folder lies in the
package's ``__pycache__`` (where numba would put it), or under ``NUMBA_CACHE_DIR`` when that is
set, or in the user's cache folder when the package's is not writable; without any writable
folder the kernels are compiled at every start (never loaded stale).  Making a new folder in the
package's ``__pycache__`` removes the folders of earlier sources there; elsewhere (a folder that
several checkouts may share) old folders are left alone: they are never read again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt
from numba import njit
from numba.core import config as numba_config

# The arrays the kernels take, by element type.
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

F = TypeVar("F", bound=Callable[..., Any])
_njit: Any = njit
config: Any = numba_config  # its fields are made at run time, unknown to mypy

# The modules of this package the compiled code is made of: those with kernels, and what their
# kernels read (this module's options, the layout's constants, the bundles' types).  A test
# holds the list complete.
KERNEL_MODULES = (
    "jit",
    "layout",
    "bundles",
    "deal",
    "scoring",
    "turns",
    "kernels",
    "legal",
    "players",
)
PACKAGE = Path(__file__).resolve().parent
PREFIX = "numba-"  # the cache folders' names: numba-<hash>


def sources_hash(folder: Path, modules: Iterable[str] = KERNEL_MODULES) -> str:
    """A hash of the text of ``modules`` (``<name>.py`` in ``folder``) and numba's version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for name in modules:
        digest.update(b"\0" + name.encode() + b"\0")
        digest.update((folder / f"{name}.py").read_bytes())
    return digest.hexdigest()[:16]


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "facedown" / "batch"


def cache_folder(package: Path = PACKAGE) -> Path | None:
    """The folder the kernels of the sources in ``package`` are cached in (made if missing;
    None: no writable place); see the module docstring."""
    name = PREFIX + sources_hash(package)
    if config.CACHE_DIR:
        shared = Path(config.CACHE_DIR) / "facedown-batch" / name
        return shared if _writable(shared) else None
    root = package / "__pycache__"
    folder = root / name
    if folder.is_dir() and _writable(folder):
        return folder
    if _writable(folder):
        remove_stale(root, keep=folder)
        return folder
    fallback = _user_cache() / name
    return fallback if _writable(fallback) else None


def remove_stale(root: Path, keep: Path) -> list[Path]:
    """Remove the cache folders in ``root`` but ``keep`` (earlier sources'), and numba's own
    cache files there (from before the batch had its folder); the paths removed."""
    gone = []
    for old in sorted(root.iterdir()):
        if old == keep:
            continue
        if old.is_dir() and old.name.startswith(PREFIX):
            shutil.rmtree(old, ignore_errors=True)
        elif old.is_file() and old.suffix in (".nbi", ".nbc"):
            old.unlink(missing_ok=True)
        else:
            continue
        gone.append(old)
    return gone


CACHE = cache_folder()


def _compile(fn: Any, **options: Any) -> Any:
    """``njit`` with the batch's options, cached in :data:`CACHE` (numba reads its cache folder
    when a function is decorated, so it is set around the decoration only)."""
    if CACHE is None:
        return _njit(_nrt=False, **options)(fn)
    saved = config.CACHE_DIR, config.CACHE_LOCATOR_CLASSES
    # Only the folder given: never numba's fallbacks (the __pycache__ next to the file).
    config.CACHE_DIR, config.CACHE_LOCATOR_CLASSES = str(CACHE), "UserProvidedCacheLocator"
    try:
        return _njit(cache=True, _nrt=False, **options)(fn)
    finally:
        config.CACHE_DIR, config.CACHE_LOCATOR_CLASSES = saved


def kernel(fn: F) -> F:
    return cast(F, _compile(fn))


def inline(fn: F) -> F:
    return cast(F, _compile(fn, inline="always"))
