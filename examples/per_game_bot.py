"""A bot with state of its own per game: run_bot(new_game=Game) makes a Game for each game."""

import random
import sys

from chaodipi.bot import run_bot


class Game:
    """One game's state: its own random generator, and its decisions so far."""

    def __init__(self):
        self.rng = random.Random()
        self.decisions = 0

    def __call__(self, view):  # decide, for this game only
        self.decisions += 1
        return view.legal.sample(self.rng)


print(run_bot(new_game=Game), file=sys.stderr)
