"""The trust rules of docs/trust.md hold on a standing ladder as in a tournament, checked on what
the ladder actually sent its bots and stored:

* no message to a seat carries what that seat may not see (the check of
  tests/test_server_leaks.py, on every message a resident bot's sessions were sent);
* no session is ever given two seats of one deal (not its partner's, not one of the pair's other
  game): no bot watches its twin;
* no deal can be guessed: each pair's seed is a keyed hash of its deal number, and no small seed
  deals a seat's cards;
* a pair's games are stored (and so shown on the pages) only once both have ended.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from chaodipi.arena.ladder import PairKind, PairState, Store
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.records import replay_record, unpack
from tests.ladder_support import Resident, Running, ladder_config, run_ladder
from tests.test_deals import first_packet
from tests.test_server_leaks import check_seat


def _seats_by_table(
    messages: list[pb.PlayResponse],
) -> dict[tuple[str, int], list[pb.PlayResponse]]:
    """A session's messages split by the seat they were for: with capacity 1 a session plays one
    seat at a time, each stream from its Welcome to its MatchOver."""
    seats: dict[tuple[str, int], list[pb.PlayResponse]] = defaultdict(list)
    now: tuple[str, int] | None = None
    for message in messages:
        if message.WhichOneof("response") == "welcome":
            now = (message.welcome.table, message.welcome.seat)
        assert now is not None, "a message before any Welcome"
        seats[now].append(message)
    return seats


def test_a_ladders_bots_see_only_their_own_never_a_twin_and_cannot_guess_a_deal(
    tmp_path: Path,
) -> None:
    config = ladder_config(tmp_path, preset="anchao", rungs=["random"], fault_games=1000)
    residents: list[Resident] = []

    async def add(running: Running) -> None:
        token = await running.ladder.add_bot("snoop")
        residents.append(Resident(running.address, token, processes=5, capacity=1))

    def enough(store: Store) -> bool:
        ladder = running_ladder[0]
        for playing in ladder.live.playing():  # one game of a pair over: nothing of it stored
            if playing.games_over == 1:
                assert store.games(pair_id=playing.pair) == []
        return len(store.pairs()) >= 6

    running_ladder: list[object] = []

    def ready(running: Running) -> object:
        running_ladder.append(running.ladder)
        return add(running)

    running = run_ladder(config, enough, on_ready=ready)
    for resident in residents:
        resident.join()
    store = running.store
    games = store.games()
    tables = {}
    logs = {}
    seeds = {}
    for game in games:
        record = store.record(game.id)
        assert record is not None
        lines = unpack(record)
        header = lines[0]
        tables[header["table"]] = game.pair_id
        logs[header["table"]] = {e.seq: e for e in replay_record(lines).log}
        seeds[game.pair_id] = header["seed"]

    checked: Counter[str] = Counter()
    for session in residents[0].messages:
        seats = _seats_by_table(session)
        deals = [tables[table] for table, _ in seats if table in tables]
        assert len(deals) == len(set(deals)), f"a session held two seats of one deal: {deals}"
        for (table, seat), messages in seats.items():
            if table in logs:
                checked += check_seat(seat, messages, True, logs[table])
                checked["seats"] += 1
    assert checked["seats"] >= 8 and checked["private events"] > 0 and checked["hidden bids"] > 0

    for pair, seed in seeds.items():  # the seed is keyed: no small number deals these cards
        assert seed != str(pair)
        seen = first_packet(seed)
        assert all(first_packet(guess) != seen for guess in range(200))

    rated = store.pairs(kinds=(PairKind.RATED,), states=(PairState.DONE,))
    assert all(len(store.games(pair_id=p.id)) == 2 for p in rated)
    store.close()
