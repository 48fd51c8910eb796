"""Every error code the server can send is listed in facedown/server/base/errors.py (and from there
generated into the web client's wire.ts, whose test wants a text for each in every language)."""

from __future__ import annotations

import ast
from pathlib import Path

from facedown.engine import errors as engine_errors
from facedown.server.base.errors import ERROR_CODES, ILLEGAL, SERVER_CODES

SERVER = Path(__file__).resolve().parents[3] / "facedown" / "server"
RAISERS = {"TableError", "ProtocolError", "RankedError", "error_message"}
# The HTTP API's refusals made by api/deps.py's helper and the accounts' error, which take the
# status first: their code is the second argument.
STATUS_FIRST = {"refused", "AccountError"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def sent_codes() -> dict[str, str]:
    """code -> where: the literal codes given to TableError, ProtocolError and error_message,
    and to the HTTP refusals' helpers (``refused``), and the "code" of every dict literal (the
    HTTP answers' details), in facedown/server."""
    found: dict[str, str] = {}
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and node.args:
                at = 1 if _name(node.func) in STATUS_FIRST else 0
                named = _name(node.func) in RAISERS | STATUS_FIRST
                code = node.args[at] if named and len(node.args) > at else None
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    found.setdefault(code.value, where)
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == "code"
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, str)
                    ):
                        found.setdefault(value.value, where)
    return found


def test_every_code_the_server_sends_is_listed() -> None:
    sent = sent_codes()
    assert len(sent) > 30  # the scan finds them (it would pass on finding none)
    unlisted = {code: where for code, where in sent.items() if code not in SERVER_CODES}
    assert unlisted == {}, (
        "add these to facedown/server/base/errors.py (and the web client's texts)"
    )
    assert set(SERVER_CODES) - set(sent) == set(), "listed, but never sent"


def test_every_kind_of_illegal_action_has_its_code() -> None:
    kinds: list[type[engine_errors.IllegalAction]] = [engine_errors.IllegalAction]
    for kind in kinds:
        kinds.extend(kind.__subclasses__())
    assert len(kinds) >= 8
    assert {f"{ILLEGAL}{kind.code}" for kind in kinds} == {
        code for code in ERROR_CODES if code.startswith(ILLEGAL)
    }
    assert all(ERROR_CODES.values())  # each says when it is sent
