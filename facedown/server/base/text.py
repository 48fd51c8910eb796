"""Text from users (names, the call's name, codes, ids): normalised, bounded, and free of the
characters that make one label look like another or reach into its neighbours.

Every string a client sends is NFC-normalised and refused (with a message saying why) when it
holds a control character (Unicode category Cc), a lone surrogate (Cs), a line or paragraph
separator, or a format character (Cf) such as the bidi overrides and isolates (U+202A-U+202E,
U+2066-U+2069) that reversed a neighbouring label in the lobby.  The joiners U+200C and U+200D
(needed by several scripts and by emoji sequences) and the emoji tag characters are kept.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, Field

# Format characters that shape text rather than steer it: kept.
_KEPT_FORMAT = frozenset({"\u200c", "\u200d"}) | frozenset(map(chr, range(0xE0020, 0xE0080)))
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def escaped(text: str, limit: int = 200) -> str:
    """``text`` fit for an error message: every character that is not printable escaped (so a
    message can always be encoded and never steers its neighbours), and cut short."""
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(text: str, limit: int = 60) -> str:
    """``text`` quoted for an error message (see :func:`escaped`)."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def refused_character(text: str) -> str | None:
    """The first character of ``text`` that user text may not hold, described; else None."""
    for c in text:
        category = unicodedata.category(c)
        if category in _REFUSED_CATEGORIES or (category == "Cf" and c not in _KEPT_FORMAT):
            name = unicodedata.name(c, "") if category != "Cs" else "lone surrogate"
            return f"U+{ord(c):04X}" + (f" {name}" if name else "")
    return None


def clean(text: str, max_length: int, *, strip: bool = True) -> str:
    """``text`` in NFC, trimmed, checked; raises ValueError (a readable reason) when refused."""
    bad = refused_character(text)
    if bad is not None:
        raise ValueError(f"control and format characters are not allowed (found {bad})")
    text = unicodedata.normalize("NFC", text)
    if strip:
        text = text.strip()
        if not text:
            raise ValueError("must not be blank")
    if len(text) > max_length:
        raise ValueError(f"must be at most {max_length} characters")
    return text


def _name(text: str) -> str:
    return clean(text, NAME_LENGTH)


NAME_LENGTH = 32

# The raw length is bounded first (a 2 MB name is refused before it is looked at), a little
# above the limit since normalising may shorten a text.  The published schema says the limit
# the server enforces (NAME_LENGTH), not that raw bound.
Name = Annotated[
    str,
    Field(min_length=1, max_length=NAME_LENGTH * 4, json_schema_extra={"maxLength": NAME_LENGTH}),
    AfterValidator(_name),
]
"""A display name: at most NAME_LENGTH characters of user text (see :func:`clean`)."""

# Machine strings (table codes, action ids, session tokens): visible ASCII only.
_VISIBLE_ASCII = r"^[\x21-\x7e]+$"
CODE_PATTERN = r"^[A-Za-z0-9]+$"
Code = Annotated[str, Field(min_length=1, max_length=16, pattern=CODE_PATTERN)]
ActionId = Annotated[str, Field(min_length=1, max_length=64, pattern=_VISIBLE_ASCII)]
Token = Annotated[str, Field(min_length=1, max_length=512, pattern=_VISIBLE_ASCII)]


# Accounts: a user name is user text of USER_NAME_MIN to USER_NAME_LENGTH characters in NFKC,
# with nothing invisible, and two names that fold to the same key (case, compatibility forms,
# runs of spaces) name one account; names that merely look alike: facedown/names.py.
USER_NAME_MIN = 3
USER_NAME_LENGTH = 24
PASSWORD_MIN = 8
PASSWORD_LENGTH = 128


# Characters that show nothing (Unicode's Default_Ignorable_Code_Point, and the blanks that
# are letters or symbols): a name holding one looks like the name without it.
_INVISIBLE = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; direction marks
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates
    (0x2800, 0x2800),  # braille pattern blank
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags and variation selectors supplement
)


def invisible_character(text: str) -> str | None:
    """The first character of ``text`` that shows nothing, described; else None."""
    for c in text:
        if any(low <= ord(c) <= high for low, high in _INVISIBLE):
            name = unicodedata.name(c, "")
            return f"U+{ord(c):04X}" + (f" {name}" if name else "")
    return None


def _user_name(text: str) -> str:
    """An account's name: user text (:func:`clean`), then NFKC (so that ``ﬁ`` and ``fi``, or
    full-width and plain letters, are written one way), with no character that shows nothing
    (zero-width ones included, which other user text may hold) and single spaces."""
    invisible = invisible_character(text)
    if invisible is not None:
        raise ValueError(f"invisible characters are not allowed in a name (found {invisible})")
    text = " ".join(unicodedata.normalize("NFKC", clean(text, USER_NAME_LENGTH * 2)).split())
    invisible = invisible_character(text)  # none should appear, but NFKC is checked too
    if invisible is not None:
        raise ValueError(f"invisible characters are not allowed in a name (found {invisible})")
    if len(text) > USER_NAME_LENGTH:
        raise ValueError(f"must be at most {USER_NAME_LENGTH} characters")
    if len(text) < USER_NAME_MIN:
        raise ValueError(f"must be at least {USER_NAME_MIN} characters")
    return text


def name_key(name: str) -> str:
    """The form two user names are compared in: NFKC, case-folded, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _password(text: str) -> str:
    # NFC, so the same password typed on two systems is the same; never stripped.
    text = clean(text, PASSWORD_LENGTH, strip=False)
    if len(text) < PASSWORD_MIN:
        raise ValueError(f"must be at least {PASSWORD_MIN} characters")
    return text


def _sign_in_name(text: str) -> str:
    # Only looked up (by its folded key): an account named under the rules of before (NFC, the
    # joiners allowed) must still be able to sign in.
    text = " ".join(clean(text, USER_NAME_LENGTH * 2).split())
    if len(text) < USER_NAME_MIN:
        raise ValueError(f"must be at least {USER_NAME_MIN} characters")
    return text


UserName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=USER_NAME_LENGTH * 4,
        json_schema_extra={"minLength": USER_NAME_MIN, "maxLength": USER_NAME_LENGTH},
    ),
    AfterValidator(_user_name),
]
"""A new account's name (see :func:`_user_name`: NFKC, nothing invisible, single spaces)."""
SignInName = Annotated[
    str, Field(min_length=1, max_length=USER_NAME_LENGTH * 4), AfterValidator(_sign_in_name)
]
"""The name an account signs in with: user text, single spaces (compared folded)."""
Password = Annotated[
    str, Field(min_length=1, max_length=PASSWORD_LENGTH * 4), AfterValidator(_password)
]
"""A password: PASSWORD_MIN to PASSWORD_LENGTH characters, NFC, no control characters."""
