"""The image and compose.yaml built and run for real, with Debian's podman (scripts/image.sh).

There is no Docker daemon and no Docker Hub where the tests run: scripts/image.sh makes the base
images from Debian's archive and the npm registry (stand-ins for node:20-bookworm-slim and
python:3.11-slim-bookworm, and for compose.yaml's postgres, redis and nginx images), builds the
Dockerfile on them and runs compose.yaml with podman-compose. Everything lives in a folder of
this run (podman's storage included) and is removed at the end, unless FACEDOWN_PODMAN_DIR
names a folder to keep (then its images from an earlier run serve again, and the Dockerfile's
build reuses the layers whose inputs did not change). The tests here run in one worker (one
build); the build takes a few minutes, hence the long time-out.

Podman, runc, iptables and mmdebstrap come from Debian's packages (``scripts/test.sh`` installs
them); the test needs root.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from .server.harness import Client, free_port, play_to_end

ROOT = Path(__file__).resolve().parents[1]
IMAGE_SH = ROOT / "scripts" / "image.sh"
IMAGE = "localhost/facedown"
UID = "10001"  # the Dockerfile's user facedown
WITHIN = 120.0  # seconds a container may take to answer on a loaded machine (a bound only)

pytestmark = [pytest.mark.xdist_group("image"), pytest.mark.timeout(1500)]


@dataclass
class Podman:
    """scripts/image.sh with its folder in this test run."""

    folder: Path
    services: subprocess.Popen[bytes] | None = None

    def start_services(self) -> None:
        """``image.sh services`` in the background (while the Dockerfile builds)."""
        with (self.folder / "services.log").open("wb") as log:
            self.services = subprocess.Popen(
                [str(IMAGE_SH), "services"],
                env={**os.environ, "FACEDOWN_PODMAN_DIR": str(self.folder)},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its podman builds stop with it (killpg)
            )

    def wait_services(self, timeout: float = 900) -> None:
        assert self.services is not None
        returncode = self.services.wait(timeout)
        log = (self.folder / "services.log").read_text(errors="replace")
        assert returncode == 0, f"image.sh services:\n{log}"

    def script(self, *args: str, env: dict[str, str] | None = None, timeout: float = 900) -> str:
        done = subprocess.run(
            [str(IMAGE_SH), *args],
            env={**os.environ, "FACEDOWN_PODMAN_DIR": str(self.folder), **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"image.sh {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def podman(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(IMAGE_SH), "podman", *args],
            env={**os.environ, "FACEDOWN_PODMAN_DIR": str(self.folder)},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if check:
            assert done.returncode == 0, f"podman {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done

    def logs(self, container: str) -> str:
        done = self.podman("logs", "--tail", "40", container, check=False)
        return f"--- {container}:\n{done.stdout}{done.stderr}"

    def host_uids(self, container: str) -> list[str]:
        """The real, effective, saved and filesystem uids of the container's main process, as
        this machine's kernel sees them."""
        pid = self.podman("inspect", "--format", "{{.State.Pid}}", container).stdout.strip()
        status = Path(f"/proc/{pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("Uid:"))
        return line.split()[1:]

    def until_healthy(self, container: str) -> None:
        """Runs the container's health check (its image's or compose's) until it passes: podman
        runs them on a systemd timer, and there is no systemd here."""
        deadline = time.monotonic() + WITHIN
        while self.podman("healthcheck", "run", container, check=False).returncode != 0:
            assert time.monotonic() < deadline, f"never healthy\n{self.logs(container)}"
            time.sleep(1)

    def in_container(self, container: str, path: str) -> dict[str, Any]:
        """GET http://127.0.0.1:8000{path} from inside a Facedown container."""
        code = (
            "import urllib.request as r; "
            f"print(r.urlopen('http://127.0.0.1:8000{path}', timeout=5).read().decode())"
        )
        answer: dict[str, Any] = json.loads(
            self.podman("exec", container, "python", "-c", code).stdout
        )
        return answer


@pytest.fixture(scope="module")
def podman(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Podman]:
    assert os.geteuid() == 0, "podman runs containers as root here"
    for tool in ("podman", "runc", "iptables", "mmdebstrap"):
        assert shutil.which(tool), f"{tool} is missing: ./scripts/test.sh installs it"
    kept = os.environ.get("FACEDOWN_PODMAN_DIR")  # a folder to keep (its images serve again)
    where = Podman(Path(kept) if kept else tmp_path_factory.mktemp("podman"))
    try:
        yield where
    finally:
        if where.services is not None and where.services.poll() is None:
            os.killpg(where.services.pid, signal.SIGTERM)
            where.services.wait(60)
        where.podman("rm", "--all", "--force", check=False)
        if not kept:
            where.podman("system", "reset", "--force", check=False)


@pytest.fixture(scope="module")
def image(podman: Podman) -> str:
    """The Dockerfile built on the local base images (made first, from Debian's archive)."""
    started = time.monotonic()
    podman.script("bases")
    made = time.monotonic()
    podman.start_services()  # compose's stand-ins, for the second test, meanwhile
    podman.script("build")
    print(f"base images {made - started:.0f} s, image {time.monotonic() - made:.0f} s")
    return IMAGE


def until_ready(url: str, podman: Podman, containers: list[str]) -> dict[str, Any]:
    """GET {url}/api/ready until it says ready; its answer."""
    deadline = time.monotonic() + WITHIN
    while True:
        try:
            r = httpx.get(f"{url}/api/ready", timeout=5)
            if r.status_code == 200:
                ready: dict[str, Any] = r.json()
                return ready
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("".join(podman.logs(c) for c in containers))
        time.sleep(0.5)


@contextlib.asynccontextmanager
async def clients(ws_url: str, n: int) -> AsyncIterator[list[Client]]:
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(connect(ws_url, max_size=2**22, open_timeout=30))
            for _ in range(n)
        ]
        yield [Client(ws) for ws in sockets]


def new_table(http: httpx.Client) -> tuple[str, list[str]]:
    """A two-seat Kivo table with both seats taken; its code and the two seat tokens."""
    r = http.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": "Ann"})
    r.raise_for_status()
    made = r.json()
    joined = http.post(f"/api/tables/{made['code']}/join", json={"name": "Bob"})
    joined.raise_for_status()
    return made["code"], [made["token"], joined.json()["token"]]


async def play_a_match(ws_url: str, code: str, tokens: list[str], seed: int) -> None:
    """Both players connect, the host starts, and they play the match to its end."""
    async with clients(ws_url, 2) as players:
        for player, token in zip(players, tokens, strict=True):
            await player.hello(code, token)
        for player in players:
            await player.settle()
        await players[0].send({"type": "start"})
        for player in players:
            await player.until("event")
            await player.settle()
        await play_to_end(players, random.Random(seed))
        assert players[1].view["phase"] == "match_over"


def test_the_image_serves_a_match_as_an_unprivileged_user(podman: Podman, image: str) -> None:
    """The image alone, as docs/deploy.md runs it: one process on SQLite in the /data volume,
    the secret from the environment. It answers its health and readiness checks (the
    Dockerfile's HEALTHCHECK too), runs as the user facedown, serves the built web client and
    a whole match, and keeps the table in its volume across a restart."""
    port = free_port()
    name = "facedown-alone"
    # A network of its own (podman picks a bridge and subnet no other is using), not podman's
    # default one, which another run of this test beside this one would share.
    podman.podman("network", "create", name)
    podman.podman(
        "run", "--detach", "--name", name, "--network", name,
        "--publish", f"127.0.0.1:{port}:8000",
        "--env", f"FACEDOWN_SECRET={secrets.token_hex(32)}",
        "--volume", "facedown-data:/data", image,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        assert until_ready(url, podman, [name]) == {"ready": True, "checks": {"store": "ok"}}
        assert httpx.get(f"{url}/api/health", timeout=5).json() == {"ok": True, "tables": 0}
        assert podman.host_uids(name) == [UID] * 4
        assert podman.podman("exec", name, "id", "-u").stdout.strip() == UID
        podman.until_healthy(name)  # the HEALTHCHECK of the Dockerfile (kept: --format=docker)
        page = httpx.get(f"{url}/", timeout=5)  # the web client built in the image's first stage
        assert page.status_code == 200
        assert '<div id="app"></div>' in page.text
        script = re.search(r'src="(/assets/[^"]+[.]js)"', page.text)
        assert script is not None, page.text
        asset = httpx.get(f"{url}{script[1]}", timeout=5)
        assert asset.status_code == 200
        assert "javascript" in asset.headers["content-type"]

        with httpx.Client(base_url=url, timeout=10) as http:
            code, tokens = new_table(http)
        asyncio.run(play_a_match(f"ws://127.0.0.1:{port}/ws", code, tokens, seed=7))

        podman.podman("restart", "--time", "20", name)  # SIGTERM: the graceful stop
        # Asked inside the container: while it restarts its host port is free, and what
        # answers there may be another server (seen once: 404 for this table).
        podman.until_healthy(name)
        table = podman.in_container(name, f"/api/tables/{code}")
        assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"]
    finally:
        podman.podman("rm", "--force", "--time", "5", name, check=False)
        podman.podman("volume", "rm", "--force", "facedown-data", check=False)
        podman.podman("network", "rm", "--force", name, check=False)


def test_compose_runs_three_processes_behind_nginx(podman: Podman, image: str) -> None:
    """compose.yaml as it is, on the local stand-ins for its postgres, redis and nginx images:
    PostgreSQL and Redis pass compose's health checks, the three Facedown processes theirs
    (each ready on the database and Redis), nginx spreads new tables over all three, and a
    match is played through nginx's WebSocket proxy."""
    started = time.monotonic()
    podman.wait_services()  # started with the image's build
    print(f"service images: waited {time.monotonic() - started:.0f} s more")
    port = free_port()
    env = {
        "FACEDOWN_SECRET": secrets.token_hex(32),
        "POSTGRES_PASSWORD": secrets.token_hex(16),
        "FACEDOWN_LISTEN": f"127.0.0.1:{port}",
        "FACEDOWN_PUBLIC_URL": f"http://127.0.0.1:{port}",
    }
    project = "facedown-test"
    names = {s: f"{project}_{s}_1" for s in ("postgres", "redis", "nginx")}
    processes = [f"{project}_facedown{i}_1" for i in (1, 2, 3)]
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    try:
        # podman 4.3 cannot wait for a container to be healthy (podman-compose ignores
        # `condition: service_healthy` there): the databases first, until compose's checks pass.
        podman.script("compose", "-p", project, "up", "-d", "postgres", "redis", env=env)
        podman.until_healthy(names["postgres"])
        podman.until_healthy(names["redis"])
        podman.script("compose", "-p", project, "up", "-d", env=env)
        # Every process ready before the first request through nginx: nginx skips a process
        # that refused a connection for its fail_timeout (5 s), and a table created then
        # finds no live process if the others were still starting (seen once: 502).
        for process in processes:
            podman.until_healthy(process)
            assert podman.host_uids(process) == [UID] * 4
        ready = until_ready(url, podman, [*processes, names["nginx"]])
        assert ready == {"ready": True, "checks": {"store": "ok", "redis": "ok"}}
        print(f"compose up {time.monotonic() - started:.0f} s")

        with httpx.Client(base_url=url, timeout=10) as http:
            tables = [new_table(http) for _ in range(6)]
        held = [podman.in_container(p, "/api/health")["tables"] for p in processes]
        assert all(n >= 1 for n in held), held  # nginx sent some to each process
        code, tokens = tables[0]
        asyncio.run(play_a_match(f"ws://127.0.0.1:{port}/ws", code, tokens, seed=11))
        table = httpx.get(f"{url}/api/tables/{code}", timeout=5).json()
        assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"]
    except BaseException:
        print("".join(podman.logs(c) for c in [*names.values(), *processes]))
        raise
    finally:
        started = time.monotonic()
        with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
            podman.script("compose", "-p", project, "down", "-v", env=env, timeout=180)
        print(f"compose down {time.monotonic() - started:.0f} s")
