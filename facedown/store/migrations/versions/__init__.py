"""Migration scripts, one revision per file, written by hand to match :mod:`..models`."""
