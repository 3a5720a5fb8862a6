"""The PettingZoo environment (chaodipi.rl.env, docs/rl-environment.md).

* PettingZoo's own ``api_test`` and ``seed_test`` pass for every preset (and the 扛旗 hand),
  whole hands and whole matches, both action forms; the only warnings they give are the
  ones every dict-observation environment gets.
* Rewards are each team's level change (and points, and the match's result) as documented,
  and sum to zero with ``zero_sum``.
* ``render`` is the spectator's transcript; bad options and actions are refused in one line.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

from tests.rl_support import KANGQI_HAND, need_rl, random_steps, reset_options

need_rl()

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from chaodipi.engine.cards import Rank, Suit  # noqa: E402
from chaodipi.engine.events import TrumpFixed  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.engine.seats import team_of  # noqa: E402
from chaodipi.records import match_transcript  # noqa: E402
from chaodipi.rl.cardwise import DONE, PASS_ID  # noqa: E402
from chaodipi.rl.env import AGENTS, ChaoDipiEnv  # noqa: E402

EXPECTED_WARNINGS = (
    # every environment whose observation is a dict ({"observation", "action_mask"}) and is
    # not on api_test's own list of such environments gets these two
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)


class _Started(ChaoDipiEnv):
    """An environment whose reset without options starts at a chosen point (api_test resets
    it with options of its own)."""

    def __init__(self, start: dict[str, Any] | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start = start

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, self.start)


class _Probed(ChaoDipiEnv):
    """An environment that takes api_test's probe of reset's arguments, ``options={"options":
    1}``, as no options (an unknown option is refused)."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, None if options == {"options": 1} else options)


def _make(preset: str, **kwargs: Any) -> ChaoDipiEnv:
    name, start = reset_options(preset)
    return _Started(start, preset=name, **kwargs) if start else _Probed(name, **kwargs)


def _only_expected_warnings(caught: list[warnings.WarningMessage]) -> None:
    unexpected = {str(w.message) for w in caught} - {
        str(w.message) for w in caught if str(w.message).startswith(EXPECTED_WARNINGS)
    }
    assert not unexpected


CONFIGS = [
    *((p, 1, "cards") for p in [*sorted(PRESETS), KANGQI_HAND]),
    *((p, None, "cards") for p in sorted(PRESETS)),
    *((p, 1, "list") for p in [*sorted(PRESETS), KANGQI_HAND]),
]


@pytest.mark.parametrize(("preset", "max_hands", "form"), CONFIGS)
def test_pettingzoo_api_and_seed_tests_pass(preset: str, max_hands: int | None, form: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(_make(preset, max_hands=max_hands, action_form=form), num_cycles=1000)
        seed_test(lambda: _make(preset, max_hands=max_hands, action_form=form), num_cycles=500)
    _only_expected_warnings(caught)


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_a_whole_hand_ends_with_every_agent_done_and_its_team_level_change_and_points_as_return(
    preset: str,
) -> None:
    env = _make(preset, max_hands=1, points_weight=1.0)
    returns: dict[str, float] = {}
    for _ in random_steps(env, seed=3, options=reset_options(preset)[1], returns=returns):
        pass
    assert env.agents == [] and env.match.over
    record = env.match.records[-1]
    for seat, agent in enumerate(AGENTS):
        team = team_of(seat)
        change = record.progress_after[team] - record.progress_before[team]
        points = record.total if team != team_of(record.dealer) else 0
        assert returns[agent] == pytest.approx(change + points / 100)
    assert any(returns.values())


def test_zero_sum_returns_sum_to_zero_over_a_match_and_the_winner_gets_more() -> None:
    env = ChaoDipiEnv("classic", max_hands=3, zero_sum=True, points_weight=0.5, win_weight=2.0)
    returns: dict[str, float] = {}
    for _ in random_steps(env, seed=5, returns=returns):
        pass
    assert len(env.match.records) == 3
    assert sum(returns.values()) == pytest.approx(0.0)
    assert returns["player_0"] == returns["player_2"] and returns["player_1"] == returns["player_3"]
    winner = env.match.winner
    assert winner is not None
    assert returns[AGENTS[winner]] - returns[AGENTS[1 - winner]] >= 2 * 2.0


def test_the_observation_is_the_own_view_and_the_mask_only_for_the_seat_to_act() -> None:
    env = ChaoDipiEnv("classic")
    env.reset(seed=1)
    acting = env.agent_selection
    for agent in AGENTS:
        observation = env.observe(agent)
        assert env.observation_space(agent).contains(observation)
        assert observation["action_mask"].any() == (agent == acting)
    assert env.observe(acting)["action_mask"][PASS_ID] == 1


def test_render_is_the_transcript_and_a_bad_action_is_refused_in_one_line() -> None:
    env = ChaoDipiEnv("classic", render_mode="ansi")
    env.reset(seed=2)
    with pytest.raises(ValueError, match=r"action 54 \(done\) is not allowed now; allowed: pass"):
        env.step(DONE)
    with pytest.raises(ValueError, match="step it an action id, not None"):
        env.step(None)
    env.step(PASS_ID)
    text = env.render()
    assert text is not None
    assert text.splitlines() == [
        "── hand 1 · level 2 · dealer decided by declaring · progress 0 : 0 ──",
        "auction:",
        "  0 pass",
    ]
    with pytest.raises(ValueError, match="action_form 'flat': use 'cards' or 'list'"):
        ChaoDipiEnv("classic", action_form="flat")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no preset 'x'"):
        ChaoDipiEnv("x")
    with pytest.raises(ValueError, match=r"dealer 7: a seat, 0 to 3"):
        env.reset(seed=1, options={"dealer": 7})


def test_the_list_form_steps_the_chosen_candidate() -> None:
    env = ChaoDipiEnv("hefei", action_form="list", limit=16)
    env.reset(seed=4)
    seen_full = False
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = observation["action_mask"]
        actions = env.candidate_actions()
        n = len(actions)
        assert mask[:n].all() and not mask[n:].any()
        assert not observation["candidates"][n:].any()
        seen_full |= n == 16
        legal = env.match.legal_actions(AGENTS.index(agent))
        assert all(a in legal for a in actions) and len(set(actions)) == n
        env.step(n - 1)
    assert seen_full  # a bury lists 16 of its millions (and many a follow its few)
    np.testing.assert_array_equal(env.observe(AGENTS[0])["action_mask"], np.zeros(16))


def test_the_loop_in_docs_runs() -> None:
    import contextlib
    import io
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rl-environment.md").read_text()
    code = re.search(r"## The loop\n\n```python\n(.*?)```", text, re.S)
    assert code is not None
    code_text = code.group(1)
    printed = io.StringIO()
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(printed):
        exec(compile(code_text, "docs/rl-environment.md", "exec"), namespace)
    env = namespace["env"]
    assert isinstance(env, ChaoDipiEnv) and env.match.over
    assert printed.getvalue().startswith("── hand 1 · level 2 ·")


def test_the_documented_layout_is_the_encoders() -> None:
    from pathlib import Path

    from chaodipi.rl.encoding import LAYOUT, OBSERVATION_SIZE

    text = (Path(__file__).resolve().parent.parent / "docs" / "rl-environment.md").read_text()
    text = text.split("## Observations", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+)(?:×(\d+))? \|", text, re.M)
    sizes = {name: int(a) * int(b or 1) for name, a, b in rows if name in LAYOUT}
    assert sizes == {name: part.stop - part.start for name, part in LAYOUT.items()}
    assert f"`float32` vector of {OBSERVATION_SIZE} entries" in text


def test_human_rendering_prints_each_line_of_the_transcript_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = ChaoDipiEnv("classic", render_mode="human")
    for _ in random_steps(env, seed=6):
        pass
    printed = capsys.readouterr().out
    assert printed.rstrip("\n") == "\n".join(match_transcript(env.match))
    assert printed.rstrip("\n").endswith(env.render() or "no render")


@pytest.mark.parametrize("preset", ["classic", "anchao"])
def test_render_says_level_2_and_spades_and_the_kitty_the_bury_and_a_hidden_bid(
    preset: str,
) -> None:
    """The first hand (level 2) of seed 2, where seat 1 declares ♠2 and deals: render() says
    trump ♠ at level 2 (``Rank.TWO`` and ``Suit.SPADES`` are both 0), that seat 1 took the
    kitty and buried, and in anchao (暗炒, hidden bids) that it made a bid the table did not
    see, then every bid shown; neither the kitty's cards, the buried ones nor the bid before
    the reveal."""
    env = ChaoDipiEnv(preset, render_mode="ansi")
    for _ in random_steps(env, seed=2):
        if any(isinstance(event.payload, TrumpFixed) for event in env.match.log):
            break
    trump = next(e.payload for e in env.match.log if isinstance(e.payload, TrumpFixed))
    assert (trump.level, trump.suit, trump.dealer) == (Rank.TWO, Suit.SPADES, 1)
    text = env.render()
    assert text is not None
    assert text.splitlines()[0].startswith("── hand 1 · level 2 ·"), text
    assert text.splitlines()[-1] == "trump ♠, level 2; seat 1 leads", text
    flat = " ".join(text.split())
    assert "seat 1 takes the kitty · seat 1 buries 8 cards" in flat, text
    if preset == "anchao":
        assert "seat 1 declares a hidden bid" in flat and "bids shown: seat 1 ♠2" in flat, text
    else:
        assert "seat 1 declares ♠2" in flat, text


def test_reset_refuses_an_unknown_option_in_one_line_naming_it_and_the_options() -> None:
    env = ChaoDipiEnv("kangqi")
    message = r"^reset option 'progres' is not one: use 'progress' or 'dealer'$"
    with pytest.raises(ValueError, match=message):
        env.reset(seed=1, options={"progres": [13, 0], "dealer": 0})
    env.reset(seed=1, options={"progress": [13, 0], "dealer": 0})
    assert env.match.hand.kangqi_hand


def _play(env: ChaoDipiEnv, rng: np.random.Generator, steps: int) -> list[Any]:
    """``steps`` random allowed actions (fewer if the match ends), and what each agent saw."""
    seen: list[Any] = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        observation, reward, termination, truncation, _ = env.last()
        seen.append((agent, reward, termination, truncation, env.rewards.copy()))
        seen.extend(env.observe(a) for a in AGENTS)
        if termination or truncation:
            env.step(None)
            continue
        allowed = np.flatnonzero(observation["action_mask"])
        env.step(int(allowed[rng.integers(len(allowed))]))
    return seen


def _same(first: list[Any], second: list[Any]) -> None:
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        if isinstance(a, dict):
            assert a.keys() == b.keys()
            for key in a:
                np.testing.assert_array_equal(a[key], b[key])
        else:
            assert a == b


@pytest.mark.parametrize("form", ["cards", "list"])
@pytest.mark.parametrize("copy_with", ["pickle", "deepcopy"])
def test_the_environment_pickles_and_its_copy_goes_on_as_it_would_have(
    form: str, copy_with: str
) -> None:
    """Copied mid-hand (mid-play, in the cards form mid-build), the copy and the original given
    the same actions see the same observations, masks, candidates and rewards, through the
    next hand and a reset without a seed (the deal's generator is copied too)."""
    import copy
    import pickle

    env = ChaoDipiEnv("hefei", max_hands=2, action_form=form, points_weight=1.0)  # type: ignore[arg-type]
    env.reset(seed=5)
    _play(env, np.random.default_rng(0), 150)
    twin = pickle.loads(pickle.dumps(env)) if copy_with == "pickle" else copy.deepcopy(env)
    assert twin.match.actions == env.match.actions
    for steps in (400, 2000):  # past the end of the match; then a new one, unseeded
        rng = np.random.default_rng(steps)
        _same(_play(env, rng, steps), _play(twin, np.random.default_rng(steps), steps))
        np.testing.assert_array_equal(env.state(), twin.state())
        env.reset()
        twin.reset()
    assert env.match.seed == twin.match.seed
