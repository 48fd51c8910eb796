"""Debian's nginx for a test, running the deployment guide's site file
(``deploy/nginx/facedown.conf``) in front of servers on loopback ports: TLS with a certificate
made for the test, the guide's plain-HTTP server beside it.

nginx comes from Debian's packages (``scripts/test.sh`` installs ``nginx-light``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import ssl
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .harness import free_ports, wait_http

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "facedown.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
HOST = "cards.example.org"


@dataclass
class Nginx:
    tls_port: int
    plain_port: int
    tls: ssl.SSLContext  # trusts the test's certificate (made for HOST)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.tls_port}"


def site_file(upstreams: Sequence[int], tls_port: int, plain_port: int, folder: Path) -> str:
    """The guide's site file with every upstream port, this test's listen ports and its
    certificate (each replaced text must be there: a change to the file that the tests no
    longer cover fails here)."""
    text = SITE.read_text()
    swaps = {
        "server 127.0.0.1:8000;": "\n    ".join(f"server 127.0.0.1:{p};" for p in upstreams),
        "listen 443 ssl http2;": f"listen 127.0.0.1:{tls_port} ssl http2;",
        "listen 80;": f"listen 127.0.0.1:{plain_port};",
        f"/etc/letsencrypt/live/{HOST}/fullchain.pem": str(folder / "cert.pem"),
        f"/etc/letsencrypt/live/{HOST}/privkey.pem": str(folder / "key.pem"),
    }
    for old, new in swaps.items():
        assert old in text, f"{SITE} no longer has {old!r}"
        text = text.replace(old, new)
    return text


def _certificate(folder: Path) -> None:
    keys = ["-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")]
    name = ["-subj", f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST}"]
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", *keys, *name],
        check=True,
        capture_output=True,
    )


def _main_config(folder: Path) -> str:
    temp = {k: folder / f"nginx-{k}" for k in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    return f"""
user root;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log {folder}/nginx-access.log;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {folder}/site.conf;
}}
"""


@contextlib.contextmanager
def running_nginx(folder: Path, upstreams: Sequence[int]) -> Iterator[Nginx]:
    """nginx with its files in ``folder``, in front of the servers on ``upstreams``, until the
    block ends; it has answered through to them when the block starts.  Start it once they
    listen: its own two ports are picked free then, so they are none of theirs."""
    assert os.access(NGINX, os.X_OK), "nginx is missing: ./scripts/test.sh installs nginx-light"
    _certificate(folder)
    tls_port, plain_port = free_ports(2)
    (folder / "site.conf").write_text(site_file(upstreams, tls_port, plain_port, folder))
    (folder / "nginx.conf").write_text(_main_config(folder))
    log = folder / "nginx-error.log"
    log.touch()
    proc = subprocess.Popen(
        [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(f"https://127.0.0.1:{tls_port}/api/health", proc, log, verify=False)
        tls = ssl.create_default_context(cafile=str(folder / "cert.pem"))
        yield Nginx(tls_port, plain_port, tls)
    finally:
        proc.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
