"""Names that look alike: the "skeleton" of Unicode's confusable detection (UTS #39, section 4).

Two strings that look the same to a reader (``paypal`` in Latin letters, the same word with
Cyrillic ``\u0440\u0430\u0443`` for ``p``, ``a`` and ``y``, ``PayPaI`` with a capital I) have the
same skeleton.  The skeleton maps each character to the prototype Unicode's ``confusables.txt``
gives it, between two decompositions (NFD), as UTS #39 describes.  The data is that file as
the ``confusable-homoglyphs`` package ships it: a JSON graph in which each character lists the
characters it is confusable with, both ways; the prototypes are read back out of it.

An account name's skeleton (:func:`name_skeleton`) is taken after the name is folded as names
are compared (NFKC, case, spaces), and folded again after, so that neither a case change nor a
look-alike letter makes a name that passes for another.

Below both the store and the server, and importing nothing of Facedown: the server's accounts
refuse a look-alike name with it, and the store's revision 0011 fills ``users.name_skeleton``
with it (the store imports nothing else of Facedown: ``tests/store/test_layout.py``).
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables

_MARKS = "\u200e\u200f"  # the package wraps right-to-left characters in these for display


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, as ``confusables.txt`` maps it.

    The package's graph holds each line ``source ; prototype`` both ways.  A source (one code
    point) maps to a single prototype and no line maps anything to a source (the mapping is
    idempotent), so: a character with several neighbours is a prototype; a character with one
    neighbour maps to it when that neighbour is a sequence of several characters or has other
    neighbours; and when two characters have only each other, which one is the prototype
    cannot be told, and either serves, as long as both map to the same one (the smaller)."""
    graph: dict[str, list[str]] = {
        key: [entry["c"].strip(_MARKS) for entry in entries]
        for key, entries in confusables.confusables_data.items()
    }
    mapped: dict[str, str] = {}
    for char, neighbours in graph.items():
        char = char.strip(_MARKS)
        if len(char) != 1 or len(neighbours) != 1:
            continue
        [other] = neighbours
        # A sequence, or a character with other neighbours, is the prototype; of two characters
        # that have only each other, the smaller.
        if len(other) > 1 or len(graph.get(other, ())) != 1 or other < char:
            mapped[char] = other
    return mapped


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character replaced by its prototype, NFD again."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


def name_skeleton(name: str) -> str:
    """What two account names that look the same have in common (see the module docstring)."""
    folded = " ".join(unicodedata.normalize("NFKC", name).split())
    return skeleton(skeleton(folded).casefold())
