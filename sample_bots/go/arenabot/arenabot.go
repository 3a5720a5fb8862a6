// Package arenabot is the Go kit for the 炒地皮 arena: write a Decide function, call Run.
//
//	func main() {
//		arenabot.Run(func(game *arenabot.Game, decision *pb.Decision) *pb.Action {
//			return arenabot.RandomAction(decision.GetLegal(), game.Rand)
//		})
//	}
//
// Run plays the way the arena asks, read from the environment as the arena hands it: with a
// session token ($ARENA_TOKEN, or --token-file PATH) it enters the arena and plays every seat
// it is offered, up to --capacity at once, each on a Play stream and a goroutine of its own,
// until the arena ends the session; with a seat's ticket ($ARENA_TICKET) it plays that one
// seat. It sends the Hello, calls decide for each Decision and answers SafeAction instead
// when decide has not returned Margin before the deadline, answers a refused decision again
// (once, with SafeAction), marks every SafeAction it sends for decide as a fallback
// (Answer.fallback: the arena counts it against the bot) and says the game's first on stderr,
// keeps trying for --wait-for-arena seconds when nothing listens yet,
// opens a dropped stream again with backoff (a seat with its ticket, a session with its token
// and instance id, whose open seats the arena then offers again: a seat in play is never
// played twice), and exits with one line on stderr and status 1 when the arena refuses it or
// is lost. docs/writing-a-bot.md ("Go") walks through it.
package arenabot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	mathrand "math/rand"
	"os"
	"strings"
	"sync"
	"time"

	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ProtocolVersion is the version of the arena's protocol this kit speaks.
const ProtocolVersion = 2

// Margin is how long before a decision's deadline SafeAction goes if decide has not answered.
const Margin = 150 * time.Millisecond

// Game is one seat's game: what the server has told the seat so far, and room for the bot's
// own state. Each game has its own; decide may keep what it likes in State.
type Game struct {
	Welcome  *pb.Welcome  // the table, the seat, the clocks (again after a reconnect)
	Snapshot *pb.Snapshot // the seat's whole view at the last (re)connect
	Events   []*pb.Event  // every event since that Snapshot, in order
	Rand     *mathrand.Rand
	State    interface{} // the bot's own, for this game only

	fallbacks int // answers sent for decide in this game (SafeAction, Answer.fallback)
}

// Decide answers one decision of one game with one of its legal actions. In a session it is
// called for several games at once, from their goroutines. It runs in a goroutine of its own:
// one that has not returned Margin before the deadline is answered for with SafeAction (a
// fallback, counted against the bot), and its late answer is dropped (it may then still run when the game's next decision comes).
type Decide func(game *Game, decision *pb.Decision) *pb.Action

// Options are what the command line and the environment say (see Flags).
type Options struct {
	Address      string
	Name         string
	Capacity     int
	Seed         int64 // the first game's random seed (0: a random one); the next games count up
	WaitForArena time.Duration
	Reconnects   int // drops in a row a stream is opened again after
	Ticket       string
	Token        string
	BotVersion   string // the version of the bot this process runs (a ladder rates each apart)
}

// Flags reads the options from args (the command line after the program's name) and the
// environment ($ARENA_ADDRESS, $ARENA_TOKEN, $ARENA_TICKET, $ARENA_BOT_VERSION), as every bot
// of the arena does.
func Flags(args []string) (Options, error) {
	set := flag.NewFlagSet("bot", flag.ContinueOnError)
	address := os.Getenv("ARENA_ADDRESS")
	if address == "" {
		address = "127.0.0.1:50051"
	}
	options := Options{Reconnects: 5}
	set.StringVar(&options.Address, "address", address, "the arena server, HOST:PORT ($ARENA_ADDRESS when set)")
	set.StringVar(&options.Name, "name", "go-bot", "name shown in logs and reports")
	set.StringVar(&options.BotVersion, "bot-version", os.Getenv("ARENA_BOT_VERSION"),
		"the version of the bot this process runs: a standing ladder rates each version apart ($ARENA_BOT_VERSION when set)")
	set.IntVar(&options.Capacity, "capacity", 4, "in a session, games to play at once")
	set.Int64Var(&options.Seed, "seed", 0, "random seed of the first game (0: a random one)")
	wait := set.Float64("wait-for-arena", 30, "seconds to keep trying an arena that does not listen yet")
	tokenFile := set.String("token-file", "", "read the session token from this file (default: $ARENA_TOKEN)")
	token := set.String("token", "", "session token (prefer $ARENA_TOKEN: other users can read a command line)")
	ticket := set.String("ticket", "", "one seat's ticket (prefer $ARENA_TICKET: other users can read a command line)")
	set.SetOutput(io.Discard) // a bad flag is one line (Run writes it); --help the whole list
	if err := set.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			set.SetOutput(os.Stderr)
			fmt.Fprintf(os.Stderr, "usage: %s [flags]: a bot for the 炒地皮 arena; the session token "+
				"comes from $ARENA_TOKEN (or --token-file), a seat's ticket from $ARENA_TICKET\n", os.Args[0])
			set.PrintDefaults()
		}
		return options, err
	}
	if set.NArg() > 0 {
		return options, fmt.Errorf("unexpected arguments: %s", strings.Join(set.Args(), " "))
	}
	if options.Capacity < 1 {
		return options, fmt.Errorf("--capacity must be at least 1, not %d", options.Capacity)
	}
	options.WaitForArena = time.Duration(*wait * float64(time.Second))
	options.Ticket, options.Token = os.Getenv("ARENA_TICKET"), os.Getenv("ARENA_TOKEN")
	set.Visit(func(f *flag.Flag) {
		if f.Name == "token" || f.Name == "ticket" {
			logLine("", fmt.Sprintf("warning: --%s puts a secret on the command line, which every "+
				"user of this machine can read (ps, /proc): pass it in $ARENA_%s instead",
				f.Name, strings.ToUpper(f.Name)))
		}
	})
	if *ticket != "" {
		options.Ticket = *ticket
	}
	if *token != "" {
		options.Token = *token
	} else if *tokenFile != "" {
		data, err := os.ReadFile(*tokenFile)
		if err != nil {
			return options, fmt.Errorf("cannot read the session token (--token-file): %v", err)
		}
		if options.Token = strings.TrimSpace(string(data)); options.Token == "" {
			return options, fmt.Errorf("the session token file %s is empty", *tokenFile)
		}
	}
	if options.Ticket == "" && options.Token == "" {
		return options, errors.New("no session token and no ticket: set ARENA_TOKEN (or pass " +
			"--token-file PATH) to play the games the arena offers, or ARENA_TICKET to play one seat")
	}
	return options, nil
}

// Run reads the options (Flags), plays (Play) and exits: status 0 once the seat's match or the
// session is over, 1 when the arena refused the bot or was lost, 2 for a bad command line.
func Run(decide Decide) {
	options, err := Flags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		logLine("", err.Error())
		os.Exit(2)
	}
	if err := Play(options, decide); err != nil {
		logLine("", err.Error())
		os.Exit(1)
	}
	os.Exit(0)
}

// Play plays what the options say: one seat (a ticket wins over a token) or a session. The
// error is one line saying what went wrong and what to do.
func Play(options Options, decide Decide) error {
	conn, err := grpc.Dial(options.Address, grpc.WithInsecure(), grpc.WithConnectParams(
		grpc.ConnectParams{ // see an arena that starts (or restarts) at once, not minutes later
			Backoff:           backoff.Config{BaseDelay: 200 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 5 * time.Second,
		}))
	if err != nil {
		return fmt.Errorf("cannot use the address %q: %v", options.Address, err)
	}
	defer conn.Close()
	b := &bot{options: options, client: pb.NewArenaServiceClient(conn), decide: decide}
	if options.Ticket != "" {
		_, err := b.playSeat(options.Ticket, "", false)
		return err
	}
	return b.playSession()
}

type bot struct {
	options Options
	client  pb.ArenaServiceClient
	decide  Decide
	mu      sync.Mutex
	games   int64 // seats started: the next game's seed is options.Seed + games
}

func (b *bot) newRand() *mathrand.Rand {
	b.mu.Lock()
	defer b.mu.Unlock()
	seed := b.options.Seed + b.games
	b.games++
	if b.options.Seed == 0 {
		seed = time.Now().UnixNano() + b.games
	}
	return mathrand.New(mathrand.NewSource(seed))
}

// errEarlyEnd: the server ended a seat's stream before the match was over.
var errEarlyEnd = errors.New("the server ended the stream before the match was over")

// retries decides when a failed stream is opened again: until the arena has answered once, a
// refused connection (UNAVAILABLE) for up to WaitForArena; after, up to Reconnects drops in a
// row (a drop after the stream got through starts the count again).
type retries struct {
	options Options
	reached bool      // the arena has answered once
	since   time.Time // the first refused connection, before the arena answered
	attempt int       // drops in a row
}

func (r *retries) again(err error) bool {
	code := status.Code(err)
	if errors.Is(err, errEarlyEnd) {
		code = codes.Unavailable
	}
	if !r.reached && code == codes.Unavailable {
		if r.since.IsZero() {
			r.since = time.Now()
			logLine("", fmt.Sprintf("no arena at %s yet (UNAVAILABLE): trying again for up to %g s",
				r.options.Address, r.options.WaitForArena.Seconds()))
		}
		if time.Since(r.since) >= r.options.WaitForArena {
			return false
		}
		time.Sleep(time.Duration(min(1000, 100<<min(r.attempt+1, 4))) * time.Millisecond)
		r.attempt++
		return true
	}
	switch code {
	case codes.Unavailable, codes.Internal, codes.Unknown, codes.InvalidArgument:
	default:
		return false
	}
	if r.attempt >= r.options.Reconnects {
		return false
	}
	r.attempt++
	time.Sleep(time.Duration(min(2000, 100<<r.attempt)) * time.Millisecond)
	return true
}

func (r *retries) answered() {
	r.reached, r.attempt = true, 0
}

// unreachable: nothing answered at the address, for as long as we waited.
func (r *retries) unreachable(err error) error {
	return fmt.Errorf("no arena answered at %s in %.0f s (%s): start the arena first, or check "+
		"the address (--address, $ARENA_ADDRESS); --wait-for-arena SECONDS waits longer for it",
		r.options.Address, time.Since(r.since).Seconds(), describe(err))
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// describe is a gRPC status as people read it: "UNAUTHENTICATED: unknown or wrong ticket".
func describe(err error) string {
	if errors.Is(err, errEarlyEnd) {
		return err.Error()
	}
	st := status.Convert(err)
	message := st.Message()
	if message == "" {
		message = "no details"
	}
	return codeName(st.Code()) + ": " + strings.Join(strings.Fields(message), " ")
}

// codeName is a status code as the gRPC spec writes it: FAILED_PRECONDITION, not
// FailedPrecondition.
func codeName(code codes.Code) string {
	if code == codes.OK {
		return "OK"
	}
	var name strings.Builder
	for i, r := range code.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			name.WriteByte('_')
		}
		name.WriteRune(r)
	}
	return strings.ToUpper(name.String())
}

// logLine writes one whole line to stderr (seats log from goroutines of their own), after the
// seat's label when there is one ("seat 2 of t3: ...").
var logMutex sync.Mutex

func logLine(label, text string) {
	logMutex.Lock()
	defer logMutex.Unlock()
	if label != "" {
		text = label + ": " + text
	}
	fmt.Fprintln(os.Stderr, strings.Join(strings.Fields(text), " "))
}

func randomInstance() string {
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return fmt.Sprintf("%016x", time.Now().UnixNano())
	}
	return hex.EncodeToString(id)
}

// background is the context every stream starts from (a stream is cancelled when it ends).
var background = context.Background()
