"""``python -m facedown.cli`` runs the command line, as ``python -m facedown`` does."""

import sys

from .main import main

sys.exit(main())
