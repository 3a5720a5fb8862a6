package arenabot

import (
	"math/rand"
	"testing"

	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
)

func count(cards []pb.Card) map[pb.Card]int {
	counts := map[pb.Card]int{}
	for _, card := range cards {
		counts[card]++
	}
	return counts
}

// Every random play is all of an option's forced cards and k_min..k_max cards of its pool,
// a pool card taken at most as often as it is listed; every count of k comes up.
func TestRandomPlaysAreForcedCardsAndSomeOfThePool(t *testing.T) {
	option := &pb.CardOption{
		Forced: []pb.Card{pb.Card_CARD_SPADES_2},
		Pool:   []pb.Card{pb.Card_CARD_HEARTS_5, pb.Card_CARD_HEARTS_5, pb.Card_CARD_CLUBS_ACE},
		KMin:   1,
		KMax:   3,
	}
	legal := &pb.LegalActions{Phase: pb.Phase_PHASE_PLAY, CardOptions: []*pb.CardOption{option}}
	rng := rand.New(rand.NewSource(1))
	sizes := map[int]bool{}
	for i := 0; i < 200; i++ {
		cards := RandomAction(legal, rng).GetPlay().GetCards()
		if len(cards) < 2 || len(cards) > 4 || cards[0] != pb.Card_CARD_SPADES_2 {
			t.Fatalf("not the forced card and 1-3 of the pool: %v", cards)
		}
		pool := count(option.Pool)
		for card, n := range count(cards[1:]) {
			if n > pool[card] {
				t.Fatalf("%v taken %d times from %v", card, n, option.Pool)
			}
		}
		sizes[len(cards)-1] = true
	}
	if len(sizes) != 3 {
		t.Fatalf("k took the values %v, not all of 1, 2, 3", sizes)
	}
}

// A bid phase: pass and each bid come up, as Declare while dealing and Fry after the burial.
func TestRandomBidsAreDeclaredOrFriedAsThePhaseWants(t *testing.T) {
	bid := &pb.Bid{Kind: pb.BidKind_BID_KIND_SUIT_PAIR, Cards: []pb.Card{pb.Card_CARD_CLUBS_2, pb.Card_CARD_CLUBS_2}, Suit: pb.Suit_SUIT_CLUBS}
	rng := rand.New(rand.NewSource(2))
	for _, phase := range []pb.Phase{pb.Phase_PHASE_DECLARE, pb.Phase_PHASE_FRY} {
		legal := &pb.LegalActions{Phase: phase, CanPass: true, Bids: []*pb.Bid{bid}}
		seen := map[string]bool{}
		for i := 0; i < 100; i++ {
			action := RandomAction(legal, rng)
			switch {
			case action.GetPassTurn() != nil:
				seen["pass"] = true
			case phase == pb.Phase_PHASE_DECLARE && action.GetDeclare() == bid:
				seen["bid"] = true
			case phase == pb.Phase_PHASE_FRY && action.GetFry() == bid:
				seen["bid"] = true
			default:
				t.Fatalf("%v: not a pass nor the bid as the phase wants it: %v", phase, action)
			}
		}
		if len(seen) != 2 {
			t.Fatalf("%v: only %v came up", phase, seen)
		}
	}
}

// The safe action is the server's own default: pass, else the first bid, else the first
// option's forced cards and the first k_min of its pool (buried while burying).
func TestSafeActionIsTheServersDefault(t *testing.T) {
	bid := &pb.Bid{Kind: pb.BidKind_BID_KIND_SUIT_PAIR, Suit: pb.Suit_SUIT_CLUBS}
	if SafeAction(&pb.LegalActions{Phase: pb.Phase_PHASE_FRY, CanPass: true, Bids: []*pb.Bid{bid}}).GetPassTurn() == nil {
		t.Fatal("not a pass when passing is allowed")
	}
	if SafeAction(&pb.LegalActions{Phase: pb.Phase_PHASE_DECLARE, Bids: []*pb.Bid{bid}}).GetDeclare() != bid {
		t.Fatal("not the first bid when passing is not allowed")
	}
	option := &pb.CardOption{Forced: []pb.Card{pb.Card_CARD_SPADES_2}, Pool: []pb.Card{pb.Card_CARD_HEARTS_5, pb.Card_CARD_CLUBS_ACE}, KMin: 1, KMax: 2}
	legal := &pb.LegalActions{Phase: pb.Phase_PHASE_BURY, CardOptions: []*pb.CardOption{option}}
	cards := SafeAction(legal).GetBury().GetCards()
	if len(cards) != 2 || cards[0] != pb.Card_CARD_SPADES_2 || cards[1] != pb.Card_CARD_HEARTS_5 {
		t.Fatalf("not the forced card and the first of the pool, buried: %v", cards)
	}
}
