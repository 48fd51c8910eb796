"""Server settings: where data lives, which database, the secret key, and the limits."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ...store.database import data_folder_url
from ..accounts.auth import DEFAULT_LIFETIME
from ..accounts.mail import MailSettings, Security
from ..accounts.passwords import PasswordCost
from ..accounts.postbox import MailLimits
from ..base.addresses import LOOPBACK, ClientLimits
from ..cluster.ownership import Rebalance
from ..modes.matchmaking import RankedConfig
from ..play.context import TableConfig


@dataclass(frozen=True)
class ServerSettings:
    data_dir: Path = Path("data")
    database_url: str | None = None  # default: SQLite in data_dir
    secret: str | None = None  # default: FACEDOWN_SECRET, else a key kept in data_dir
    public_url: str = ""  # base of the links handed out (empty: relative links)
    table: TableConfig = field(default_factory=TableConfig)
    send_queue: int = 256  # messages waiting for a client; a client further behind is dropped
    rate: float = 20.0  # messages per second a connection may send on average ...
    burst: float = 40.0  # ... and at once
    strikes: int = 20  # rate-limited messages before the connection is closed
    hello_timeout: float = 15.0
    clients: ClientLimits = field(default_factory=ClientLimits)  # per address, per table
    # Count clients by the last X-Forwarded-For address (only behind a proxy that sets it), and
    # believe X-Forwarded-For and X-Forwarded-Proto only on connections from trusted_proxies
    # (addresses or networks; by default a proxy on this machine).
    behind_proxy: bool = False
    trusted_proxies: tuple[str, ...] = LOOPBACK
    max_body: int = 64 * 1024  # bytes of an HTTP request body (a table's options fit easily)
    token_lifetime: float = DEFAULT_LIFETIME  # seconds a session token is valid (30 days)
    # Seconds between checks that the account sessions behind the open connections' seats
    # still live (server/edge/seatsessions.py): a session ended by another process of a
    # cluster, or run out, closes them within this long (the process that ended one: at once).
    session_check: float = 5.0
    # Accounts (server/accounts/accounts.py): how long a sign-in lasts, and the argon2id cost of a
    # password hash (a hash made with other parameters is redone at the next sign-in).
    account_lifetime: float = DEFAULT_LIFETIME
    password_cost: PasswordCost = field(default_factory=PasswordCost)
    ranked: RankedConfig = field(default_factory=RankedConfig)  # queues, matchmaking (ranked.py)
    # The open network (server/edge/serving.py): every request must arrive whole in request_timeout
    # seconds; connections beyond max_connections (None: 1000, or fewer under a lower open-file
    # limit) are closed at once; an idle kept-alive connection closes after keep_alive_timeout;
    # request line and headers are at most max_header_bytes; a flood of one kind of error is
    # logged once per flood_log_interval seconds.  One client address may hold at most
    # clients.open_connections of them (HTTP and WebSocket; a trusted proxy is not counted).
    request_timeout: float = 10.0
    max_connections: int | None = None
    keep_alive_timeout: int = 5
    max_header_bytes: int = 16 * 1024
    flood_log_interval: float = 60.0
    metrics: bool = False  # serve Prometheus metrics at /metrics (facedown serve --metrics)
    api_docs: bool = False  # serve /openapi.json and a plain /docs page (facedown serve --api-docs)
    # Tables with a chosen seed or a stacked deal (server/base/testhooks.py): for tests, never in
    # play.
    test_hooks: bool = False
    # With test hooks only: FACEDOWN_CRASH_AT, a window to die in by SIGKILL (crashhook.py).
    crash_at: str | None = None
    # Turn e-mails (server/accounts/mail.py): sent through this SMTP server when a host is given.
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_sender: str = "facedown@localhost"
    smtp_security: Security = "auto"  # STARTTLS when offered; "starttls" required; "tls" (465)
    smtp_user: str | None = None  # log in as this account (its password: FACEDOWN_SMTP_PASSWORD)
    smtp_password: str | None = field(default=None, repr=False)
    # Hourly caps on mail (per account, per address, confirmations per address) and how long a
    # confirmation link works (server/accounts/postbox.py).
    mail_limits: MailLimits = field(default_factory=MailLimits)

    def mail(self) -> MailSettings | None:
        """Where turn e-mails go out, or None when the server sends none."""
        if not self.smtp_host:
            return None
        return MailSettings(
            self.smtp_host,
            self.smtp_port,
            self.smtp_sender,
            self.smtp_security,
            self.smtp_user,
            self.smtp_password,
        )

    # A cluster (docs/server.md): with a Redis URL (and a PostgreSQL database shared by every
    # process) this process joins the others; each table is owned by one of them by a lease of
    # lease_seconds, taken over that long after its owner died, and so is each once-per-cluster
    # job (the ranked matchmaker).  A process owning clearly more tables than its share hands
    # a few over now and then (rebalance: which tables, how often, past what margin).
    redis_url: str | None = None
    lease_seconds: float = 5.0
    rebalance: Rebalance = field(default_factory=Rebalance)
    # Worker processes in which long-thinking bots (the expert) choose, off this process's GIL
    # (server/play/thinking.py); 0: in a thread, as the other bots.
    bot_processes: int = 1

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return data_folder_url(self.data_dir)

    def resolved_secret(self) -> str:
        if self.secret:
            return self.secret
        if os.environ.get("FACEDOWN_SECRET"):
            return os.environ["FACEDOWN_SECRET"]
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "secret.key"
        if not path.exists():
            path.write_text(secrets.token_hex(32), encoding="utf-8")
            path.chmod(0o600)
        return path.read_text(encoding="utf-8").strip()
