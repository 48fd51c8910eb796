"""The two ways the batch compiles a function with numba, in one place.

``kernel``: compiled on its own, cached on disk (``cache=True``: the first import on a machine
compiles, later ones load), and without numba's reference counting (``_nrt=False``): the kernels
allocate nothing, and counting the references of a dozen arrays at every call costed more than
the rules themselves (230 ns a game and step before, 5 ns after, for the seat asked).
``inline``: the same, inlined into its callers (small helpers on the hot path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

# The arrays the kernels take, by element type.
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

F = TypeVar("F", bound=Callable[..., Any])
_njit: Any = njit


def kernel(fn: F) -> F:
    return cast(F, _njit(cache=True, _nrt=False)(fn))


def inline(fn: F) -> F:
    return cast(F, _njit(cache=True, _nrt=False, inline="always")(fn))
