"""Compile every kernel of the batch once, into numba's cache: ``python -m facedown.batch.compile``.

The kernels take the same array types whatever the ruleset, so one small batch compiles them
all; later imports load the cache (a folder named by the kernel files' text, in
``facedown/batch/__pycache__``: see :mod:`.jit`).  The test command runs this before pytest, so
that its parallel workers load the kernels instead of each compiling them.  Prints the seconds it
took (about a second with a warm cache) and the folder.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def main() -> int:
    start = time.perf_counter()
    from ..engine import make_ruleset
    from ..sim import SimConfig
    from . import Batch
    from .policies import EasyPlayer, RandomPlayer
    from .tournament import play_batch

    batch = Batch(make_ruleset("boyo"), 3, 4)
    batch.legal_mask()
    _ = batch.actor
    batch.step(RandomPlayer(batch)(np.random.default_rng(0)))
    batch.play_random(3, 0, 0.05, 0.05)
    EasyPlayer(batch)(np.random.default_rng(0))
    play_batch(SimConfig("boyo", 3, ("batch-easy", "batch-random"), games=2, unit="round"))
    from .jit import CACHE

    where = f"cached in {CACHE}" if CACHE is not None else "no writable cache folder"
    print(f"the batch's kernels are compiled ({time.perf_counter() - start:.1f} s), {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
