"""The ``arena`` command line, run as a user runs it."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from chaodipi.arena.cli import main as cli_main
from chaodipi.arena.cli.main import build_parser, main
from chaodipi.engine.presets import PRESETS


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", *args], capture_output=True, text=True, timeout=120
    )


def test_presets_lists_every_preset() -> None:
    done = arena("presets")
    assert done.returncode == 0
    for name in PRESETS:
        assert name in done.stdout


def test_one_preset_lists_every_option() -> None:
    done = arena("presets", "hefei")
    assert done.returncode == 0
    assert "BidRules.fry_by_order = True" in done.stdout
    assert "ScoreRules.level_step = 10" in done.stdout


def test_unknown_preset_is_named_with_the_choices() -> None:
    done = arena("selfplay", "--preset", "nope")
    assert done.returncode == 2
    assert "no preset 'nope'" in done.stderr and "anchao" in done.stderr


def test_selfplay_prints_a_summary() -> None:
    done = arena("selfplay", "--matches", "2", "--hands", "1", "--preset", "anchao")
    assert done.returncode == 0, done.stderr
    assert "hands played" in done.stdout and "actions/s" in done.stdout


# -- every argument of every command: a bad value is one line and exit code 2 ------------------

BAD_ARGUMENTS = [
    (["presets", "nope"], "no preset 'nope'"),
    (["selfplay", "--preset", "nope"], "no preset 'nope'"),
    (["selfplay", "--matches", "-1"], "argument --matches: must be a whole number of at least 1"),
    (["selfplay", "--matches", "many"], "argument --matches: must be a whole number"),
    (["selfplay", "--hands", "0"], "argument --hands: must be a whole number of at least 1"),
    (["selfplay", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    (["selfplay", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["nope"], "argument COMMAND: invalid choice: 'nope'"),
    ([], "the following arguments are required: COMMAND"),
    (["serve", "--address", "nonsense"], "argument --address: 'nonsense' is not HOST:PORT"),
    (["serve", "--address", "127.0.0.1:99999"], "the port must be a number from 0 to 65535"),
    (["serve", "--address", "::1:50051"], "write an IPv6 host in brackets"),
    (["serve", "--plaintext", "--preset", "nope"], "no preset 'nope'"),
    (["serve", "--tables", "0"], "argument --tables: must be a whole number of at least 1"),
    (["serve", "--hands", "-1"], "argument --hands: must be a whole number of at least 0"),
    (["serve", "--decision-ms", "0"], "argument --decision-ms: must be a whole number from 1"),
    (["serve", "--bank-ms", "-1"], "argument --bank-ms: must be a whole number from 0"),
    (["serve", "--bank-ms", "99999999999"], "argument --bank-ms: must be a whole number from 0"),
    (["serve", "--max-strikes", "0"], "argument --max-strikes: must be a whole number of at"),
    (["serve", "--connect-timeout", "nan"], "argument --connect-timeout: must be a positive"),
    (["serve", "--connect-timeout", "0"], "argument --connect-timeout: must be a positive"),
    (["serve", "--connect-timeout", "inf"], "argument --connect-timeout: must be a positive"),
    (["serve"], "--plaintext"),
    (["serve", "--tls-cert", "cert.pem"], "give both --tls-cert and --tls-key"),
    (["serve", "--tls-cert", "/nope/c", "--tls-key", "/nope/k"], "cannot read the TLS files"),
    (["serve", "--tickets", "/nope/tickets.jsonl"], "argument --tickets: /nope/tickets.jsonl"),
    (["serve", "--tickets", "{tmp}"], "is a folder, not a file"),
    (["serve", "--records", "{file}/records"], "argument --records:"),
    (["serve", "--deal-key-file", "/nope/key"], "argument --deal-key-file: /nope/key"),
    (
        ["serve", "--plaintext", "--address", "127.0.0.1:0", "--reuse-deal-key", "/nope/key"],
        "cannot read the deal key",
    ),
    (
        ["serve", "--deal-key-file", "{tmp}/k", "--reuse-deal-key", "{tmp}/k"],
        "not allowed with argument",
    ),
    (["serve", "--log-level", "loud"], "argument --log-level: invalid choice: 'loud'"),
    (["serve", "--plaintext", "--address", "no-such-host.invalid:5"], "no such host"),
    (["run", "{tmp}/nope.toml"], "cannot read"),
    (["run", "{config}", "--sprt", "1,2"], "elo0,elo1,alpha,beta"),
    (["run", "{config}", "--sprt", "nan,50,0.05,0.05"], "argument --sprt: need elo0 < elo1"),
    (["run", "{config}", "--csv", "{file}"], "argument --csv: {file}: {file} is a file"),
    (["run", "{config}", "--log-level", "loud"], "argument --log-level: invalid choice"),
    (["run", "{config}", "--host", "a b"], "argument --host: 'a b' is not a host name"),
    (["run", "{config}", "--host", "no-such-host.invalid"], "--host/--port: cannot listen"),
    (["run", "{config}", "--port", "70000"], "argument --port: must be a whole number from 0"),
    (["run", "{config}", "--port", "-1"], "argument --port: must be a whole number from 0"),
    (["run", "{config}", "--ray-shard-deals", "0"], "argument --ray-shard-deals: must be"),
    (["run", "{config}", "--ray-shard-deals", "4"], "go with --ray ADDRESS"),
    (["run", "{config}", "--ray-working-dir", "{tmp}"], "go with --ray ADDRESS"),
    (["run", "{config}", "--ray", "local", "--spectator-token"], "--spectator-token: with"),
    (["run", "{config}", "--ray", "nonsense:x"], "--ray: a Ray address is"),
    (["run", "{config}", "--ray", "local", "--port", "5"], "--host and --port: with --ray"),
    (["run", "{config}", "--preset", "nope"], "preset: no preset 'nope'"),
    (["run", "{config}", "--hands", "-1"], "argument --hands: must be a whole number of at"),
    (["run", "{config}", "--deals", "0"], "deals: must be a whole number of at least 1"),
    (["run", "{config}", "--concurrency", "0"], "argument -j/--concurrency: must be a whole"),
    (["run", "-b", "a=x", "-j", "0"], "argument -j/--concurrency: must be a whole"),
    (["run", "--bot", "python3 bot.py"], "argument -b/--bot: write NAME=COMMAND"),
    (["run", "--bot", "a="], "argument -b/--bot: write NAME=COMMAND"),
    (["run", "--bot", "a=x 'y"], "argument -b/--bot: a: the command cannot be split"),
    (["run"], "bots: name at least two, with --bot NAME=COMMAND"),
    (["run", "-b", "a=x"], "bots: a tournament needs at least two bots"),
    (["run", "-b", "a=x", "-b", "a=y"], "--bot a=…: a bot named 'a' is given twice"),
    (["run", "-b", "a=x", "-b", "b=y", "--tc", "5"], "argument -t/--tc: write DECISION_MS"),
    (["run", "-b", "a=x", "-b", "b=y", "--tc", "500+x"], "argument -t/--tc: write DECISION_MS"),
    (["run", "-b", "a=x", "-b", "b=y", "--tc", "500", "--decision-ms", "300"], "--tc and --decision-ms both set decision_ms"),
    (["run", "-b", "a=x", "--schedule", "swiss"], "argument --schedule: no schedule 'swiss'; choose one of round-robin, gauntlet"),
    (["run", "-b", "a=x", "-b", "b=y", "--schedule", "gauntlet"], "gauntlet: name the bot that meets all others"),
    (["run", "-b", "a=x", "--first-deal", "-1"], "argument --first-deal: must be a whole number of at least 0"),
    (["run", "-b", "a=x", "--max-strikes", "0"], "argument --max-strikes: must be a whole number of at least 1"),
    (["run", "-b", "a=x", "--decision-ms", "9"], "argument --decision-ms: must be a whole number of at least 10"),
    (["run", "-b", "a=x", "--connect-timeout", "0"], "argument --connect-timeout: must be a positive number"),
    (["run", "-b", "a=x", "-p", "nope"], "argument -p/--preset: no preset 'nope'"),
    (["run", "-b", "a=x", "--report-every", "0"], "argument --report-every: must be a whole number"),
    (["run", "-b", "a=x", "-d", "{tmp}"], "{tmp}: is a folder, not a database file"),
    (["report", "{tmp}/nope.sqlite"], "report:"),
    (["report", "{tmp}/r.sqlite", "--csv", "{file}"], "argument --csv: {file}: {file} is a file"),
    (["report", "{tmp}/r.sqlite", "--sprt", "0,50"], "argument --sprt: write elo0,elo1,alpha,beta"),
    (["report", "{tmp}/r.sqlite", "--plot", "{file}"], "is a file, not a folder"),
    (["run", "-b", "a=x", "-b", "b=y", "--deals-file", "{tmp}/no.json"], "cannot read the deal set"),
    (["run", "-b", "a=x", "-b", "b=y", "--deals-file", "{file}"], "file: not a deal set"),
    (
        ["run", "-b", "a=x", "-b", "b=y", "--deals-file", "standard", "--first-deal", "1000", "-n", "2"],
        "deals_file: classic.json.gz: has no deal 1001 (it holds 1000 deals, numbers 1 to 1000)",
    ),
    (["run", "-b", "a=x", "-b", "b=y", "--deals-file", ""], "argument --deals-file: give a deal"),
    (["deals"], "the following arguments are required: ACTION"),
    (["deals", "export"], "the following arguments are required: -o/--output"),
    (["deals", "export", "-o", "{file}"], "{file} exists: nothing overwritten"),
    (["deals", "export", "-o", "/nope/x.json"], "argument -o/--output: /nope/x.json: there is no"),
    (["deals", "export", "-o", "{tmp}/x.json", "-n", "0"], "argument -n/--count: must be a whole"),
    (["deals", "export", "-o", "{tmp}/x.json", "--hands", "x"], "argument --hands: must be a"),
    (["deals", "export", "-o", "{tmp}/x.json", "-p", "nope"], "argument -p/--preset: invalid"),
    (["deals", "export", "-o", "{tmp}/x.json", "--key-file", "{file}"], "a deal key is 64 hex"),
    (["deals", "export", "-o", "{tmp}/x.json", "--key-file", "{tmp}/no"], "cannot read it"),
    (["deals", "show", "{file}"], "file: not a deal set"),
    (["deals", "show", "standard", "5000"], "classic.json.gz has no deal 5000"),
    (["bench"], "give the bot's command, CMD (or --ladder)"),
    (["bench", "x", "--rungs", "foo"], "argument --rungs: no rung 'foo'; the rungs: random,"),
    (["bench", "x", "--rungs", "random,random"], "argument --rungs: name each rung once"),
    (["bench", "x", "-n", "0"], "argument -n/--deals: must be a whole number of at least 1"),
    (["bench", "x", "--hands", "-1"], "argument --hands: must be a whole number of at least 0"),
    (["bench", "x", "--decision-ms", "5"], "argument --decision-ms: must be a whole number"),
    (["bench", "x", "-j", "0"], "argument -j/--concurrency: must be a whole number"),
    (["bench", "x", "-p", "nope"], "argument -p/--preset: invalid choice: 'nope'"),
    (["bench", "x", "--name", "a b"], "argument --name: 'a b': a bot's name is letters"),
    (["bench", "x", "--name", "random"], "--name random: a rung is called so"),
    (["bench", "x", "--rungs", "random", "--deal-set", "{tmp}/no"], "cannot read the deal set"),
    (["bench", "x", "--rungs", "random", "--first-deal", "1000", "-n", "2"], "has no deal 1001"),
    (["bench", "x", "-d", "{tmp}"], "{tmp}: is a folder, not a database file"),
    (["bench", "x 'y"], "CMD cannot be split"),
    (["bench", "--ladder", "x"], "--ladder plays the rungs against each other: give no CMD"),
    (["bench", "--ladder", "--rungs", "random"], "--ladder needs at least two rungs"),
]


@pytest.mark.parametrize(
    ("argv", "message"), BAD_ARGUMENTS, ids=[" ".join(a) or "(none)" for a, _ in BAD_ARGUMENTS]
)
def test_a_bad_argument_is_one_line_and_exit_code_2(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """Checked before anything starts: the command never gets to serve or play."""
    config = tmp_path / "t.toml"
    config.write_text(
        'deals = 1\n[bots.a]\ncommand = "python3 a.py"\n[bots.b]\ncommand = "python3 b.py"\n',
        encoding="utf-8",
    )
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    argv = [a.format(tmp=tmp_path, file=tmp_path / "file", config=config) for a in argv]
    message = message.format(tmp=tmp_path, file=tmp_path / "file")

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the command started with a bad argument")

    monkeypatch.setattr(anyio, "run", no_run)
    monkeypatch.setattr(cli_main, "play_random_match", no_run)
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert message in err, err


def test_every_option_shows_its_default_and_every_command_its_exit_codes() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    every = list(commands.choices.items())
    for name, command in every:  # and each command's own sub-commands (arena deals ACTION)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                every += [(f"{name} {n}", c) for n, c in action.choices.items()]
    for name, command in every:
        text = command.format_help()
        assert "exit codes:\n  0 " in text and "\n  2 " in text, name
        for group in command._action_groups:
            for action in group._group_actions:
                if not action.option_strings or action.nargs == 0 or action.dest == "help":
                    continue  # positional arguments, flags
                said = f"{action.help} {group.description}".lower()
                assert "default" in said, (name, action.option_strings)
    for name in ("serve", "run", "bench"):
        assert "\n  1 " in commands.choices[name].format_help(), name


def test_the_help_texts_name_the_service_as_it_is() -> None:
    text = arena("serve", "--help").stdout
    assert "ArenaService.Play" in text and "ArenaService.Watch" in text
    assert "`Arena.Play`" not in text
