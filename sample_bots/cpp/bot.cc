// A random bot for the 炒地皮 arena, in C++17: every move drawn at random among the legal ones.
//
//   make -C sample_bots/cpp               (generates the stubs from the .proto, then compiles)
//   sample_bots/cpp/build/bot --address 127.0.0.1:50051 --ticket TICKET [--seed N] [--name NAME]
//
// The ticket may also come from $ARENA_TICKET, the address from $ARENA_ADDRESS. The contract is
// proto/chaodipi/arena/v2/arena.proto. The protocol, in short:
//   1. open the bidirectional stream ArenaService.Play; send a Hello {ticket, protocol_version 2};
//   2. the server sends a Welcome and a Snapshot (read them or ignore them), then a Decision
//      whenever it is your turn: answer it with an Answer {decision_id, action};
//   3. a Refused means the answer was not accepted: the decision stays open, so answer again;
//   4. a MatchOver ends the match: close your side of the stream and stop.
// Wrong tickets and the like are gRPC statuses (UNAUTHENTICATED, ...), never game messages.

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include <grpcpp/grpcpp.h>

#include "chaodipi/arena/v2/arena.grpc.pb.h"

namespace v2 = chaodipi::arena::v2;

// A random legal action. Card options are chosen uniformly (not weighted by how many plays each
// allows), then k uniformly in [k_min, k_max], then k pool entries without replacement (the pool
// is a multiset: a card listed twice may be drawn twice), plus all the forced cards.
v2::Action RandomAction(const v2::LegalActions& legal, std::mt19937& rng) {
  auto below = [&rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  v2::Action action;
  if (legal.card_options_size() > 0) {
    const v2::CardOption& option = legal.card_options(below(legal.card_options_size()));
    int k = option.k_min() + below(option.k_max() - option.k_min() + 1);
    auto pool = option.pool();  // a copy, shuffled in part: its first k are the draw
    v2::Cards* cards =
        legal.phase() == v2::PHASE_BURY ? action.mutable_bury() : action.mutable_play();
    *cards->mutable_cards() = option.forced();
    for (int i = 0; i < k; ++i) {
      pool.SwapElements(i, i + below(pool.size() - i));
      cards->add_cards(static_cast<v2::Card>(pool[i]));
    }
    return action;
  }
  int choice = below(legal.bids_size() + (legal.can_pass() ? 1 : 0));
  if (choice == legal.bids_size()) {
    action.mutable_pass_turn();
  } else if (legal.phase() == v2::PHASE_FRY) {
    *action.mutable_fry() = legal.bids(choice);
  } else {
    *action.mutable_declare() = legal.bids(choice);
  }
  return action;
}

const char* StatusName(grpc::StatusCode code) {
  static const char* names[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
      "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? names[code] : "?";
}

[[noreturn]] void Usage(const std::string& problem) {
  std::cerr << problem
            << "\nusage: bot --address HOST:PORT --ticket TICKET [--seed N] [--name NAME]\n";
  std::exit(2);
}

int main(int argc, char** argv) {
  const char* env_address = std::getenv("ARENA_ADDRESS");
  const char* env_ticket = std::getenv("ARENA_TICKET");
  std::string address = env_address ? env_address : "127.0.0.1:50051";
  std::string ticket = env_ticket ? env_ticket : "";
  std::string name = "cpp-random";
  unsigned seed = std::random_device{}();
  for (int i = 1; i < argc; i += 2) {
    std::string key = argv[i];
    if (i + 1 >= argc) Usage("bad argument: " + key);
    std::string value = argv[i + 1];
    if (key == "--address") address = value;
    else if (key == "--ticket") ticket = value;
    else if (key == "--name") name = value;
    else if (key == "--seed") seed = static_cast<unsigned>(std::stoul(value));
    else Usage("bad argument: " + key);
  }
  if (ticket.empty()) Usage("no ticket: pass --ticket or set ARENA_TICKET");
  std::mt19937 rng(seed);

  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v2::ArenaService::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->Play(&context);

  v2::PlayRequest hello;
  hello.mutable_hello()->set_ticket(ticket);
  hello.mutable_hello()->set_protocol_version(2);
  hello.mutable_hello()->set_bot_name(name);
  stream->Write(hello);

  v2::Decision current;  // the open decision (decision_id 0: none yet)
  v2::PlayResponse message;
  bool over = false;
  while (!over && stream->Read(&message)) {
    switch (message.response_case()) {
      case v2::PlayResponse::kDecision:
        current = message.decision();
        break;
      case v2::PlayResponse::kRefused: {  // the decision stays open: answer it again
        const v2::Refused& refused = message.refused();
        std::cerr << "refused (" << v2::RefusalCode_Name(refused.code()) << "): "
                  << refused.reason() << "\n";
        bool still_open = refused.code() == v2::REFUSAL_CODE_ILLEGAL ||
                          refused.code() == v2::REFUSAL_CODE_MALFORMED;
        if (!still_open || !current.has_legal() || refused.decision_id() != current.decision_id())
          continue;
        break;  // with another random move
      }
      case v2::PlayResponse::kStrike:  // too late: the server played for us, the decision closed
        std::cerr << "strike " << message.strike().strikes() << " of "
                  << message.strike().max_strikes() << "\n";
        current.Clear();
        continue;
      case v2::PlayResponse::kMatchOver: {
        const v2::MatchOver& m = message.match_over();
        std::cerr << "match over: " << v2::Ending_Name(m.ending()) << ", winner team "
                  << (m.has_winner() ? std::to_string(m.winner()) : "none") << ", " << m.hands()
                  << " hands, " << m.reason() << "\n";
        over = true;
        continue;
      }
      default:  // Welcome, Snapshot: nothing to answer
        continue;
    }
    v2::PlayRequest answer;
    answer.mutable_answer()->set_decision_id(current.decision_id());
    *answer.mutable_answer()->mutable_action() = RandomAction(current.legal(), rng);
    stream->Write(answer);
  }
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  if (over) return 0;
  if (!status.ok()) {  // a transport problem or a refused connection, not a game outcome
    std::cerr << "stream error: " << StatusName(status.error_code()) << " ("
              << status.error_code() << "): " << status.error_message() << "\n";
  } else {
    std::cerr << "the server ended the stream before the match was over\n";
  }
  return 1;
}
