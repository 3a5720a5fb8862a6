package arenabot

import (
	"math/rand"

	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
)

// RandomAction is a uniformly random choice among the pass and the bids when declaring or
// frying, and when burying or playing a random card option, a random count k of its pool
// (k_min <= k <= k_max) and k random cards of that pool, with all of its forced cards.
func RandomAction(legal *pb.LegalActions, rng *rand.Rand) *pb.Action {
	switch legal.GetPhase() {
	case pb.Phase_PHASE_DECLARE, pb.Phase_PHASE_FRY:
		bids := legal.GetBids()
		choices := len(bids)
		if legal.GetCanPass() {
			choices++ // the last choice: pass
		}
		if choices == 0 {
			return SafeAction(legal)
		}
		if i := rng.Intn(choices); i < len(bids) {
			return bidAction(legal.GetPhase(), bids[i])
		}
		return passAction()
	}
	options := legal.GetCardOptions()
	if len(options) == 0 {
		return SafeAction(legal)
	}
	option := options[rng.Intn(len(options))]
	pool := append([]pb.Card(nil), option.GetPool()...)
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	low, high := int(option.GetKMin()), int(option.GetKMax())
	if high > len(pool) {
		high = len(pool)
	}
	k := low
	if high > low {
		k += rng.Intn(high - low + 1)
	}
	cards := append(append([]pb.Card(nil), option.GetForced()...), pool[:k]...)
	return cardAction(legal.GetPhase(), cards)
}

// SafeAction is the move the server itself plays for a seat whose clock ran out: pass when
// passing is allowed, else the first bid, else the first card option's forced cards and the
// first k_min cards of its pool.
func SafeAction(legal *pb.LegalActions) *pb.Action {
	if legal.GetCanPass() {
		return passAction()
	}
	if bids := legal.GetBids(); len(bids) > 0 {
		return bidAction(legal.GetPhase(), bids[0])
	}
	options := legal.GetCardOptions()
	if len(options) == 0 {
		return passAction() // nothing is legal: the server says so
	}
	option := options[0]
	k := int(option.GetKMin())
	if k > len(option.GetPool()) {
		k = len(option.GetPool())
	}
	cards := append(append([]pb.Card(nil), option.GetForced()...), option.GetPool()[:k]...)
	return cardAction(legal.GetPhase(), cards)
}

func passAction() *pb.Action {
	return &pb.Action{Action: &pb.Action_PassTurn{PassTurn: &pb.Pass{}}}
}

// bidAction shows bid as the phase wants it: Declare while dealing, Fry after the burial.
func bidAction(phase pb.Phase, bid *pb.Bid) *pb.Action {
	if phase == pb.Phase_PHASE_FRY {
		return &pb.Action{Action: &pb.Action_Fry{Fry: bid}}
	}
	return &pb.Action{Action: &pb.Action_Declare{Declare: bid}}
}

// cardAction plays cards as the phase wants them: Bury while burying, else Play.
func cardAction(phase pb.Phase, cards []pb.Card) *pb.Action {
	if phase == pb.Phase_PHASE_BURY {
		return &pb.Action{Action: &pb.Action_Bury{Bury: &pb.Cards{Cards: cards}}}
	}
	return &pb.Action{Action: &pb.Action_Play{Play: &pb.Cards{Cards: cards}}}
}
