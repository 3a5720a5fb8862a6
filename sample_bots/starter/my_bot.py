# A starter bot, written by `arena init`: it plays the highest card it legally can.
# Change `decide`: it gets your seat's view (your cards, the trick, the trump, the hand's events,
# view.legal: every legal action) and returns an action. `arena run arena.toml` plays it.
# The walkthrough is docs/writing-a-bot.md in the project's repository.
from chaodipi.bot import card_action, run_bot


def decide(view):
    legal = view.legal
    if legal.cards is None:  # declaring or frying: pass (or the first bid)
        return legal.default()
    strength = view.trump.strength if view.trump else int  # before trump: by card number
    def best(option):  # the option's forced cards and the strongest k_min of its pool
        return option.forced + tuple(sorted(option.pool, key=strength)[len(option.pool) - option.k_min :])
    cards = max((best(o) for o in legal.cards.options), key=lambda cs: max(map(strength, cs)))
    return card_action(legal.phase, cards)  # Bury while burying, else Play


run_bot(decide)
