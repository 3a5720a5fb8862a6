package arenabot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// seatHints say what to do when the arena refuses a ticket.
var seatHints = map[codes.Code]string{
	codes.Unauthenticated: "check the ticket in $ARENA_TICKET: each seat of each table has its own",
	codes.NotFound:        "a ticket plays one match: ask for a ticket of a table still open",
}

// playSeat plays the seat of ticket to its MatchOver, opening its stream again after a drop.
// label names the seat in log lines ("" for a lone seat); contacted: the arena has answered
// already (a session's seat), so a refused connection is a drop.
func (b *bot) playSeat(ticket, label string, contacted bool) (*pb.MatchOver, error) {
	game := &Game{Rand: b.newRand()}
	r := &retries{options: b.options, reached: contacted}
	for {
		over, messages, err := b.playStream(ticket, &label, game)
		if over != nil {
			return over, nil
		}
		if messages > 0 {
			r.answered()
		}
		reached := r.reached
		if r.again(err) {
			if reached {
				logLine(label, fmt.Sprintf("stream dropped (%s): connecting again", describe(err)))
			}
			continue
		}
		if !r.reached && status.Code(err) == codes.Unavailable {
			return nil, r.unreachable(err)
		}
		switch status.Code(err) {
		case codes.Unavailable, codes.Internal, codes.Unknown, codes.InvalidArgument:
			return nil, fmt.Errorf("the seat's stream at %s kept failing after %d retries (%s)",
				b.options.Address, r.attempt, describe(err))
		}
		message := fmt.Sprintf("the arena at %s refused the ticket (%s)", b.options.Address, describe(err))
		if hint, ok := seatHints[status.Code(err)]; ok {
			message += ": " + hint
		}
		return nil, errors.New(message)
	}
}

// playStream is one Play stream: the seat's messages until its MatchOver (returned), or the
// error the stream ended with; messages counts what the server sent.
func (b *bot) playStream(ticket string, label *string, game *Game) (over *pb.MatchOver, messages int, err error) {
	ctx, cancel := context.WithCancel(background)
	defer cancel()
	stream, err := b.client.Play(ctx)
	if err != nil {
		return nil, 0, err
	}
	hello := &pb.Hello{Ticket: ticket, ProtocolVersion: ProtocolVersion, BotName: b.options.Name}
	if err := stream.Send(&pb.PlayRequest{Request: &pb.PlayRequest_Hello{Hello: hello}}); err != nil {
		_, err = stream.Recv() // the status says why
		return nil, 0, err
	}
	var open *pb.Decision // the decision answered last, while it may still be refused
	refused := map[uint64]bool{}
	answer := func(decision *pb.Decision, action *pb.Action, fallback bool) error {
		message := &pb.Answer{DecisionId: decision.GetDecisionId(), Action: action, Fallback: fallback}
		return stream.Send(&pb.PlayRequest{Request: &pb.PlayRequest_Answer{Answer: message}})
	}
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return nil, messages, errEarlyEnd
		}
		if err != nil {
			return nil, messages, err
		}
		messages++
		switch response := message.GetResponse().(type) {
		case *pb.PlayResponse_Welcome:
			game.Welcome = response.Welcome
			if *label != "" {
				*label = fmt.Sprintf("seat %d of %s", response.Welcome.GetSeat(), response.Welcome.GetTable())
			}
		case *pb.PlayResponse_Snapshot:
			game.Snapshot, game.Events = response.Snapshot, nil
		case *pb.PlayResponse_Decision:
			decision := response.Decision
			game.Events = append(game.Events, decision.GetEvents()...)
			open = decision
			action, fallback := b.think(game, decision, *label)
			if err := answer(decision, action, fallback); err != nil {
				_, err = stream.Recv()
				return nil, messages, err
			}
		case *pb.PlayResponse_Refused:
			r := response.Refused
			logLine(*label, fmt.Sprintf("refused (%s): %s", r.GetCode(), r.GetReason()))
			stillOpen := r.GetCode() == pb.RefusalCode_REFUSAL_CODE_ILLEGAL ||
				r.GetCode() == pb.RefusalCode_REFUSAL_CODE_MALFORMED
			if stillOpen && open != nil && r.GetDecisionId() == open.GetDecisionId() && !refused[r.GetDecisionId()] {
				refused[r.GetDecisionId()] = true // once: then the clock decides
				game.fellBack(*label, fmt.Sprintf("the arena refused the answer to decision %d (%s)",
					r.GetDecisionId(), r.GetReason()), "answer one of the decision's legal actions")
				if err := answer(open, SafeAction(open.GetLegal()), true); err != nil {
					_, err = stream.Recv()
					return nil, messages, err
				}
			}
		case *pb.PlayResponse_Strike:
			s := response.Strike
			logLine(*label, fmt.Sprintf("strike %d of %d: the arena played for this seat", s.GetStrikes(), s.GetMaxStrikes()))
			open = nil
		case *pb.PlayResponse_MatchOver:
			m := response.MatchOver
			game.Events = append(game.Events, m.GetEvents()...)
			winner := "none"
			if m.Winner != nil {
				winner = fmt.Sprint(m.GetWinner())
			}
			logLine(*label, fmt.Sprintf("match over: %s, winner team %s, %d hands, %s",
				m.GetEnding(), winner, m.GetHands(), m.GetReason()))
			finish(stream)
			return m, messages, nil
		}
	}
}

// finish ends a stream whose match is over as the server ends it: our side closed, then its
// status read (cancelling at once could cut the server off before it is done with the seat).
func finish(stream pb.ArenaService_PlayClient) {
	_ = stream.CloseSend()
	drained := make(chan struct{})
	go func() {
		for {
			if _, err := stream.Recv(); err != nil {
				break
			}
		}
		close(drained)
	}()
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
	}
}

// think is decide's answer, or SafeAction when it has none Margin before the deadline; fallback
// says the answer is SafeAction, sent for decide (Answer.fallback).
func (b *bot) think(game *Game, decision *pb.Decision, label string) (action *pb.Action, fallback bool) {
	budget := time.Duration(decision.GetDeadlineMs())*time.Millisecond - Margin
	if budget < 20*time.Millisecond {
		budget = 20 * time.Millisecond
	}
	answers := make(chan *pb.Action, 1) // buffered: a late decide never blocks
	go func() { answers <- b.decide(game, decision) }()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case action := <-answers:
		if action == nil || action.GetAction() == nil {
			game.fellBack(label, fmt.Sprintf("decide gave no action for decision %d", decision.GetDecisionId()),
				"return one of the decision's legal actions")
			return SafeAction(decision.GetLegal()), true
		}
		return action, false
	case <-timer.C:
		game.fellBack(label, fmt.Sprintf("decide did not answer decision %d within %d ms (the deadline less the kit's Margin)",
			decision.GetDecisionId(), budget.Milliseconds()),
			"make decide quicker (the Decision's deadline_ms is its time), or give the bot more time (decision_ms)")
		return SafeAction(decision.GetLegal()), true
	}
}

// fellBack notes an answer sent for decide (SafeAction, marked Answer.fallback); the game's
// first says so on stderr, naming the seat, why and the fix (the arena counts them all).
func (game *Game) fellBack(label, why, fix string) {
	if game.fallbacks == 0 {
		seat := "this seat"
		if game.Welcome != nil {
			seat = fmt.Sprintf("seat %d of table %s", game.Welcome.GetSeat(), game.Welcome.GetTable())
		}
		logLine(label, fmt.Sprintf("%s: %s; answered SafeAction for you (counted as a fallback in the report; said once a game): %s",
			seat, why, fix))
	}
	game.fallbacks++
}
