"""Deal sets as files (docs/deal-sets.md): exported, checked against the engine's deal as they
are read, played by ``arena run --deals-file``, and one shipped per preset."""

from __future__ import annotations

import gzip
import json
import pickle
import random
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chaodipi.arena.cli.main import main
from chaodipi.arena.deals import DealKey
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey
from chaodipi.arena.tournament.config import load_config
from chaodipi.arena.tournament.deal_sets import (
    DEALS_FORMAT,
    MAX_DEAL_SET_BYTES,
    DealSetError,
    deal_set_schema,
    load_deal_set,
    standard_set_path,
)
from chaodipi.engine.cards import parse_cards
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import record_lines, unpack

ROOT = Path(__file__).resolve().parents[1]
KEY = "07" * 32


def _export(tmp_path: Path, *options: str, name: str = "set.json") -> Path:
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n", encoding="ascii")
    out = tmp_path / name
    code = main(["deals", "export", "--key-file", str(key_file), "-o", str(out), *options])
    assert code == 0
    return out


def _dealt_lines(lines: list[dict[str, Any]]) -> list[tuple[int | None, list[str], str]]:
    """Each hand's (dealer, the four hands by seat, kitty) from a record's lines, the first
    deal of each hand (before any redeal)."""
    out: list[tuple[int | None, list[str], str]] = []
    dealer: int | None = None
    numbered: set[int] = set()
    for line in lines:
        if line["type"] == "hand":
            dealer = line["dealer"]
        elif line["type"] == "dealt" and line["hand"] not in numbered:
            numbered.add(line["hand"])
            out.append((dealer, line["hands"], line["kitty"]))
    return out


def _same(a: str, b: str) -> bool:
    return sorted(parse_cards(a)) == sorted(parse_cards(b))


@pytest.mark.parametrize("preset", ["classic", "hefei"])
def test_an_exported_set_lists_the_cards_the_engine_deals_in_each_hand(
    tmp_path: Path, preset: str
) -> None:
    """Export → load → play: each match of a deal's seed deals the cards the file lists,
    position p of a hand being seat (dealer + p) % 4 (seat p in the first hand)."""
    path = _export(tmp_path, "-p", preset, "-n", "6", "--first", "3", "--hands", "2")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == DEALS_FORMAT and document["key"] == KEY
    deal_set = load_deal_set(path)
    assert deal_set.numbers() == (3, 4, 5, 6, 7, 8)
    checked = 0
    for deal, listed in zip(deal_set.deals, document["deals"], strict=True):
        assert deal.seed == DealKey.from_hex(KEY).seed(deal.number) == listed["seed"]
        match = Match(PRESETS[preset], seed=deal.seed, max_hands=2)
        rng = random.Random(deal.number)
        while not match.over:
            match.apply(match.to_play, match.legal_actions().sample(rng))
        hands = _dealt_lines(list(record_lines(match, bots=("a", "b", "a", "b"))))
        for number, (dealer, by_seat, kitty) in enumerate(hands):
            first = 0 if dealer is None or number == 0 else dealer
            written = listed["deal"][number]
            for position in range(4):
                assert _same(written["hands"][position], by_seat[(first + position) % 4])
            assert _same(written["kitty"], kitty)
            checked += 1
    assert checked >= 6 + 3  # every first hand, and most second ones (a match may end sooner)


def test_a_file_whose_cards_differ_from_the_deal_is_refused_naming_the_deal(
    tmp_path: Path, capsys: Any
) -> None:
    path = _export(tmp_path, "-n", "3")
    document = json.loads(path.read_text(encoding="utf-8"))
    hand = document["deals"][1]["deal"][0]
    zero, one = parse_cards(hand["hands"][0]), parse_cards(hand["hands"][1])
    moved = next(c for c in zero if c not in one)
    hand["hands"][0] = " ".join(map(str, [c for c in zero if c != moved] + [one[0]]))
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DealSetError, match=r"changed.json: deal 2, hand 1, position 0: the file"):
        load_deal_set(changed)
    code = main(["run", "-b", "a=x", "-b", "b=y", "--deals-file", str(changed), "-n", "3"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "deals_file: changed.json: deal 2, hand 1, position 0" in err


def test_a_seed_that_is_not_the_keys_is_refused(tmp_path: Path) -> None:
    path = _export(tmp_path, "-n", "2", "--hands", "0")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["deals"][0]["seed"] = document["deals"][1]["seed"]
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(DealSetError, match="deal 1: its seed is not the file key's seed"):
        load_deal_set(path)


def test_a_set_of_seeds_without_a_key_loads_and_another_format_is_refused(
    tmp_path: Path,
) -> None:
    path = _export(tmp_path, "-n", "2", "--hands", "1")
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["key"]
    path.write_text(json.dumps(document), encoding="utf-8")
    assert load_deal_set(path).key is None
    document["format"] = "chaodipi-deals/2"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(DealSetError, match="this arena reads 'chaodipi-deals/1'"):
        load_deal_set(path)


def test_exported_and_shipped_sets_meet_the_schema_and_a_broken_one_does_not(
    tmp_path: Path,
) -> None:
    schema = deal_set_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    exported = json.loads(_export(tmp_path, "-n", "2", "--hands", "2").read_text("utf-8"))
    shipped = json.loads(gzip.decompress(standard_set_path("anchao").read_bytes()))
    for document in (exported, shipped):
        validator.validate(document)
    exported["deals"][0]["deal"][0]["hands"].pop()
    assert not validator.is_valid(exported)


def test_a_compressed_set_reads_as_the_same_set(tmp_path: Path) -> None:
    plain = load_deal_set(_export(tmp_path, "-n", "2"))
    packed_path = _export(tmp_path, "-n", "2", name="set.json.gz")
    assert gzip.decompress(packed_path.read_bytes()).startswith(b"{")
    assert load_deal_set(packed_path).deals == plain.deals


def test_the_shipped_sets_load_for_every_preset_and_are_package_data() -> None:
    keys = set()
    for preset in PRESETS:
        deal_set = load_deal_set(standard_set_path(preset))
        assert deal_set.preset == preset
        assert deal_set.numbers() == tuple(range(1, 1001))
        assert deal_set.key is not None
        keys.add(deal_set.key)
        assert standard_set_path(preset).stat().st_size < 200_000
    assert len(keys) == len(PRESETS)  # each preset its own deals
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["chaodipi.arena.tournament"]
    assert "standard_deals/*.json.gz" in data


def _run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


RANDOM = "python3 -m chaodipi.sample_bots.random_bot"


def test_arena_run_plays_deal_i_of_the_file_in_both_games_and_stores_which_set(
    tmp_path: Path,
) -> None:
    path = _export(tmp_path, "-n", "3", "--first", "5")
    listed = {d["number"]: d for d in json.loads(path.read_text(encoding="utf-8"))["deals"]}
    common = ["-b", f"a={RANDOM}", "-b", f"b={RANDOM}", "--hands", "1", "-j", "2"]
    done = _run(*common, "--deals-file", str(path), "--first-deal", "6", "-n", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    digest = load_deal_set(path).sha256
    assert f"arena run: deals from the deal set set.json (sha256 {digest})" in done.stderr
    db = ResultsDB(tmp_path / "results.sqlite", read_only=True)
    try:
        for deal in (6, 7):
            for swapped in (False, True):
                blob = db.record(GameKey("a", "b", deal, swapped))
                assert blob is not None
                lines = unpack(blob)
                assert lines[0]["seed"] == listed[deal]["seed"]
                _, by_seat, kitty = _dealt_lines(lines)[0]
                written = listed[deal]["deal"][0]
                assert all(_same(w, s) for w, s in zip(written["hands"], by_seat, strict=True))
                assert _same(written["kitty"], kitty)
        stored = db.runs()[-1].config["deals_file"]
    finally:
        db.close()
    assert stored == {"name": "set.json", "sha256": digest}
    report = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "report", "results.sqlite"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert f'deals_file = {{"name": "set.json", "sha256": "{digest}"}}' in report.stdout
    # the same numbers from another set (or the secret key) are other cards: refused
    other = _export(tmp_path, "-n", "3", "--first", "5", "--hands", "0", name="other.json")
    for deals in (["--deals-file", str(other)], []):
        again = _run(*common, *deals, "--first-deal", "6", "-n", "2", "--resume", cwd=tmp_path)
        assert again.returncode == 2, again.stderr
        assert "deals_file: the stored games were dealt from the deal set set.json" in again.stderr


def test_the_stored_config_of_a_secret_key_run_says_no_deal_set(tmp_path: Path) -> None:
    """A run without a set stores deals_file null, and a database written before deal sets
    (no such key) resumes as a secret-key run."""
    common = ["-b", f"a={RANDOM}", "-b", f"b={RANDOM}", "--hands", "1", "-n", "1"]
    assert _run(*common, cwd=tmp_path).returncode == 0
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        (config,) = db.execute("SELECT config FROM runs").fetchone()
        assert json.loads(config)["deals_file"] is None
        old = json.loads(config)
        del old["deals_file"]
        db.execute("UPDATE runs SET config = ?", (json.dumps(old),))
    again = _run(*common, "-n", "2", "--resume", cwd=tmp_path)
    assert again.returncode == 0, again.stderr


def test_a_set_of_another_preset_is_refused(capsys: Any) -> None:
    classic = str(standard_set_path("classic"))
    code = main(["run", "-b", "a=x", "-b", "b=y", "--deals-file", classic, "-p", "hefei"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "classic.json.gz: a set of preset 'classic', the run plays 'hefei'" in err


def test_deals_show_prints_a_deals_cards_as_the_file_lists_them(capsys: Any) -> None:
    assert main(["deals", "show", "standard", "7", "-p", "kangqi"]) == 0
    out = capsys.readouterr().out
    deal = load_deal_set(standard_set_path("kangqi")).deals[6]
    assert deal.number == 7 and f"deal 7: seed {deal.seed}" in out
    for position, cards in enumerate(deal.hands[0].positions):
        assert f"position {position}: {cards}\n" in out
    assert f"kitty:      {deal.hands[0].kitty}\n" in out


def test_a_config_files_deals_file_is_read_from_its_folder_and_the_set_pickles(
    tmp_path: Path,
) -> None:
    """deals_file in a config is relative to the config's folder; the set a run deals from
    crosses to a Ray node by pickling."""
    folder = tmp_path / "tour"
    folder.mkdir()
    _export(folder, "-n", "2", name="mine.json")
    config_path = folder / "t.toml"
    config_path.write_text(
        'deals = 2\ndeals_file = "mine.json"\n'
        '[bots.a]\ncommand = "./a"\n[bots.b]\ncommand = "./b"\n',
        encoding="utf-8",
    )
    config = load_config(config_path)
    assert config.deal_set is not None and config.deal_set.path == folder / "mine.json"
    deal_set = load_deal_set(config.deal_set.path)
    assert pickle.loads(pickle.dumps(deal_set)).seed(2) == DealKey.from_hex(KEY).seed(2)


# -- hostile files: bounded reading, one line, exit 2 ---------------------------------------------


def _gzip_of_zeros(path: Path, size: int) -> Path:
    """A gzip stream that decompresses to ``size`` zero bytes, written a MiB at a time."""
    block = bytes(1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as out:
        for _ in range(size // len(block) + 1):
            out.write(block)
    return path


def _hostile_set(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A crafted deal-set file, and what the one line about it must say."""
    path = tmp_path / f"{kind}.json"
    match kind:
        case "bomb":
            return _gzip_of_zeros(path.with_suffix(".json.gz"), MAX_DEAL_SET_BYTES), "larger than"
        case "digits":
            document = (
                f'{{"format": "{DEALS_FORMAT}", "preset": "classic", "hands": 1{"7" * 5000}}}'
            )
            path.write_text(document, encoding="utf-8")
            return path, "digits"
        case "nesting":
            path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
            return path, "nested"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["bomb", "digits", "nesting"])
@pytest.mark.parametrize("command", ["deals show", "run --deals-file"])
def test_a_hostile_deal_set_is_refused_in_one_line(tmp_path: Path, kind: str, command: str) -> None:
    """A gzip bomb (more than MAX_DEAL_SET_BYTES once decompressed), a 5,000-digit number and
    100,000-deep nesting: read within bounds, refused in one line naming the file, exit 2."""
    path, says = _hostile_set(tmp_path, kind)
    if command == "deals show":
        argv = ["deals", "show", str(path)]
    else:
        argv = ["run", "-b", f"a={RANDOM}", "-b", f"b={RANDOM}", "--deals-file", str(path)]
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", *argv],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert path.name in done.stderr and says in done.stderr
