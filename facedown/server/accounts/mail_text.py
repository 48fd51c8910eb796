"""The words of the e-mails and of the two pages their links open, in English and German.

Every text a player chose (an account name, a seat name) goes in through :func:`player_text`:
characters that are not printable escaped, cut to a few dozen characters, and quoted, so that
it reads as a name and never as the server's own words.  The pages escape everything for HTML.
"""

from __future__ import annotations

import html
import time
from typing import Final

from ..base.text import escaped

LANGUAGES: Final = ("en", "de")
DEFAULT_LANGUAGE: Final = "en"
NAME_LENGTH: Final = 32  # characters of a player's own text in a mail
GAME_NAMES: Final = {"boyo": "Boyo", "cabo": "Cabo", "kivo": "Kivo", "kaboom": "Kaboom"}

_TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "confirm.subject": "Facedown: confirm your e-mail address",
        "confirm.body": (
            "Hello,\n\n"
            "the Facedown account {name} asks for its turn e-mails to be sent to this address.\n"
            "To confirm that this address is yours, open this link within {within}:\n\n"
            "{link}\n\n"
            "Until you do, this address gets no other mail from us.  If you did not ask for\n"
            "this, ignore this mail, or remove the address from that account here:\n\n"
            "{unsubscribe}\n"
        ),
        "within.one": "an hour",
        "within.many": "{hours} hours",
        "turn.subject": "Facedown: your move at table {code} ({game})",
        "turn.hello": "Hello {name},",
        "turn.body": "it is your move at the turn-based {game} table {code}.",
        "turn.deadline": "Move by {when}; after that the server plays a safe move for you.",
        "turn.why": "You get this because you confirmed this address for turn e-mails.",
        "turn.stop": "No more e-mails to this address: {unsubscribe}",
        "page.confirm.title": "Confirm your e-mail address",
        "page.confirm.ask": "Send turn e-mails of your Facedown account to this address?",
        "page.confirm.button": "Confirm",
        "page.confirm.done": "Confirmed: your turn e-mails go to this address from now on.",
        "page.confirm.expired": (
            "This link has expired. Enter the address in your profile again for a new one."
        ),
        "page.confirm.unknown": "This link is not valid, or it was used already.",
        "page.stop.title": "No more e-mails",
        "page.stop.ask": "Send no more e-mails from Facedown to this address?",
        "page.stop.button": "Stop the e-mails",
        "page.stop.done": "Done: this address is removed from the account and gets no more mail.",
        "page.stop.unknown": (
            "This link is not valid (any more): the address may be removed already."
        ),
    },
    "de": {
        "confirm.subject": "Facedown: Bitte bestätige deine E-Mail-Adresse",
        "confirm.body": (
            "Hallo,\n\n"
            "das Facedown-Konto {name} möchte seine Zug-Benachrichtigungen an diese Adresse\n"
            "geschickt bekommen.  Wenn das deine Adresse ist, bestätige sie bitte {within}\n"
            "über diesen Link:\n\n"
            "{link}\n\n"
            "Bis dahin schicken wir dieser Adresse nichts anderes.  Falls du das nicht warst,\n"
            "ignoriere diese E-Mail einfach, oder entferne die Adresse hier aus dem Konto:\n\n"
            "{unsubscribe}\n"
        ),
        "within.one": "innerhalb einer Stunde",
        "within.many": "innerhalb von {hours} Stunden",
        "turn.subject": "Facedown: Du bist an Tisch {code} am Zug ({game})",
        "turn.hello": "Hallo {name},",
        "turn.body": "in deiner Fernpartie {game} an Tisch {code} bist du am Zug.",
        "turn.deadline": (
            "Du hast Zeit bis {when}; danach macht der Server einen sicheren Zug für dich."
        ),
        "turn.why": (
            "Du bekommst diese E-Mail, weil du diese Adresse für Zug-Benachrichtigungen "
            "bestätigt hast."
        ),
        "turn.stop": "Keine E-Mails mehr an diese Adresse: {unsubscribe}",
        "page.confirm.title": "E-Mail-Adresse bestätigen",
        "page.confirm.ask": "Sollen die Zug-Benachrichtigungen deines Facedown-Kontos an diese "
        "Adresse gehen?",
        "page.confirm.button": "Bestätigen",
        "page.confirm.done": "Bestätigt: Deine Zug-Benachrichtigungen gehen ab jetzt an diese "
        "Adresse.",
        "page.confirm.expired": (
            "Dieser Link ist abgelaufen. Gib die Adresse in deinem Profil noch einmal ein, dann "
            "bekommst du einen neuen."
        ),
        "page.confirm.unknown": "Dieser Link ist ungültig oder wurde schon benutzt.",
        "page.stop.title": "Keine E-Mails mehr",
        "page.stop.ask": "Soll Facedown keine E-Mails mehr an diese Adresse schicken?",
        "page.stop.button": "E-Mails abbestellen",
        "page.stop.done": "Erledigt: Die Adresse ist aus dem Konto entfernt und bekommt keine "
        "E-Mails mehr.",
        "page.stop.unknown": "Dieser Link gilt nicht (mehr): Vielleicht ist die Adresse schon "
        "entfernt.",
    },
}


def language(code: str | None) -> str:
    """``code`` when it is a language the mails are written in, else English."""
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def accepted(header: str) -> str:
    """The first language of an ``Accept-Language`` header that the pages are written in (the
    header lists them most wanted first, as browsers send it); else English."""
    for part in header.split(",")[:16]:
        tag = part.split(";")[0].strip().split("-")[0].lower()
        if tag in LANGUAGES:
            return tag
    return DEFAULT_LANGUAGE


def text(lang: str, key: str, **values: object) -> str:
    return _TEXTS[language(lang)][key].format(**values)


def player_text(value: str, limit: int = NAME_LENGTH) -> str:
    """A player's own text as a mail shows it: escaped, at most ``limit`` characters, quoted."""
    return f"\u201c{escaped(value.strip(), limit)}\u201d"


def confirmation(lang: str, name: str, link: str, unsubscribe: str, hours: int) -> tuple[str, str]:
    """The subject and body of the mail that asks to confirm an address."""
    body = text(
        lang,
        "confirm.body",
        name=player_text(name),
        within=text(lang, "within.one" if hours == 1 else "within.many", hours=hours),
        link=link,
        unsubscribe=unsubscribe,
    )
    return text(lang, "confirm.subject"), body


def your_turn(
    lang: str,
    name: str,
    game: str,
    code: str,
    link: str,
    deadline: float | None,
    unsubscribe: str,
) -> tuple[str, str]:
    """The subject and body of a turn e-mail (``game`` a preset's id)."""
    game = GAME_NAMES.get(game, escaped(game, NAME_LENGTH))
    lines = [
        text(lang, "turn.hello", name=player_text(name)),
        "",
        text(lang, "turn.body", game=game, code=code),
    ]
    if deadline is not None:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(deadline))
        lines.append(text(lang, "turn.deadline", when=when))
    lines += [
        "",
        link,
        "",
        text(lang, "turn.why"),
        text(lang, "turn.stop", unsubscribe=unsubscribe),
    ]
    return text(lang, "turn.subject", code=code, game=game), "\n".join(lines)


def page(lang: str, title_key: str, message_key: str, button_key: str | None = None) -> str:
    """A small page for a mail's link: a message, and (to act) a button that posts back to the
    same address (a mail scanner that opens every link changes nothing)."""
    lang = language(lang)
    title = html.escape(text(lang, title_key))
    parts = [
        "<!doctype html>",
        f'<html lang="{lang}">',
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>",
        f"<h1>{title}</h1>",
        f"<p>{html.escape(text(lang, message_key))}</p>",
    ]
    if button_key is not None:
        parts.append(
            f'<form method="post"><button type="submit">'
            f"{html.escape(text(lang, button_key))}</button></form>"
        )
    return "\n".join(parts) + "\n"
