// A random bot for the 炒地皮 arena, in Node.js: every move drawn at random among the legal ones.
//
//   npm ci --prefix sample_bots/node          (once: @grpc/grpc-js and @grpc/proto-loader)
//   ARENA_TOKEN=TOKEN node sample_bots/node/bot.js --address 127.0.0.1:50051 [--capacity N]
//   ARENA_TICKET=TICKET node sample_bots/node/bot.js --address 127.0.0.1:50051
//   (both take [--seed N] [--name NAME])
//
// With a session token ($ARENA_TOKEN) the bot holds a session and plays every seat the arena
// offers it, up to --capacity (default 4) at once; with a ticket ($ARENA_TICKET) it plays that
// one seat and exits. The arena sets them itself when it starts the bot. --token and --ticket
// work too, with a warning: every user of the machine can read a command line (ps, /proc).
// The address may also come from $ARENA_ADDRESS. The contract is proto/chaodipi/arena/v2/arena.proto, loaded at run time (no
// code generation). In short:
//   0. a session: call ArenaService.Enter with {token, protocol_version: 2, capacity, instance};
//      the server answers `entered`, then sends a `seat` offer (a SeatOffer) for each seat to
//      play: play it with its ticket as below, on a stream of its own, while the others go on.
//      The Enter stream ends with status OK when the arena wants no more games: finish the
//      seats in hand and exit. If it drops (UNAVAILABLE), Enter again with the same token and
//      instance: the seats still open are offered again (skip the ones still being played);
//   1. a seat: open the bidirectional stream ArenaService.Play and send
//      {hello: {ticket, protocol_version: 2}};
//   2. the server sends `welcome` and a `snapshot` (your view; this bot ignores it), then a
//      `decision` whenever it is your turn (with the events since your last decision):
//      answer it with {answer: {decision_id, action: {...}}}, one of decision.legal;
//   3. `refused` means the answer was not accepted: the decision stays open, so answer again.
//      Every kit answers an illegal or malformed answer's refusal once, with the safe legal
//      action (the one a strike plays: safeAnswer) marked `fallback: true` (the arena counts
//      it against the bot), and says the game's first on stderr; a second refusal of the same
//      decision is left to the clock;
//   4. `match_over` ends the match: end your side of the stream and stop.
// Wrong tickets and tokens and the like are gRPC errors (UNAUTHENTICATED, ...), never game
// messages. Enums arrive as their names (enums: String): cards like "CARD_SPADES_10", phases
// like "PHASE_PLAY"; they are sent back the same way.
//
// Exit status: 0 when every seat played reached its MatchOver (and, for a session, the Enter
// stream ended OK); 1 otherwise (a refused token or ticket, an unreachable server, a seat cut
// off before its match was over); 2 for bad arguments.
'use strict';

const crypto = require('crypto');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', 'proto', 'chaodipi', 'arena', 'v2', 'arena.proto');
const ENTER_ATTEMPTS = 10; // Enters in a row that may fail with UNAVAILABLE before giving up
const CHANNEL_OPTIONS = { // ping an idle connection, so that a dead one is noticed (and re-entered)
  'grpc.keepalive_time_ms': 30000, 'grpc.keepalive_timeout_ms': 10000 };
const USAGE = 'usage: [ARENA_TOKEN=TOKEN | ARENA_TICKET=TICKET] node bot.js ' +
  '[--address HOST:PORT] [--capacity N] [--seed N] [--name NAME]';

// Flags beat the environment; from the environment alone, a ticket beats a token.
function parseArgs(argv) {
  const flags = {};
  const known = ['address', 'ticket', 'token', 'capacity', 'seed', 'name'];
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!known.includes(key) || !argv[i].startsWith('--') || i + 1 >= argv.length) {
      usage(`bad argument: ${argv[i]}`);
    }
    flags[key] = argv[i + 1];
  }
  if (flags.ticket !== undefined && flags.token !== undefined) {
    usage('pass either --ticket (one seat) or --token (a session), not both');
  }
  for (const [flag, variable] of [['token', 'ARENA_TOKEN'], ['ticket', 'ARENA_TICKET']]) {
    if (flags[flag] !== undefined) {
      console.error(`warning: --${flag} puts a secret on the command line, which every user ` +
        `of this machine can read (ps, /proc): pass it in $${variable} instead`);
    }
  }
  const env = process.env;
  const args = {
    address: flags.address || env.ARENA_ADDRESS || '127.0.0.1:50051',
    ticket: flags.ticket ?? (flags.token === undefined ? env.ARENA_TICKET || '' : ''),
    token: flags.token ?? '',
    capacity: flags.capacity === undefined ? 4 : Number(flags.capacity),
    seed: flags.seed === undefined ? Date.now() >>> 0 : Number(flags.seed) >>> 0,
    name: flags.name || 'node-random',
  };
  if (!args.ticket && !args.token) args.token = env.ARENA_TOKEN || '';
  if (!args.ticket && !args.token) {
    usage('no ticket or token: set ARENA_TICKET or ARENA_TOKEN');
  }
  if (!Number.isInteger(args.capacity) || args.capacity < 1) {
    usage(`--capacity must be a whole number of seats, 1 or more (not ${flags.capacity})`);
  }
  return args;
}

function usage(problem) {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

// mulberry32: a tiny seeded PRNG, so that --seed makes a game reproducible.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A random legal move for a Decision. Card options are chosen uniformly (not weighted by how
// many plays each allows), then k uniformly in [k_min, k_max], then k pool entries without
// replacement: the pool is a multiset, so a card listed twice may be drawn twice.
function randomAnswer(decision, random) {
  const id = decision.decision_id; // a uint64: a string here (longs: String); echo it as is
  const legal = decision.legal;
  const below = (n) => Math.floor(random() * n);
  if (legal.card_options.length > 0) {
    const option = legal.card_options[below(legal.card_options.length)];
    const k = option.k_min + below(option.k_max - option.k_min + 1);
    const pool = option.pool.slice();
    for (let i = 0; i < k; i++) { // a partial Fisher-Yates shuffle: the first k are the draw
      const j = i + below(pool.length - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    const cards = { cards: option.forced.concat(pool.slice(0, k)) };
    const verb = legal.phase === 'PHASE_BURY' ? 'bury' : 'play';
    return { decision_id: id, action: { [verb]: cards } };
  }
  const choice = below(legal.bids.length + (legal.can_pass ? 1 : 0));
  if (choice === legal.bids.length) return { decision_id: id, action: { pass_turn: {} } };
  const verb = legal.phase === 'PHASE_FRY' ? 'fry' : 'declare';
  return { decision_id: id, action: { [verb]: legal.bids[choice] } };
}

// The safe legal action for a Decision, as the server plays it when the clock runs out: pass
// when allowed, else the first card option's forced cards and the first k_min of its pool,
// else the first bid. Marked `fallback`: the bot's own code did not choose it.
function safeAnswer(decision) {
  const id = decision.decision_id;
  const legal = decision.legal;
  if (legal.can_pass) return { decision_id: id, action: { pass_turn: {} }, fallback: true };
  if (legal.card_options.length > 0) {
    const option = legal.card_options[0];
    const cards = { cards: option.forced.concat(option.pool.slice(0, option.k_min)) };
    const verb = legal.phase === 'PHASE_BURY' ? 'bury' : 'play';
    return { decision_id: id, action: { [verb]: cards }, fallback: true };
  }
  const verb = legal.phase === 'PHASE_FRY' ? 'fry' : 'declare';
  return { decision_id: id, action: { [verb]: legal.bids[0] }, fallback: true };
}

// Writes one line to stderr, after the seat's label when there is one ("seat 2 of t3: ...").
function log(label, text) {
  console.error(label ? `${label}: ${text}` : text);
}

function describe(status) { // a gRPC status as people read it: "UNAUTHENTICATED (16): why"
  return `${grpc.status[status.code]} (${status.code}): ${status.details}`;
}

// Plays one seat on its own Play stream until its MatchOver. Resolves to true when the match
// was played out to its MatchOver, false when the stream ended before (the reason is logged).
// `label` is '' for a lone seat; in a session it names the seat in the log lines.
function playSeat(client, ticket, { random, name, label }) {
  return new Promise((resolve) => {
    const call = client.Play();
    let current = null; // the open Decision
    const refusedOnce = new Set(); // decisions answered again after a refusal (once each)
    let fallbacks = 0; // safe answers sent for this game (the first is said on stderr)
    let where = 'this seat'; // the seat, for the fallback line
    let over = false;
    call.write({ hello: { ticket, protocol_version: 2, bot_name: name } });
    call.on('data', (message) => {
      // with oneofs: true, `message.response` names the field that is set ("decision", ...)
      switch (message.response) {
        case 'welcome':
          where = `seat ${message.welcome.seat} of table ${message.welcome.table}`;
          if (label) label = `seat ${message.welcome.seat} of ${message.welcome.table}`;
          break;
        case 'decision':
          current = message.decision;
          call.write({ answer: randomAnswer(current, random) });
          break;
        case 'refused': { // an illegal or malformed answer leaves the decision open: again
          const refused = message.refused;
          log(label, `refused (${refused.code}): ${refused.reason}`);
          const stillOpen = refused.code === 'REFUSAL_CODE_ILLEGAL' ||
            refused.code === 'REFUSAL_CODE_MALFORMED';
          if (stillOpen && current && refused.decision_id === current.decision_id &&
            !refusedOnce.has(refused.decision_id)) { // once: then the clock decides
            refusedOnce.add(refused.decision_id);
            if (fallbacks === 0) {
              log(label, `${where}: the arena refused the answer to decision ` +
                `${refused.decision_id} (${refused.reason}); answered the safe legal action ` +
                'for you (counted as a fallback in the report; said once a game): answer one ' +
                "of the decision's legal actions");
            }
            fallbacks += 1;
            call.write({ answer: safeAnswer(current) });
          }
          break;
        }
        case 'strike': // too late: the server played for us, and the decision is closed
          log(label, `strike ${message.strike.strikes} of ${message.strike.max_strikes}`);
          current = null;
          break;
        case 'match_over': {
          const m = message.match_over;
          const winner = m.winner === undefined || m.winner === null ? 'none' : m.winner;
          log(label, `match over: winner team ${winner}, ${m.hands} hands, ` +
            `progress ${m.progress.join('/')}, ${m.ending}: ${m.reason}`);
          over = true;
          call.end();
          break;
        }
        default: // snapshot: nothing to answer
      }
    });
    call.on('error', () => {}); // reported with the 'status' that always follows
    call.on('status', (status) => { // the stream is closed: a non-OK status is a transport
      if (!over) { // problem or a refused connection, not a game outcome
        log(label, status.code === grpc.status.OK
          ? 'the server ended the stream before the match was over'
          : `stream error: ${describe(status)}`);
      }
      resolve(over);
    });
  });
}

// Holds a session: Enter, play every seat offered (each on its own stream, all at once),
// Enter again when the stream drops. Resolves to the exit status once the arena has ended the
// session (or refused it) and the seats in hand are over.
async function playSession(client, args) {
  const request = { token: args.token, protocol_version: 2, bot_name: args.name,
    capacity: args.capacity, instance: crypto.randomBytes(8).toString('hex') };
  const inHand = new Map(); // ticket -> the seat's promise: never two streams for one ticket
  const playedOut = new Set(); // tickets played to their MatchOver
  const cutOff = new Set(); // tickets whose stream ended before their MatchOver (so far)
  let started = 0; // streams opened (each seat's random moves are seeded --seed + this)
  let failedEnters = 0; // in a row
  let refusal = null; // the status that ended the session, unless it was OK
  let entered = false; // once entered, FAILED_PRECONDITION on a re-Enter means "run over"

  const offered = (offer) => {
    if (inHand.has(offer.ticket)) return; // a re-sent offer for a seat still being played
    const random = mulberry32(args.seed + started);
    started += 1;
    const seat = playSeat(client, offer.ticket,
      { random, name: args.name, label: `seat ${offer.seat}` }).then((over) => {
      inHand.delete(offer.ticket);
      if (over) { // perhaps after a stream that was cut off: the seat was offered again
        playedOut.add(offer.ticket);
        cutOff.delete(offer.ticket);
      } else {
        cutOff.add(offer.ticket);
      }
    });
    inHand.set(offer.ticket, seat);
  };

  for (;;) {
    const status = await enter(client, request, (message) => {
      if (message.message === 'entered') {
        failedEnters = 0;
        entered = true;
        const e = message.entered;
        log('', `entered session ${e.session}: up to ${e.capacity} seats at once`);
      } else if (message.message === 'seat') {
        offered(message.seat);
      }
    });
    if (status.code === grpc.status.OK) break;
    if (entered && status.code === grpc.status.FAILED_PRECONDITION) { // the run ended meanwhile
      log('', `the arena wants no more games: ${describe(status)}`);
      break;
    }
    if (status.code === grpc.status.UNAVAILABLE && failedEnters + 1 < ENTER_ATTEMPTS) {
      failedEnters += 1;
      const delay = Math.min(5000, 250 * 2 ** (failedEnters - 1));
      log('', `session dropped (${describe(status)}): entering again in ${delay} ms`);
      await new Promise((wake) => setTimeout(wake, delay));
      continue;
    }
    refusal = status;
    if (status.code === grpc.status.UNAVAILABLE) {
      log('', `gave up entering after ${ENTER_ATTEMPTS} tries: ${describe(status)} ` +
        `(no arena at ${args.address}?)`);
    } else {
      const hint = status.code === grpc.status.UNAUTHENTICATED ? ' (check $ARENA_TOKEN)' : '';
      log('', `session refused: ${describe(status)}${hint}`);
    }
    break;
  }
  await Promise.all(inHand.values()); // no offers come after the session's end
  if (refusal) return 1;
  if (cutOff.size > 0) {
    log('', `session over: ${playedOut.size} seats played, ${cutOff.size} cut off before ` +
      'their match was over');
    return 1;
  }
  log('', `session over: ${playedOut.size} seats played`);
  return 0;
}

// One Enter stream: calls onMessage with each EnterResponse; resolves to its final status.
function enter(client, request, onMessage) {
  return new Promise((resolve) => {
    const call = client.Enter(request);
    call.on('data', onMessage);
    call.on('error', () => {}); // reported with the 'status' that always follows
    call.on('status', resolve);
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const definition = protoLoader.loadSync(PROTO,
    { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  const { ArenaService } = grpc.loadPackageDefinition(definition).chaodipi.arena.v2;
  const client = new ArenaService(args.address, grpc.credentials.createInsecure(),
    CHANNEL_OPTIONS);
  let code;
  if (args.ticket) {
    const over = await playSeat(client, args.ticket,
      { random: mulberry32(args.seed), name: args.name, label: '' });
    code = over ? 0 : 1;
  } else {
    code = await playSession(client, args);
  }
  client.close();
  process.exit(code);
}

main();
