"""The command line: every bad input gets one line and exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from facedown.cli import main
from facedown.server.cluster.ownership import Rebalance
from facedown.server.play.context import TableConfig

from .server.harness import free_port

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run ``facedown ARGS`` in this process: its exit status and what it wrote to stderr."""
    try:
        code = main(args)
    except SystemExit as e:  # argparse refuses malformed arguments this way
        code = int(e.code or 0)
    return code, capsys.readouterr().err


def test_help_works() -> None:
    # The sim's help text has a percent sign: argparse formats help strings with %.
    done = subprocess.run(
        [sys.executable, "-m", "facedown", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    for command in ("scenario", "play", "serve", "sim", "docs"):
        assert command in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "facedown", "sim", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_play_help_lists_every_bot_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    for level in ("random", "easy", "medium", "hard", "expert"):
        assert level in out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--players", "0"], "0 is not from 2 to 8"),
        (["play", "--players", "1"], "1 is not from 2 to 8"),
        (["play", "--players", "9"], "9 is not from 2 to 8"),
        (["play", "--players", "two"], "'two' is not a whole number"),
        (["play", "--bots", "genius"], "invalid choice: 'genius'"),
        (["sim", "--jobs", "0"], "0 is not at least 1"),
        (["sim", "--games", "0"], "0 is not at least 1"),
        (["sim", "--players", "9"], "9 is not from 2 to 8"),
        (["sim", "--out", "{missing}/x.csv", "--games", "1"], "there is no folder"),
        (["sim", "--out", "results.txt", "--games", "1"], "as .csv or .json"),
        (["sim", "--bots", "genius"], "genius"),
        (["sim", "--options", "{not json"], "--options is not JSON"),
        (["serve", "--data", "/proc/nope"], "cannot use /proc/nope as the data folder"),
        (["serve", "--database-url", "nonsense://x"], "cannot use the database URL"),
        (["serve", "--bot-delay", "-1"], "-1 is not from 0 to 3600 seconds"),
        (["serve", "--bot-delay", "soon"], "'soon' is not a number of seconds"),
        (["serve", "--rebalance", "busy"], "invalid choice: 'busy'"),
        (["serve", "--rebalance-every", "-5"], "-5 is not from 0 to 3600 seconds"),
        (["serve", "--rebalance-margin", "0"], "0 is not at least 1"),
        (["scoreboard", "--players", "Ana"], "--players names 2 to 8 players, not 1"),
        (["scoreboard", "--players", "Ana,ana"], "each player needs a name of their own"),
        (["scoreboard", "--players", "Ana,"], "--players: a name must not be blank"),
        (["scoreboard", "--players", "Ana,B\u202eo"], "control and format characters"),
        (["scoreboard", "--players", "Ana,Bo", "--preset", "poker"], "invalid choice: 'poker'"),
        (["scoreboard", "--players", "Ana,Bo", "--rounds", "0"], "0 is not from 1 to 100"),
        (["scoreboard", "--players", "Ana,Bo", "--placement", "5,x"], "not whole numbers"),
        (["scoreboard", "--players", "Ana,Bo", "--placement", "5,3,1"], "points for each of the 2"),
        (["scoreboard", "--players", "Ana,Bo", "--csv", "{missing}/x.csv"], "no folder"),
        (["scoreboard"], "give --players"),
        (["scoreboard", "--resume", "--save", "{missing}/e.json"], "no evening is saved"),
        (["scoreboard", "--players", "Ana,Bo", "--save", "{missing}/e.json"], "no folder"),
        (["serve", "--port", "99999"], "99999 is not a port: ports are 1 to 65535"),
        (["serve", "--port", "-1"], "-1 is not a port"),
        (["serve", "--port", "0"], "0 is not a port"),
        (["serve", "--port", "eighty"], "'eighty' is not a port number"),
        (["serve", "--smtp-port", "70000"], "70000 is not a port"),
        (["serve", "--host", "999.1.1.1"], "no such host"),
        (["serve", "--host", "no-such-host.invalid"], "no such host"),
        (["serve", "--host", "http://example.org"], "is not an address or a host name"),
        (["serve", "--host", "192.0.2.1"], "cannot listen on 192.0.2.1 port"),
        (["serve", "--data", "{missing}/data"], "there is no folder"),
        (["serve", "--database-url", "sqlite:///{missing}/x.db"], "there is no folder"),
        (["backup", "{missing}/copy.db"], "there is no folder"),
        # The data folder is not made on the way (nor its parents): the database must be there.
        (["backup", "copy.db", "--data", "{missing}/deeper"], "there is no database"),
        (["serve", "--bot-processes", "-1"], "-1 is not from 0 to 64"),
        (["serve", "--request-timeout", "-2"], "-2 is not above 0"),
        (["serve", "--max-connections", "0"], "0 is not at least 1"),
        (["serve", "--public-url", "notaurl"], "'notaurl' is not a web address"),
        (["serve", "--lease-seconds", "0"], "0 is not from 1 to 300 seconds"),
        (["train", "--hours", "-1"], "-1 is not above 0"),
        (["train", "--steps", "0"], "0 is not at least 1"),
        (["train", "--jobs", "0"], "0 is not from 1 to 64"),
        (["train", "--eval-tables", "foo"], "'foo' is not PRESET:SEATS"),
        (["train", "--eval-tables", "kivo:9"], "9 is not from 2 to 8"),
        (["docs", "--root", "{missing}"], "is not a checkout of Facedown"),
        (["db", "upgrade", "--url", "nonsense://x"], "unsupported database 'nonsense'"),
        (["db", "upgrade", "--url", "sqlite:///{missing}/x.db"], "there is no folder"),
        (["db", "upgrade", "--url", "postgresql://nobody@127.0.0.1:1/x"], "unreachable"),
        (["bogus"], "invalid choice: 'bogus'"),
        (["scoreboard", "--players", "Ana,Bo", "--csv", "board.txt"], "written as .csv"),
    ],
)
def test_bad_input_gets_one_line_and_status_2(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A folder that does not exist, made up under this test's own folder: nothing the command
    # does (nor any other test) can have made it.
    missing = tmp_path / "missing"
    code, err = run([a.replace("{missing}", str(missing)) for a in args], capsys)
    assert not missing.exists()  # nothing was made on the way
    assert code == 2
    assert said in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert len(err.strip()) < 300
    assert not missing.exists()  # refused, and no folder made on the way


def test_serve_bot_delay_reaches_the_tables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import gc

    import uvicorn

    import facedown.server.app
    import facedown.server.edge.serving

    class NoServer:
        def __init__(self, config: object) -> None:
            pass

        def run(self) -> None:
            pass

    made: list[Any] = []
    monkeypatch.setattr(facedown.server.app, "create_app", lambda settings: made.append(settings))
    monkeypatch.setattr(facedown.server.edge.serving, "uvicorn_config", lambda *a, **k: None)
    monkeypatch.setattr(uvicorn, "Server", NoServer)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # the test process keeps its own GC
    monkeypatch.setattr(gc, "set_threshold", lambda *a: None)
    callbacks = list(gc.callbacks)
    port = ["--port", str(free_port())]  # serve checks it can listen there
    assert main(["serve", "--data", str(tmp_path), "--bot-delay", "0.05", *port]) == 0
    assert gc.callbacks == callbacks  # serve's slow-collection log goes when serve returns
    assert main(["serve", "--data", str(tmp_path), *port]) == 0
    assert [s.table.bot_delay for s in made] == [0.05, TableConfig().bot_delay]
    rebalance = ["--rebalance", "all", "--rebalance-every", "30", "--rebalance-margin", "4"]
    assert main(["serve", "--data", str(tmp_path), *rebalance, *port]) == 0
    assert made[-1].rebalance == Rebalance("all", 30.0, 4)
    assert made[0].rebalance == Rebalance()  # by default: idle tables, every 5 s, margin 2


def test_sim_checks_its_output_file_before_playing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Refused at once, not after the games: nothing was played, nothing was printed.
    code, _ = run(["sim", "--out", str(tmp_path / "none" / "x.csv"), "--games", "500"], capsys)
    assert code == 2
    assert "games/s" not in capsys.readouterr().out


def test_bad_scenario_files_are_reported_and_the_rest_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = ROOT / "scenarios" / "cabo"
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a-list.json").write_text("[1, 2]", encoding="utf-8")
    (folder / "b-good.json").write_text(
        next(good.glob("*.json")).read_text(encoding="utf-8"), encoding="utf-8"
    )
    hand_as_text = {
        "name": "a hand written as text",
        "preset": "cabo",
        "players": ["ann", "bob"],
        "rounds": [{"hands": {"ann": "9994", "bob": ["1", "2", "3", "4"]}, "discard": "5"}],
    }
    (folder / "c-text-hand.json").write_text(json.dumps(hand_as_text), encoding="utf-8")
    no_preset = {"name": "no preset", "players": ["ann", "bob"], "rounds": []}
    (folder / "d-no-preset.json").write_text(json.dumps(no_preset), encoding="utf-8")
    code = main(["scenario", str(folder)])
    out = capsys.readouterr().out
    assert code == 2  # files that are not scenarios: bad input
    assert "the top level is a list, not an object" in out
    assert f"PASS {folder / 'b-good.json'}" in out
    assert "ann's hand must be a list of cards, not '9994'" in out
    assert "'preset' is missing" in out
    assert "unknown preset 'None'" not in out
    assert "1 passed, 3 failed" in out


def _env(tmp_path: Path) -> dict[str, str]:
    """The environment of a command run by a test: unbuffered, its state under ``tmp_path``."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": str(tmp_path / "state")}


def test_a_paper_evening_in_the_terminal(tmp_path: Path) -> None:
    # Kivo, three rounds (1, 3 or 5): Ana calls and is lowest (7), then calls and is not
    # (9 + 10 penalty), then nobody calls.  A line with the wrong number of totals is
    # explained and asked again.
    answers = "1 2 3\n7 12\nAna\n9 5\n1\n3 3\n\n"
    out_file = tmp_path / "evening.csv"
    done = subprocess.run(
        [
            *[sys.executable, "-m", "facedown", "scoreboard", "--preset", "kivo", "--rounds", "3"],
            *["--players", "Ana,Bo", "--csv", str(out_file)],
        ],
        input=answers,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert "give 2 hand totals, in the order Ana, Bo" in done.stdout
    assert "9 → 19" in done.stdout
    assert "The match is over: Bo wins." in done.stdout
    rows = out_file.read_text(encoding="utf-8").splitlines()
    assert rows[1] == "1,Ana,,7,7,7,12,12,12"
    assert rows[2] == "2,Ana,,9,19,26,5,5,17"
    assert rows[3] == "3,,,3,3,29,3,3,20"
    assert rows[4] == "total,,,,,29,,,20,Bo"


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, Any]:
    """Every command's parser, by name (``db upgrade`` too)."""
    found: dict[str, Any] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                found[prefix + name] = command
                found.update(_commands(command, f"{prefix}{name} "))
    return found


def test_serve_takes_its_choices_from_the_server_and_parsing_imports_none_of_it() -> None:
    # --log-format and --smtp-security offer what the server defines (not a copy); building
    # the parser, for any command, imports no module of the server (mail brings aiosmtplib).
    from facedown.cli import build_parser
    from facedown.server.accounts.mail import SECURITIES
    from facedown.server.base.logs import LOG_FORMATS

    serve = _commands(build_parser())["serve"]
    choices = {a.dest: a.choices for a in serve._actions}
    assert list(choices["log_format"]) == list(LOG_FORMATS)
    assert list(choices["smtp_security"]) == list(SECURITIES)
    code = (
        "import sys; from facedown.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith('facedown.server')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_help_says_what_each_command_is_for_with_defaults_and_examples(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from facedown import __version__
    from facedown.cli import COMMANDS, build_parser

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"facedown {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out
    assert ":class:" not in out
    assert ":mod:" not in out
    for words, example in COMMANDS.values():
        assert example in out
        assert words.replace("%%", "%")[:30] in " ".join(out.split())
    # Every option of every command says what it is for and, unless it must be given, its
    # default.
    commands = _commands(build_parser())
    assert {"play", "serve", "db", "db upgrade"} <= set(commands)
    for name, command in commands.items():
        text = " ".join(command.format_help().split())
        assert "Example:" in text, name
        assert "%%" not in text, name  # a percent sign doubled for argparse shows as one
        for action in command._actions:
            if not action.option_strings or action.dest == "help" or action.required:
                continue
            assert action.help, f"{name} {action.option_strings[0]} has no help"
            shown = command._get_formatter()._get_help_string(action)  # type: ignore[attr-defined]
            assert "default" in (shown or ""), f"{name} {action.option_strings[0]}"


def _start(args: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "facedown", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )


def _read_until(proc: subprocess.Popen[str], marker: str) -> str:
    """What the command printed, up to and including the first line holding ``marker``."""
    assert proc.stdout is not None
    seen = ""
    while marker not in seen:
        chunk = proc.stdout.readline()
        assert chunk, f"the command ended before {marker!r}: {seen[-500:]}"
        seen += chunk
    return seen


def test_ctrl_c_in_play_leaves_quietly_with_130(tmp_path: Path) -> None:
    proc = _start(["play", "--preset", "cabo", "--players", "2", "--seed", "3"], tmp_path)
    _read_until(proc, "What will you do?")
    proc.send_signal(signal.SIGINT)  # as Ctrl-C in a terminal does
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in err
    assert "Traceback" not in out


def test_ctrl_c_in_scoreboard_keeps_the_evening_and_resume_carries_on(tmp_path: Path) -> None:
    # Kivo, three rounds.  Round 1 is entered, then Ctrl-C at the prompt of round 2.
    args = ["scoreboard", "--preset", "kivo", "--rounds", "3", "--players", "Ana,Bo"]
    proc = _start(args, tmp_path)
    assert proc.stdin is not None
    proc.stdin.write("7 12\nAna\n")
    proc.stdin.flush()
    _read_until(proc, "Round 2 next.")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err + out
    assert "KeyboardInterrupt" not in err
    assert "facedown scoreboard --resume carries on" in out
    saved = tmp_path / "state" / "facedown" / "scoreboard.json"
    assert json.loads(saved.read_text(encoding="utf-8"))["rounds"] == [
        {"hand_totals": [7, 12], "caller": 0, "moon": -1}
    ]
    # A new evening does not overwrite the unfinished one.
    done = subprocess.run(
        [sys.executable, "-m", "facedown", *args],
        input="",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=_env(tmp_path),
    )
    assert done.returncode == 2
    assert "an unfinished evening (Ana, Bo, 1 round(s))" in done.stderr
    # --resume carries on with rounds 2 and 3: the totals count round 1.
    done = subprocess.run(
        [sys.executable, "-m", "facedown", "scoreboard", "--resume"],
        input="9 5\n1\n3 3\n\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert "Carrying on a paper game of kivo for Ana, Bo." in done.stdout
    assert "The match is over: Bo wins." in done.stdout
    assert json.loads(saved.read_text(encoding="utf-8"))["over"] is True


def _group_size(pgid: int) -> int:
    """How many processes the process group ``pgid`` holds (Linux's /proc)."""
    size = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            # pid (comm) state ppid pgrp ...: the fields after the last ')'
            if int(stat.read_text().rsplit(")", 1)[1].split()[2]) == pgid:
                size += 1
    return size


def _interrupt_group(args: list[str], tmp_path: Path, after: float) -> tuple[int, str]:
    """Start the command in a process group of its own; once its worker processes run (the
    group holds the command, the multiprocessing resource tracker and two workers), let them
    work ``after`` seconds, then send Ctrl-C to the whole group, as a terminal does (the
    workers get it too).  Its exit status and error output, once the whole group is gone."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "facedown", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while _group_size(proc.pid) < 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _group_size(proc.pid) >= 4, "the worker processes never started"
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    for _ in range(100):  # the workers are stopped with the command, not left behind
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("worker processes outlived the command")
    return proc.returncode, err


@pytest.mark.parametrize(
    "args",
    [
        ["sim", "--games", "100000", "--quiet", "--jobs", "2"],
        ["train", "--checkpoints", "ckpt", "--hours", "1", "--jobs", "2"],
    ],
    ids=["sim", "train"],
)
def test_ctrl_c_stops_a_command_on_worker_processes_at_once(
    tmp_path: Path, args: list[str]
) -> None:
    code, err = _interrupt_group(args, tmp_path, after=4.0)
    assert code == 130, err
    assert err.strip() == "", err  # quietly: no worker's traceback, not even its first line
