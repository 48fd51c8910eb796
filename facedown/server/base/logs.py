"""The server's logs: plain lines for a person at a terminal, or one JSON object per line for a
log collector (``facedown serve --log-format json``).

Both go to standard error and cover Facedown's own loggers and uvicorn's.  A JSON line has
``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``; ``exception`` when there was
one; and any extra fields the call passed (``log.warning("...", extra={"table": code})``).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any, Literal

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")

# What every LogRecord has: anything else on a record came from ``extra=``.
# uvicorn adds ``color_message`` (the message with terminal colours) to some of its records.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "taskName",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        # Free-form: the fixed fields, then whatever extra fields the record carries.
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_") and key not in line:
                line[key] = value
        return json.dumps(line, default=str, ensure_ascii=False)


def log_config(fmt: LogFormat, level: str = "info") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for Facedown and uvicorn (uvicorn's ``log_config``):
    the logging module's own free-form schema."""
    if fmt == "json":
        formatter: dict[str, Any] = {"()": f"{__name__}.JsonFormatter"}
    else:
        formatter = {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    handler = {"class": "logging.StreamHandler", "formatter": "main", "stream": "ext://sys.stderr"}
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "handlers": {"main": handler},
        "root": {"handlers": ["main"], "level": "WARNING"},
        "loggers": {
            "facedown": {"level": upper},
            "uvicorn": {"level": upper},
            "uvicorn.error": {"level": upper},
            # One line per HTTP request is left to the proxy in front (docs/server.md).
            "uvicorn.access": {"level": "WARNING"},
        },
    }
