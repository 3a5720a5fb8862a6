// The random bot on the Go kit: every move uniformly among the legal ones.
//
//	make -C sample_bots/go
//	ARENA_TICKET=TICKET sample_bots/go/build/bot --address 127.0.0.1:50051 [--seed N] [--name NAME]
//	ARENA_TOKEN=TOKEN sample_bots/go/build/bot --address 127.0.0.1:50051 [--capacity N]
package main

import (
	pb "github.com/chaodipi/arena/gen/go/chaodipi/arena/v2"
	"github.com/chaodipi/arena/sample_bots/go/arenabot"
)

func main() {
	arenabot.Run(func(game *arenabot.Game, decision *pb.Decision) *pb.Action {
		return arenabot.RandomAction(decision.GetLegal(), game.Rand)
	})
}
