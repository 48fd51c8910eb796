"""Many Facedown matches at once as numpy arrays: for research, tournaments and training.

:class:`Batch` plays the rules of the reference engine over many games at once, as arrays stepped
by compiled kernels (:mod:`facedown.batch.kernels` and the modules it draws on), every preset
included; :mod:`facedown.batch.policies` holds the batch's own players, ``batch-random`` and
``batch-easy`` (compiled in :mod:`facedown.batch.players`, with a tournament's loop);
:mod:`facedown.batch.observe` encodes what each seat may know as :mod:`facedown.rl` does;
:mod:`facedown.batch.env` is a PettingZoo parallel environment over a batch.  The reference engine
stays the authority: the differential tests replay every batch game on it.  See docs/batch.md.
"""

from .core import Batch, UnsupportedRules, unsupported

__all__ = ["Batch", "UnsupportedRules", "unsupported"]
