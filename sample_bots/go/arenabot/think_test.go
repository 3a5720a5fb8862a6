package arenabot

import (
	"testing"

	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
	"google.golang.org/grpc/codes"
)

func playDecision(deadlineMs uint32) *pb.Decision {
	option := &pb.CardOption{Pool: []pb.Card{pb.Card_CARD_SPADES_2, pb.Card_CARD_HEARTS_5}, KMin: 1, KMax: 1}
	legal := &pb.LegalActions{Phase: pb.Phase_PHASE_PLAY, CardOptions: []*pb.CardOption{option}}
	return &pb.Decision{DecisionId: 7, Legal: legal, DeadlineMs: deadlineMs}
}

// A decide that never returns is answered for with the safe action (it cannot be late
// enough to matter: it never answers at all).
func TestADecideThatNeverReturnsIsAnsweredForWithTheSafeAction(t *testing.T) {
	never := make(chan struct{})
	defer close(never)
	b := &bot{decide: func(*Game, *pb.Decision) *pb.Action { <-never; return nil }}
	game := &Game{}
	action, fallback := b.think(game, playDecision(200), "test")
	if cards := action.GetPlay().GetCards(); len(cards) != 1 || cards[0] != pb.Card_CARD_SPADES_2 {
		t.Fatalf("not the safe action (the first card of the pool): %v", action)
	}
	if !fallback || game.fallbacks != 1 {
		t.Fatalf("the safe action is not marked as a fallback (%v, %d)", fallback, game.fallbacks)
	}
}

// decide's own answer goes when it has one; a nil one is replaced by the safe action.
func TestDecideSAnswerGoesAndANilOneIsReplaced(t *testing.T) {
	mine := &pb.Action{Action: &pb.Action_Play{Play: &pb.Cards{Cards: []pb.Card{pb.Card_CARD_HEARTS_5}}}}
	b := &bot{decide: func(*Game, *pb.Decision) *pb.Action { return mine }}
	if action, fallback := b.think(&Game{}, playDecision(60_000), "test"); action != mine || fallback {
		t.Fatalf("decide's action was not sent as its own: %v (fallback %v)", action, fallback)
	}
	b.decide = func(*Game, *pb.Decision) *pb.Action { return nil }
	action, fallback := b.think(&Game{}, playDecision(60_000), "test")
	if cards := action.GetPlay().GetCards(); len(cards) != 1 || cards[0] != pb.Card_CARD_SPADES_2 || !fallback {
		t.Fatalf("a nil action was not replaced by the safe one, as a fallback: %v (fallback %v)", cards, fallback)
	}
}

func TestStatusCodesAreNamedAsTheGRPCSpecWritesThem(t *testing.T) {
	for code, name := range map[codes.Code]string{
		codes.OK: "OK", codes.Unauthenticated: "UNAUTHENTICATED",
		codes.FailedPrecondition: "FAILED_PRECONDITION", codes.DeadlineExceeded: "DEADLINE_EXCEEDED",
	} {
		if got := codeName(code); got != name {
			t.Errorf("codeName(%v) = %q, want %q", code, got, name)
		}
	}
}
