"""Standard multi-agent interfaces for researchers (the optional ``rl`` extra).

``facedown.rl.env(preset="cabo", players=2)`` is a PettingZoo AEC environment with action masks.
Install with ``pip install facedown[rl]`` (PettingZoo, Gymnasium, NumPy).
"""

from .actions import PASS, ActionCodec
from .env import FacedownEnv, env
from .observation import ObservationEncoder

__all__ = ["PASS", "ActionCodec", "FacedownEnv", "ObservationEncoder", "env"]
