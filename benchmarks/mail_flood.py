"""Mail flood: how much mail an attacker gets out of a real server, as issue 32 §3 measured it
(126 mails in 30 s to one unconfirmed address before the caps).

Starts ``facedown serve`` as a separate process (SQLite in a temporary folder) that mails
through an SMTP server (aiosmtpd) running in this process, which counts what it receives.  For
``--seconds`` seconds one account asks, as fast as the server answers, for the victim's address
to be its e-mail address (each request would send a confirmation mail); then as many accounts
as ``--accounts`` each try the same address once, and the first account tries ``--addresses``
other addresses.  Printed: the requests made, how many the server took (200) and refused (429
``mail_limit``), and the mails the SMTP server received, to the victim and in all.

Run from the checkout: ``.venv/bin/python -m benchmarks.mail_flood [--seconds 30]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from aiosmtpd.controller import Controller

VICTIM = "victim@example.test"
PASSWORD = "a long passphrase"  # noqa: S105 - a throwaway account's


class Counting:
    """An aiosmtpd handler that counts the recipients of what it receives."""

    def __init__(self) -> None:
        self.to: Counter[str] = Counter()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        for rcpt in envelope.rcpt_tos:
            self.to[rcpt.lower()] += 1
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _server(data: Path, smtp_port: int) -> Iterator[str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "facedown", "serve", "--data", str(data), "--port", str(port)]
    command += ["--smtp-host", "127.0.0.1", "--smtp-port", str(smtp_port), "--public-url", url]
    command += ["--behind-proxy"]  # each account signs up from an address of its own
    process = subprocess.Popen(command, env={**os.environ, "FACEDOWN_SECRET": "mail-flood"})
    try:
        for _ in range(600):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/api/presets", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        else:
            raise RuntimeError("the server did not start")
        yield url
    finally:
        process.terminate()
        process.wait(30)


@contextlib.contextmanager
def _account(url: str, name: str, address: str) -> Iterator[httpx.Client]:
    """A browser of a new account, signed in."""
    with httpx.Client(base_url=url, timeout=30, headers={"x-forwarded-for": address}) as http:
        r = http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
        r.raise_for_status()
        yield http


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--addresses", type=int, default=40)
    args = parser.parse_args()
    counting = Counting()
    smtp_port = _free_port()
    controller = Controller(counting, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    answers: Counter[int] = Counter()
    try:
        with (
            tempfile.TemporaryDirectory() as data,
            _server(Path(data), smtp_port) as url,
            _account(url, "Mallory", "10.9.0.1") as mallory,
        ):
            started = time.perf_counter()
            while time.perf_counter() - started < args.seconds:
                r = mallory.put("/api/account/email", json={"email": VICTIM})
                answers[r.status_code] += 1
            flood = sum(answers.values())
            for n in range(args.accounts):
                with _account(url, f"Sock{n}", f"10.9.1.{n}") as sock:
                    r = sock.put("/api/account/email", json={"email": VICTIM})
                    answers[r.status_code] += 1
            for n in range(args.addresses):
                r = mallory.put("/api/account/email", json={"email": f"x{n}@example.test"})
                answers[r.status_code] += 1
    finally:
        controller.stop()
    print(f"one account, {args.seconds:.0f} s: {flood} requests for {VICTIM}")
    print(f"then {args.accounts} other accounts once each, and {args.addresses} other addresses")
    print(f"answers: {dict(sorted(answers.items()))}")
    print(f"mails received: {counting.to[VICTIM]} to {VICTIM}, {sum(counting.to.values())} in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
