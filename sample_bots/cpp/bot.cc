// A random bot for the 炒地皮 arena, in C++17: every move drawn at random among the legal ones.
//
//   make -C sample_bots/cpp               (generates the stubs from the .proto, then compiles)
//   ARENA_TOKEN=TOKEN sample_bots/cpp/build/bot --address 127.0.0.1:50051 [--capacity N]
//   ARENA_TICKET=TICKET sample_bots/cpp/build/bot --address 127.0.0.1:50051
//   (both take [--seed N] [--name NAME])
//
// With a session token ($ARENA_TOKEN) the bot holds a session and plays every seat the arena
// offers it, up to --capacity (default 4) at once, each on a thread of its own; with a ticket
// ($ARENA_TICKET) it plays that one seat and exits. The arena sets them itself when it starts
// the bot. --token and --ticket work too, with a warning: every user of the machine can read a
// command line (ps, /proc). The address may also come from $ARENA_ADDRESS. The contract is proto/chaodipi/arena/v2/arena.proto. In short:
//   0. a session: call ArenaService.Enter with an EnterRequest {token, protocol_version 2,
//      capacity, instance}; the server answers Entered, then sends a SeatOffer for each seat
//      to play: play it with its ticket as below, on a stream of its own, while the others go
//      on. The Enter stream ends with status OK when the arena wants no more games: finish the
//      seats in hand and exit. If it drops (UNAVAILABLE), Enter again with the same token and
//      instance: the seats still open are offered again (skip the ones still being played);
//   1. a seat: open the bidirectional stream ArenaService.Play; send a Hello {ticket,
//      protocol_version 2};
//   2. the server sends a Welcome and a Snapshot (read them or ignore them), then a Decision
//      whenever it is your turn: answer it with an Answer {decision_id, action};
//   3. a Refused means the answer was not accepted: the decision stays open, so answer again.
//      Every kit answers an illegal or malformed answer's Refused once, with the safe legal
//      action (the one a Strike plays: SafeAction) and Answer.fallback set (the arena counts it
//      against the bot), and says the game's first on stderr; a second Refused of the same
//      decision is left to the clock;
//   4. a MatchOver ends the match: close your side of the stream and stop.
// Wrong tickets and tokens and the like are gRPC statuses (UNAUTHENTICATED, ...), never game
// messages.
//
// Exit status: 0 when every seat played reached its MatchOver (and, for a session, the Enter
// stream ended OK); 1 otherwise (a refused token or ticket, an unreachable server, a seat cut
// off before its match was over); 2 for bad arguments.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "chaodipi/arena/v2/arena.grpc.pb.h"

namespace v2 = chaodipi::arena::v2;

constexpr int kEnterAttempts = 10;  // Enters in a row that may fail with UNAVAILABLE
constexpr int kDefaultCapacity = 4;

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

// The safe legal action, as the server plays it when the clock runs out: pass when allowed,
// else the first card option's forced cards and the first k_min of its pool, else the first bid.
v2::Action SafeAction(const v2::LegalActions& legal) {
  v2::Action action;
  if (legal.can_pass()) {
    action.mutable_pass_turn();
  } else if (legal.card_options_size() > 0) {
    const v2::CardOption& option = legal.card_options(0);
    v2::Cards* cards =
        legal.phase() == v2::PHASE_BURY ? action.mutable_bury() : action.mutable_play();
    *cards->mutable_cards() = option.forced();
    for (unsigned i = 0; i < option.k_min() && static_cast<int>(i) < option.pool_size(); ++i)
      cards->add_cards(static_cast<v2::Card>(option.pool(i)));
  } else if (legal.bids_size() > 0) {
    if (legal.phase() == v2::PHASE_FRY) {
      *action.mutable_fry() = legal.bids(0);
    } else {
      *action.mutable_declare() = legal.bids(0);
    }
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

std::string Describe(const grpc::Status& status) {  // "UNAUTHENTICATED (16): why"
  return std::string(StatusName(status.error_code())) + " (" +
         std::to_string(status.error_code()) + "): " + status.error_message();
}

// Writes one line to stderr, after the seat's label when there is one ("seat 2 of t3: ..."),
// whole: the seats of a session log from threads of their own.
void Log(const std::string& label, const std::string& text) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::cerr << (label.empty() ? text : label + ": " + text) << std::endl;
}

// Plays one seat on its own Play stream until its MatchOver. Returns true when the match was
// played out to its MatchOver, false when the stream ended before (the reason is logged).
// `label` is empty for a lone seat; in a session it names the seat in the log lines.
bool PlaySeat(v2::ArenaService::Stub& stub, const std::string& ticket, const std::string& name,
              unsigned seed, std::string label) {
  std::mt19937 rng(seed);
  grpc::ClientContext context;
  auto stream = stub.Play(&context);

  v2::PlayRequest hello;
  hello.mutable_hello()->set_ticket(ticket);
  hello.mutable_hello()->set_protocol_version(2);
  hello.mutable_hello()->set_bot_name(name);
  stream->Write(hello);

  v2::Decision current;  // the open decision (decision_id 0: none yet)
  std::set<uint64_t> refused_once;  // decisions answered again after a Refused (once each)
  int fallbacks = 0;                // safe answers sent in this game (the first is said)
  std::string where = "this seat";  // the seat, for the fallback line
  v2::PlayResponse message;
  bool over = false;
  while (!over && stream->Read(&message)) {
    bool fallback = false;
    switch (message.response_case()) {
      case v2::PlayResponse::kWelcome:
        where = "seat " + std::to_string(message.welcome().seat()) + " of table " +
                message.welcome().table();
        if (!label.empty())
          label = "seat " + std::to_string(message.welcome().seat()) + " of " +
                  message.welcome().table();
        continue;
      case v2::PlayResponse::kDecision:
        current = message.decision();
        break;
      case v2::PlayResponse::kRefused: {  // the decision stays open: answer it again
        const v2::Refused& refused = message.refused();
        Log(label, "refused (" + v2::RefusalCode_Name(refused.code()) + "): " + refused.reason());
        bool still_open = refused.code() == v2::REFUSAL_CODE_ILLEGAL ||
                          refused.code() == v2::REFUSAL_CODE_MALFORMED;
        if (!still_open || !current.has_legal() ||
            refused.decision_id() != current.decision_id() ||
            !refused_once.insert(refused.decision_id()).second)  // once: then the clock decides
          continue;
        if (fallbacks++ == 0)
          Log(label, where + ": the arena refused the answer to decision " +
                         std::to_string(refused.decision_id()) + " (" + refused.reason() +
                         "); answered the safe legal action for you (counted as a fallback in "
                         "the report; said once a game): answer one of the decision's legal "
                         "actions");
        fallback = true;
        break;  // with the safe action
      }
      case v2::PlayResponse::kStrike:  // too late: the server played for us, the decision closed
        Log(label, "strike " + std::to_string(message.strike().strikes()) + " of " +
                       std::to_string(message.strike().max_strikes()));
        current.Clear();
        continue;
      case v2::PlayResponse::kMatchOver: {
        const v2::MatchOver& m = message.match_over();
        Log(label, "match over: " + v2::Ending_Name(m.ending()) + ", winner team " +
                       (m.has_winner() ? std::to_string(m.winner()) : "none") + ", " +
                       std::to_string(m.hands()) + " hands, " + m.reason());
        over = true;
        continue;
      }
      default:  // Snapshot: nothing to answer
        continue;
    }
    v2::PlayRequest answer;
    answer.mutable_answer()->set_decision_id(current.decision_id());
    *answer.mutable_answer()->mutable_action() =
        fallback ? SafeAction(current.legal()) : RandomAction(current.legal(), rng);
    answer.mutable_answer()->set_fallback(fallback);
    stream->Write(answer);
  }
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  if (over) return true;
  if (!status.ok()) {  // a transport problem or a refused connection, not a game outcome
    Log(label, "stream error: " + Describe(status));
  } else {
    Log(label, "the server ended the stream before the match was over");
  }
  return false;
}

// The seats a session plays, a thread each. Offer and Finish are called by the session's
// thread only; a seat's thread reports how its match ended, under the mutex, as it ends.
class Seats {
 public:
  Seats(v2::ArenaService::Stub& stub, std::string name, unsigned seed)
      : stub_(stub), name_(std::move(name)), seed_(seed) {}

  // Starts playing the offered seat, unless its ticket is being played already (the server
  // offers the open seats again after a reconnect): never two streams for one ticket.
  void Offer(const v2::SeatOffer& offer) {
    std::vector<std::thread> ended;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const std::string& ticket : ended_) {  // join the threads that are done, as we go
        ended.push_back(std::move(threads_[ticket]));
        threads_.erase(ticket);
      }
      ended_.clear();
      if (threads_.count(offer.ticket()) == 0) {
        unsigned seed = seed_ + started_++;
        std::string label = "seat " + std::to_string(offer.seat());
        threads_[offer.ticket()] = std::thread(&Seats::Play, this, offer.ticket(), seed, label);
      }
    }
    for (std::thread& thread : ended) thread.join();
  }

  // Waits for every seat in hand to end (no more offers may come). Returns how many seats
  // were played to their MatchOver, and how many were cut off before it.
  std::pair<size_t, size_t> Finish() {
    std::map<std::string, std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads.swap(threads_);
    }
    for (auto& [ticket, thread] : threads) thread.join();
    std::lock_guard<std::mutex> lock(mutex_);
    return {played_out_.size(), cut_off_.size()};
  }

 private:
  void Play(const std::string& ticket, unsigned seed, const std::string& label) {
    bool over = PlaySeat(stub_, ticket, name_, seed, label);
    std::lock_guard<std::mutex> lock(mutex_);
    if (over) {  // perhaps after a stream that was cut off: the seat was offered again
      played_out_.insert(ticket);
      cut_off_.erase(ticket);
    } else {
      cut_off_.insert(ticket);
    }
    ended_.insert(ticket);
  }

  v2::ArenaService::Stub& stub_;
  const std::string name_;
  const unsigned seed_;
  unsigned started_ = 0;                        // streams opened (seat seeds are seed_ + this)
  std::mutex mutex_;                            // guards the four below
  std::map<std::string, std::thread> threads_;  // by ticket: the seats in hand
  std::set<std::string> ended_;                 // tickets whose thread is done, to join
  std::set<std::string> played_out_;            // tickets played to their MatchOver
  std::set<std::string> cut_off_;               // tickets whose stream ended before MatchOver
};

std::string RandomInstance() {  // a new id per process: 16 hex digits
  std::random_device device;
  std::string id;
  for (int i = 0; i < 16; ++i) id += "0123456789abcdef"[device() % 16];
  return id;
}

struct Options {
  std::string address, ticket, token, name = "cpp-random";
  int capacity = kDefaultCapacity;
  unsigned seed = std::random_device{}();
};

// Holds a session: Enter, play every seat offered (a thread each), Enter again when the
// stream drops. Returns the exit status once the arena has ended the session (or refused it)
// and the seats in hand are over.
int PlaySession(v2::ArenaService::Stub& stub, const Options& options) {
  v2::EnterRequest request;
  request.set_token(options.token);
  request.set_protocol_version(2);
  request.set_bot_name(options.name);
  request.set_capacity(options.capacity);
  request.set_instance(RandomInstance());
  Seats seats(stub, options.name, options.seed);
  bool refused = false;
  bool entered = false;  // once entered, FAILED_PRECONDITION on a re-Enter means "run over"
  for (int failed_enters = 0;;) {  // failed in a row
    grpc::ClientContext context;
    auto reader = stub.Enter(&context, request);
    v2::EnterResponse message;
    while (reader->Read(&message)) {
      if (message.has_entered()) {
        failed_enters = 0;
        entered = true;
        Log("", "entered session " + message.entered().session() + ": up to " +
                    std::to_string(message.entered().capacity()) + " seats at once");
      } else if (message.has_seat()) {
        seats.Offer(message.seat());
      }
    }
    grpc::Status status = reader->Finish();
    if (status.ok()) break;
    if (entered && status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      Log("", "the arena wants no more games: " + Describe(status));  // the run ended meanwhile
      break;
    }
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE &&
        failed_enters + 1 < kEnterAttempts) {
      ++failed_enters;
      int delay_ms = std::min(5000, 250 << (failed_enters - 1));
      Log("", "session dropped (" + Describe(status) + "): entering again in " +
                  std::to_string(delay_ms) + " ms");
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      continue;
    }
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      Log("", "gave up entering after " + std::to_string(kEnterAttempts) + " tries: " +
                  Describe(status) + " (no arena at " + options.address + "?)");
    } else {
      bool token = status.error_code() == grpc::StatusCode::UNAUTHENTICATED;
      Log("", "session refused: " + Describe(status) + (token ? " (check $ARENA_TOKEN)" : ""));
    }
    refused = true;
    break;
  }
  auto [played_out, cut_off] = seats.Finish();
  if (refused) return 1;
  if (cut_off > 0) {
    Log("", "session over: " + std::to_string(played_out) + " seats played, " +
                std::to_string(cut_off) + " cut off before their match was over");
    return 1;
  }
  Log("", "session over: " + std::to_string(played_out) + " seats played");
  return 0;
}

[[noreturn]] void Usage(const std::string& problem) {
  std::cerr << problem
            << "\nusage: [ARENA_TOKEN=TOKEN | ARENA_TICKET=TICKET] bot [--address HOST:PORT] "
               "[--capacity N] [--seed N] [--name NAME]\n";
  std::exit(2);
}

// Flags beat the environment; from the environment alone, a ticket beats a token.
Options ParseOptions(int argc, char** argv) {
  Options options;
  bool ticket_flag = false, token_flag = false;
  for (int i = 1; i < argc; i += 2) {
    std::string key = argv[i];
    if (i + 1 >= argc) Usage("bad argument: " + key);
    std::string value = argv[i + 1];
    try {
      if (key == "--address") {
        options.address = value;
      } else if (key == "--ticket") {
        options.ticket = value;
        ticket_flag = true;
      } else if (key == "--token") {
        options.token = value;
        token_flag = true;
      } else if (key == "--name") {
        options.name = value;
      } else if (key == "--seed") {
        options.seed = static_cast<unsigned>(std::stoul(value));
      } else if (key == "--capacity") {
        options.capacity = std::stoi(value);
      } else {
        Usage("bad argument: " + key);
      }
    } catch (const std::exception&) {  // std::stoul, std::stoi: not a number
      Usage("bad value for " + key + ": " + value);
    }
  }
  if (ticket_flag && token_flag)
    Usage("pass either --ticket (one seat) or --token (a session), not both");
  for (auto [given, flag, variable] : {std::make_tuple(token_flag, "token", "ARENA_TOKEN"),
                                       std::make_tuple(ticket_flag, "ticket", "ARENA_TICKET")}) {
    if (given)
      std::cerr << "warning: --" << flag << " puts a secret on the command line, which every "
                << "user of this machine can read (ps, /proc): pass it in $" << variable
                << " instead" << std::endl;
  }
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  if (options.address.empty()) options.address = env("ARENA_ADDRESS");
  if (options.address.empty()) options.address = "127.0.0.1:50051";
  if (!ticket_flag && !token_flag) options.ticket = env("ARENA_TICKET");
  if (options.ticket.empty() && !token_flag) options.token = env("ARENA_TOKEN");
  if (options.ticket.empty() && options.token.empty())
    Usage("no ticket or token: set ARENA_TICKET or ARENA_TOKEN");
  if (options.capacity < 1)
    Usage("--capacity must be a whole number of seats, 1 or more (not " +
          std::to_string(options.capacity) + ")");
  return options;
}

int main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  grpc::ChannelArguments arguments;  // ping an idle connection, so that a dead one is noticed
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  auto channel =
      grpc::CreateCustomChannel(options.address, grpc::InsecureChannelCredentials(), arguments);
  auto stub = v2::ArenaService::NewStub(channel);
  if (!options.ticket.empty())
    return PlaySeat(*stub, options.ticket, options.name, options.seed, "") ? 0 : 1;
  return PlaySession(*stub, options);
}
