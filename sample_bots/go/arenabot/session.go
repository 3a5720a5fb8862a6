package arenabot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// seats are a session's seats, by ticket: each played once, however often it is offered.
type seats struct {
	mu     sync.Mutex
	wg     sync.WaitGroup
	known  map[string]bool // tickets in play or over
	played int             // seats played to their MatchOver
	lost   int             // seats given up: their stream failed past the retries
}

// playSession enters the arena with the token and plays every seat offered until the arena
// ends the session, then finishes the seats in hand.
func (b *bot) playSession() error {
	request := &pb.EnterRequest{
		Token:           b.options.Token,
		ProtocolVersion: ProtocolVersion,
		BotName:         b.options.Name,
		Capacity:        uint32(b.options.Capacity),
		Instance:        randomInstance(), // the same on every Enter of this process
		BotVersion:      b.options.BotVersion,
	}
	s := &seats{known: map[string]bool{}}
	failure := b.enter(request, s)
	s.wg.Wait()
	if failure != nil {
		return failure
	}
	lost := ""
	if s.lost > 0 {
		lost = fmt.Sprintf(", %d given up", s.lost)
	}
	logLine("", fmt.Sprintf("session over: %d seats played%s", s.played, lost))
	return nil
}

// enter holds the session's stream, entering again after a drop; nil once the arena has
// ended the session, else why it was refused or lost.
func (b *bot) enter(request *pb.EnterRequest, s *seats) error {
	r := &retries{options: b.options}
	entered := false
	for {
		err := b.enterOnce(request, s, func(message *pb.Entered) {
			again := "entered"
			if entered {
				again = "re-entered"
			}
			entered = true
			r.answered()
			logLine("", fmt.Sprintf("%s session %s (up to %d games at once)", again,
				message.GetSession(), message.GetCapacity()))
		})
		if err == nil {
			return nil // status OK: the arena wants no more games from this process
		}
		code := status.Code(err)
		if entered && (code == codes.FailedPrecondition || code == codes.Unauthenticated) {
			logLine("", fmt.Sprintf("the arena no longer takes this token (%s): its run is over", describe(err)))
			return nil
		}
		reached := r.reached
		if r.again(err) {
			if reached {
				logLine("", fmt.Sprintf("session dropped (%s): entering again", describe(err)))
			}
			continue
		}
		switch {
		case !entered && code == codes.Unavailable:
			return r.unreachable(err)
		case code == codes.Unauthenticated:
			return fmt.Errorf("the arena at %s refused the session (%s): check the token in "+
				"$ARENA_TOKEN (or the file given with --token-file)", b.options.Address, describe(err))
		case code == codes.FailedPrecondition:
			return fmt.Errorf("the arena at %s refused the session (%s)", b.options.Address, describe(err))
		case entered:
			return fmt.Errorf("the session at %s was lost after %d retries (%s)", b.options.Address, r.attempt, describe(err))
		}
		return fmt.Errorf("could not enter the arena at %s (%s)", b.options.Address, describe(err))
	}
}

// enterOnce is one Enter stream: nil when it ended with status OK.
func (b *bot) enterOnce(request *pb.EnterRequest, s *seats, onEntered func(*pb.Entered)) error {
	ctx, cancel := context.WithCancel(background)
	defer cancel()
	stream, err := b.client.Enter(ctx, request)
	if err != nil {
		return err
	}
	for {
		message, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch m := message.GetMessage().(type) {
		case *pb.EnterResponse_Entered:
			onEntered(m.Entered)
		case *pb.EnterResponse_Seat:
			b.offered(m.Seat, s)
		}
	}
}

// offered plays an offered seat in a goroutine of its own, unless it is in play or over.
func (b *bot) offered(offer *pb.SeatOffer, s *seats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[offer.GetTicket()] {
		return // offered again after a re-enter
	}
	s.known[offer.GetTicket()] = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		label := fmt.Sprintf("seat %d", offer.GetSeat())
		_, err := b.playSeat(offer.GetTicket(), label, true)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.lost++
			logLine(label, err.Error()+"; that seat is given up")
			return
		}
		s.played++
	}()
}
