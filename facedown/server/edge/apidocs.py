"""``/docs`` with ``--api-docs``: the HTTP API as one plain HTML page, made on this server.

FastAPI's own pages (Swagger UI, ReDoc) load their scripts from a CDN and run inline code: they
are blank on a machine without internet access and need a weaker Content-Security-Policy.  This
page is built from the same OpenAPI document (``/openapi.json``, also ``docs/openapi.json``)
with no script and no style: every route with its method, summary and answers, and a link to
the document itself for any OpenAPI viewer.
"""

from __future__ import annotations

from html import escape
from typing import Any

METHODS = ("get", "post", "put", "patch", "delete")
# The OpenAPI document is FastAPI's (app.openapi()): JSON read here as it comes, free-form.


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    summary = escape(str(op.get("summary") or ""))
    described = escape(str(op.get("description") or "")).strip()
    answers = ", ".join(
        f"{escape(str(status))} {escape(str(answer.get('description', '')))}"
        for status, answer in sorted(op.get("responses", {}).items())
    )
    parts = [f"<h2><code>{method.upper()} {escape(path)}</code></h2>"]
    if summary:
        parts.append(f"<p>{summary}</p>")
    if described:
        parts.append(f"<p>{described}</p>")
    if answers:
        parts.append(f"<p>Answers: {answers}</p>")
    return "\n".join(parts)


def api_docs_page(openapi: dict[str, Any]) -> str:
    """The page for the OpenAPI document ``openapi`` (self-contained HTML)."""
    info = openapi.get("info", {})
    title = escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    sections = [
        _operation(method, path, item[method])
        for path, item in sorted(openapi.get("paths", {}).items())
        for method in METHODS
        if method in item
    ]
    body = "\n".join(sections)
    return (
        '<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n'
        f"<title>{title}: HTTP API</title>\n<h1>{title}: HTTP API</h1>\n"
        '<p>The whole description, schemas included: <a href="/openapi.json">/openapi.json</a> '
        "(OpenAPI 3; open it in any OpenAPI viewer). The WebSocket protocol is described in "
        "docs/protocol.md.</p>\n"
        f"{body}\n</html>\n"
    )
