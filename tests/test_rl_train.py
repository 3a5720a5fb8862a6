"""The Deep Monte-Carlo trainer (chaodipi.rl.train): a short run on processes and on Ray
writes a checkpoint and a numpy model, resumes, and its losses and labels say what they mean."""

from __future__ import annotations

import json
import random
import signal
import struct
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.process_support import children, ends
from tests.rl_support import need_rl

need_rl()
torch = pytest.importorskip("torch")

from chaodipi.engine.match import HandRecord, Match  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.engine.view import observe  # noqa: E402
from chaodipi.rl import features_of, train  # noqa: E402
from chaodipi.rl.policy import QPolicy, load_model  # noqa: E402
from chaodipi.rl.qnet import QNet, to_model  # noqa: E402
from chaodipi.rl.selfplay import Hand, Stage, hand_target, play_hand, play_hands  # noqa: E402
from chaodipi.search import heuristic_move  # noqa: E402

SHORT = ["--minutes", "30", "--hands", "12", "--batch", "64", "--eval-deals", "1", "--report-seconds", "1",
         "--hidden", "32", "--against", "random"]


def _log(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]


def test_a_short_run_writes_a_checkpoint_that_resumes_and_plays_legal_moves(
    tmp_path: Path,
) -> None:
    assert train.main([*SHORT, "--out", str(tmp_path), "--stage", "imitate"]) == 0
    first = _log(tmp_path)[-1]["done"]
    assert isinstance(first, dict) and first["hands"] > 0 and first["steps"] > 0
    figures = _log(tmp_path)[-2]["eval"]
    assert isinstance(figures, dict)
    assert set(figures) == {"score_vs_random", "elo_vs_random", "margin_vs_random"}
    taught = load_model(tmp_path / "model.npz")  # the imitate stage's model names its teacher
    assert (taught.teacher, taught.threshold) == ("heuristic", 0.3)
    assert train.main([*SHORT, "--out", str(tmp_path), "--stage", "versus", "--resume",
                       "--threshold", "0.5"]) == 0
    assert load_model(tmp_path / "model.npz").threshold == 0.5
    second = _log(tmp_path)[-1]["done"]
    assert isinstance(second, dict)
    assert second["hands"] > first["hands"] and second["seconds"] > first["seconds"]
    net, saved = train.load(tmp_path / "model.pt")
    assert saved["stage"] == "versus" and saved["progress"] == second

    greedy = QPolicy(to_model(net, 32, "classic"), random.Random(0))
    match = Match(PRESETS["classic"], seed=7, max_hands=1)
    while not match.over:
        view = observe(match, match.to_play)
        action = greedy.decide(view)
        assert view.legal is not None and action in view.legal
        match.apply(match.to_play, action)
    assert len(match.records) == 1


@pytest.mark.ray
def test_a_short_run_on_ray_trains_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    assert train.main([*SHORT, "--out", str(tmp_path), "--ray", "local"]) == 0
    assert train.main([*SHORT, "--out", str(tmp_path), "--ray", "local", "--resume"]) == 0
    done = [e["done"] for e in _log(tmp_path) if "done" in e]
    assert len(done) == 2 and done[1]["hands"] > done[0]["hands"] > 0  # type: ignore[index]


def test_in_the_imitate_stage_every_demonstration_is_the_teacher_s_choice() -> None:
    hand = play_hand(QNet((8,)), Stage.IMITATE, heuristic_move, "classic", 3,
                     random.Random(0), epsilon=0.0)
    assert hand.demo.all() and len(hand.targets) > 50
    again = Match(PRESETS["classic"], seed=3, max_hands=1)
    decision = 0
    while not again.over:
        view = observe(again, again.to_play)
        assert view.legal is not None
        action = heuristic_move(view)
        if view.legal.count() > 1:
            assert (hand.rows[hand.chosen[decision]] == features_of(action)).all()
            decision += 1
        again.apply(again.to_play, action)
    assert decision == len(hand.targets)


def test_the_large_margin_loss_is_zero_only_when_the_teacher_s_choice_leads_by_the_margin(
) -> None:
    net = QNet((4,))
    hand = play_hand(net, Stage.IMITATE, heuristic_move, "classic", 5,
                     random.Random(1), epsilon=0.0)
    one = Hand(hand.states[:1], hand.rows[hand.owner == 0], hand.owner[hand.owner == 0],
               hand.chosen[:1], hand.demo[:1], hand.targets[:1])
    assert len(one.rows) > 1
    with torch.no_grad():
        q = net.rows(torch.from_numpy(one.states), torch.from_numpy(one.owner),
                     torch.from_numpy(one.rows.astype(np.float32)))
    mse = float((q[0] - float(one.targets[0])) ** 2)
    rest = q[1:].max().item()
    gap = rest + 0.5 - q[0].item()
    with torch.no_grad():
        loss, agreement = train.loss_of(net, [one], margin=0.5, weight=1.0)
        plain = train.loss_of(net, [one], margin=0.5, weight=0.0)[0].item()
    assert plain == pytest.approx(mse, rel=1e-5)
    assert loss.item() == pytest.approx(mse + max(gap, 0.0), rel=1e-5)
    assert agreement == (1.0 if q[0].item() >= rest else 0.0)


def test_a_hand_target_is_zero_sum_between_the_teams_and_shared_by_partners() -> None:
    record = _one_hand()
    assert hand_target(record, 0) == -hand_target(record, 1)
    assert hand_target(record, 0) == hand_target(record, 2)


@pytest.mark.parametrize(("flags", "says"), [
    (["--actors", "0"], "--actors 0: at least one actor"),
    (["--resume"], "--resume: no checkpoint at"),
    (["--against", "no.such.module"], "'no.such.module': no such module"),
    (["--stage", "imitate", "--teacher", "json"], "'json': the module has no decide(view)"),
    (["--ray", "10.0.0.5"], "--ray '10.0.0.5': give auto, local or HOST:PORT"),
    (["--threshold", "-1"], "--threshold -1.0: give a number ≥ 0"),
])
def test_a_bad_flag_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--out", str(tmp_path / "out"), *flags])
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err.splitlines()[-1]


class _Runs:
    """What a crafted checkpoint would have run when read: ``Path.touch`` of a marker."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return (Path.touch, (self.marker,))


def _checkpoint(net: QNet, **changed: object) -> dict[str, object]:
    return {"model": net.state_dict(), "optimizer": torch.optim.Adam(net.parameters()).state_dict(),
            "hidden": list(net.hidden), "preset": "classic", "stage": "self",
            "progress": {"hands": 1, "samples": 1, "steps": 1, "seconds": 1.0}, **changed}


def _inflating(path: Path, size: int) -> None:
    """A zip archive whose directory says its one entry inflates to ``size`` bytes."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/data.pkl", b"x" * 16)
    data = bytearray(path.read_bytes())
    struct.pack_into("<I", data, data.index(b"PK\x01\x02") + 24, size)
    path.write_bytes(bytes(data))


CRAFTED = {
    "code to run": (lambda out, net: torch.save({"x": _Runs(out / "ran")}, out / "model.pt"),
                    "not a checkpoint of this trainer: Weights only load failed"),
    "text": (lambda out, net: (out / "model.pt").write_text("not a checkpoint\n"),
             "not a checkpoint of this trainer (a torch zip archive): File is not a zip file"),
    "a 3.75 GiB entry": (lambda out, net: _inflating(out / "model.pt", 0xF0000000),
                         "it inflates to 3,840 MiB, larger than a checkpoint may be (1,024 MiB)"),
    "a network of 10^12 weights": (
        lambda out, net: torch.save(_checkpoint(net, hidden=[10**6, 10**6]), out / "model.pt"),
        "hidden [1000000, 1000000] is a network larger than a model may be (256 MiB)"),
    "weights of another width": (
        lambda out, net: torch.save(_checkpoint(net, hidden=[16]), out / "model.pt"),
        "its weights do not fit hidden [16]: Error(s) in loading state_dict for QNet"),
    "hidden a string": (lambda out, net: torch.save(_checkpoint(net, hidden="32"), out / "model.pt"),
                        "hidden '32' is not a list of positive widths"),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_resuming_a_crafted_checkpoint_is_one_line_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """``--resume`` reads OUT/model.pt as weights only (torch refuses any other object, so
    nothing in it runs) and within a size: anything else is one line naming the file."""
    make, says = CRAFTED[case]
    make(tmp_path, QNet((32,)))
    with pytest.raises(SystemExit) as exit_:
        train.main([*SHORT, "--out", str(tmp_path), "--resume"])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"python3 -m chaodipi.rl.train: error: --resume: {tmp_path / 'model.pt'}: ")
    assert says in last, last
    assert not (tmp_path / "ran").exists()


def _one_hand() -> HandRecord:
    rng = random.Random(5)
    match = Match(PRESETS["classic"], seed=5, max_hands=1)
    while not match.over:
        view = observe(match, match.to_play)
        assert view.legal is not None
        match.apply(match.to_play, view.legal.sample(rng))
    return match.records[-1]


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, pytest.param(signal.SIGKILL, marks=pytest.mark.slow)]
)
def test_a_trainer_that_is_killed_leaves_no_actor_running(tmp_path: Path, signum: int) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "chaodipi.rl.train", *SHORT, "--hands", "100000",
         "--actors", "2", "--out", str(tmp_path)], stdout=subprocess.PIPE, text=True,
    ) as trainer:
        assert trainer.stdout is not None
        trainer.stdout.readline()  # the first report: the actors play
        actors = children(trainer.pid)
        assert len(actors) >= 2
        trainer.send_signal(signum)
        trainer.wait(timeout=120)
    for actor in actors:  # each sees its learner gone within a hand (a generous bound)
        assert ends(actor, within_s=60), f"actor {actor} outlived its trainer"


def test_tables_played_side_by_side_score_all_their_decisions_in_one_pass_a_round() -> None:
    """``play_hands`` plays each seed's hand, the network's decisions of all the tables scored
    together: as many forward passes as the longest hand has network decisions, not their sum;
    each hand's decisions are labelled with its own outcome (one value for a team, its
    negation for the other)."""
    net = QNet((16,))
    calls: list[int] = []
    rows = net.rows

    def counted(states: torch.Tensor, owner: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        calls.append(len(states))
        return rows(states, owner, actions)

    net.rows = counted  # type: ignore[method-assign]
    seeds = [11, 12, 13, 14]
    hands = play_hands(net, Stage.SELF, None, "classic", seeds, random.Random(2), epsilon=0.0)
    decisions = [len(hand.targets) for hand in hands]
    assert min(decisions) > 30
    assert len(calls) <= max(decisions) < sum(decisions) == sum(calls)
    assert calls[0] == len(seeds)  # the first round: every table waits for the network
    for hand in hands:
        assert len(hand.states) == len(hand.chosen) == len(hand.demo) == len(hand.targets)
        assert not hand.demo.any() and hand.owner.tolist() == sorted(hand.owner.tolist())
        values = {round(float(v), 5) for v in hand.targets}
        assert len(values) <= 2 and {-v for v in values} <= values | {0.0}


HANG_GUARD_S = 120.0
"""How long a held evaluation may wait at most (a guard against a hang, not a wait)."""


def test_an_evaluation_runs_while_the_learner_takes_the_actors_hands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trainer's evaluation plays beside the learner: while one runs (held here until the
    learner has taken more hands than it had at the evaluation's start), the learner goes on
    taking the actors' hands; the figures come once it is done, with the hands of its start."""
    released = threading.Event()
    started_at: list[int] = []

    class Held:
        def done(self) -> bool:
            return released.is_set()

        def result(self) -> dict[str, float]:
            assert released.wait(timeout=HANG_GUARD_S), "the learner took no hand meanwhile"
            return {"score_vs_random": 50.0}

        def close(self) -> None:
            pass

    start = train.Evaluations.start

    def starting(self: train.Evaluations, net: QNet, progress: train.Progress) -> bool:
        if not started_at:
            started_at.append(progress.hands)
        return start(self, net, progress)

    monkeypatch.setattr(train.Evaluations, "start", starting)
    monkeypatch.setattr(train.Evaluations, "launch", lambda self, model, teacher: Held())
    lines: list[dict[str, object]] = []

    def emit(entry: dict[str, object]) -> None:
        lines.append(entry)
        hands = entry.get("hands")
        if (started_at and "hands_per_s" in entry and isinstance(hands, int)
                and hands > started_at[0]):
            released.set()

    args = train.parser().parse_args([
        *SHORT, "--hands", "40", "--eval-minutes", "0", "--report-seconds", "0",
        "--tables", "2", "--out", str(tmp_path)])
    args.argv, args.against = [], ["random"]
    train.train(args, emit)
    first = next(i for i, e in enumerate(lines) if "eval" in e)
    assert lines[first]["hands"] == started_at[0]
    taken = [e["hands"] for e in lines[:first] if "hands_per_s" in e]
    assert any(isinstance(h, int) and h > started_at[0] for h in taken), lines[: first + 1]


def test_the_teacher_of_a_table_plays_the_heuristic_policy_s_actions() -> None:
    """Each table's teacher keeps its seats' inferences between decisions
    (``per_game``: a :class:`~chaodipi.search.Heuristic`): the same action as
    ``heuristic_move`` at every decision of a hand."""
    from chaodipi.rl.bots import per_game
    from chaodipi.search import Heuristic

    teacher = per_game(heuristic_move)
    assert isinstance(teacher, Heuristic) and per_game(heuristic_move) is not teacher
    match = Match(PRESETS["hefei"], seed=5, max_hands=1)
    decisions = 0
    while not match.over:
        view = observe(match, match.to_play)
        action = teacher(view)
        assert action == heuristic_move(view)
        match.apply(match.to_play, action)
        decisions += 1
    assert decisions > 50


def test_the_search_teacher_plays_the_search_at_forty_playouts_without_a_clock() -> None:
    """``--teacher search`` (and an opponent ``search``) is the search policy at the search40
    rung's playouts and no clock: from the same seed, the same choice as ``search_move``."""
    from chaodipi.engine.phase import Phase
    from chaodipi.rl.bots import SearchBot, bot_name, resolve_bot
    from chaodipi.search import Budget, search_move

    teacher = resolve_bot("search")
    assert isinstance(teacher, SearchBot) and bot_name("search") == "search"
    assert (teacher.budget.simulations, teacher.budget.seconds) == (40, None)
    match, rng = Match(PRESETS["classic"], seed=9, max_hands=1), random.Random(9)
    while match.hand.phase is not Phase.PLAY or match.legal_actions().count() < 3:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    view = observe(match, match.to_play)
    teacher.seed(4)
    assert teacher(view) == search_move(view, random.Random(4), Budget(40, None))
