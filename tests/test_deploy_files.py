"""What can be checked of the container files without a Docker daemon (there is none where the
tests run): the compose file's nginx site passes ``nginx -t`` in Debian's nginx, the image runs
as an unprivileged user, and compose.yaml wires three processes to one PostgreSQL and one Redis
with one shared secret."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def test_the_compose_nginx_site_passes_nginx_t(tmp_path: Path) -> None:
    assert os.access(NGINX, os.X_OK), "nginx is missing: ./scripts/test.sh installs nginx-light"
    site = (ROOT / "deploy" / "compose" / "nginx.conf").read_text()
    hosts = re.findall(r"server (facedown\d):8000", site)
    assert hosts == ["facedown1", "facedown2", "facedown3"]
    for host in hosts:  # compose's names resolve only inside its network
        site = site.replace(f"{host}:8000", "127.0.0.1:8000")
    site = site.replace("listen 80;", "listen 127.0.0.1:8081;")
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; include {tmp_path}/site.conf; }}\n"
    )
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def test_the_image_runs_facedown_as_an_unprivileged_user() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    users = re.findall(r"^USER (\S+)", dockerfile, re.MULTILINE)
    assert users == ["facedown"]  # the last stage's only USER: never root
    assert "--require-hashes -r requirements/run.txt" in dockerfile
    assert '"facedown", "serve"' in dockerfile
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "data", "web/node_modules"} <= set(ignored)


@pytest.mark.parametrize("service", ["facedown1", "facedown2", "facedown3"])
def test_compose_runs_three_processes_on_one_database_and_redis(service: str) -> None:
    compose = (ROOT / "compose.yaml").read_text()
    assert re.search(rf"^  {service}:\n    <<: \*facedown$", compose, re.MULTILINE)
    for needed in (
        "FACEDOWN_SECRET: ${FACEDOWN_SECRET:?",
        "FACEDOWN_DATABASE_URL: postgresql://",
        "FACEDOWN_REDIS_URL: redis://redis:6379/0",
        "image: ${POSTGRES_IMAGE:-postgres:15}",
        "image: ${REDIS_IMAGE:-redis:7}",
        "image: ${NGINX_IMAGE:-nginx:1.22}",
        "./deploy/compose/nginx.conf:/etc/nginx/conf.d/default.conf:ro",
    ):
        assert needed in compose
