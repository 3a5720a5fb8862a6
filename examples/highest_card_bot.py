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
