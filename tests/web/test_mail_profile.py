"""The e-mail address on the profile page, in a real browser set to German, against a real
server that mails through a real local SMTP server (aiosmtpd): the address is saved
unconfirmed, a German confirmation mail arrives, its link's page confirms on a button press
(opening it confirms nothing), and the profile then shows the address as confirmed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, expect

from facedown.server.accounts.passwords import PasswordCost
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.accounts.test_mail_flow import Inbox, smtp_server, text_of
from ..server.harness import RunningServer, run_server
from .test_profile import PASSWORD, WAIT, fill_account

PUBLIC = "http://facedown.test"


@pytest.fixture
def mailing(tmp_path: Path) -> Iterator[tuple[RunningServer, Inbox]]:
    with smtp_server() as (inbox, port):
        settings = ServerSettings(
            data_dir=tmp_path,
            secret="mail-profile-test-secret",
            table=TableConfig(bot_delay=0.25, reveal_seconds=0.01),
            password_cost=PasswordCost(time_cost=1, memory_kib=8 * 1024, parallelism=1),
            smtp_host="127.0.0.1",
            smtp_port=port,
            smtp_sender="facedown@example.test",
            public_url=PUBLIC,
        )
        with run_server(settings) as running:
            yield running, inbox


def test_a_german_player_confirms_an_address_from_the_profile(
    browser: Browser, mailing: tuple[RunningServer, Inbox]
) -> None:
    server, inbox = mailing
    context = browser.new_context(viewport={"width": 1024, "height": 900}, locale="de-DE")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security" in m.text else None)
    page.set_default_timeout(WAIT)
    page.goto(server.url + "/profile")
    page.get_by_test_id("account-switch").click()
    fill_account(page, "Jana", PASSWORD)
    expect(page.get_by_test_id("account-title")).to_have_text("Jana", timeout=WAIT)

    page.get_by_test_id("account-email").fill("jana@example.test")
    page.get_by_test_id("account-email-save").click()
    expect(page.get_by_role("status")).to_contain_text("Wir haben einen Link", timeout=WAIT)
    state = page.get_by_test_id("account-email-state")
    expect(state).to_contain_text("Noch nicht bestätigt", timeout=WAIT)

    [mail] = inbox.messages
    assert mail["To"] == "jana@example.test"
    assert mail["Subject"] == "Facedown: Bitte bestätige deine E-Mail-Adresse"
    url = next(w for w in text_of(mail).split() if w.startswith(f"{PUBLIC}/api/mail/confirm?"))
    parts = urlsplit(url)
    page.goto(f"{server.url}{parts.path}?{parts.query}")
    expect(page.locator("h1")).to_have_text("E-Mail-Adresse bestätigen", timeout=WAIT)
    page.reload()  # opening the page again confirms nothing, and the link still works
    page.get_by_role("button", name="Bestätigen").click()
    expect(page.locator("p")).to_contain_text("Bestätigt", timeout=WAIT)

    page.goto(server.url + "/profile")
    expect(state).to_contain_text("Bestätigt", timeout=WAIT)
    assert errors == []
    context.close()
