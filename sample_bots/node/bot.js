// A random bot for the 炒地皮 arena, in Node.js: every move drawn at random among the legal ones.
//
//   npm ci --prefix sample_bots/node          (once: @grpc/grpc-js and @grpc/proto-loader)
//   node sample_bots/node/bot.js --address 127.0.0.1:50051 --ticket TICKET [--seed N] [--name NAME]
//
// The ticket may also come from $ARENA_TICKET, the address from $ARENA_ADDRESS. The contract is
// proto/chaodipi/arena/v2/arena.proto, loaded at run time (no code generation). In short:
//   1. open the bidirectional stream ArenaService.Play and send
//      {hello: {ticket, protocol_version: 2}};
//   2. the server sends `welcome` and a `snapshot` (your view; this bot ignores it), then a
//      `decision` whenever it is your turn (with the events since your last decision):
//      answer it with {answer: {decision_id, action: {...}}}, one of decision.legal;
//   3. `refused` means the answer was not accepted: the decision stays open, so answer again;
//   4. `match_over` ends the match: end your side of the stream and stop.
// Wrong tickets and the like are gRPC errors (UNAUTHENTICATED, ...), never game messages.
// Enums arrive as their names (enums: String): cards like "CARD_SPADES_10", phases like
// "PHASE_PLAY"; they are sent back the same way.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function parseArgs(argv) {
  const args = { address: process.env.ARENA_ADDRESS || '127.0.0.1:50051',
    ticket: process.env.ARENA_TICKET || '', seed: Date.now() >>> 0, name: 'node-random' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) usage(`bad argument: ${argv[i]}`);
    args[key] = key === 'seed' ? Number(argv[i + 1]) >>> 0 : argv[i + 1];
  }
  if (!args.ticket) usage('no ticket: pass --ticket or set ARENA_TICKET');
  return args;
}

function usage(problem) {
  console.error(`${problem}\n` +
    'usage: node bot.js --address HOST:PORT --ticket TICKET [--seed N] [--name NAME]');
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

function main() {
  const args = parseArgs(process.argv.slice(2));
  const random = mulberry32(args.seed);
  const definition = protoLoader.loadSync(
    path.join(__dirname, '..', '..', 'proto', 'chaodipi', 'arena', 'v2', 'arena.proto'),
    { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  const { ArenaService } = grpc.loadPackageDefinition(definition).chaodipi.arena.v2;
  const client = new ArenaService(args.address, grpc.credentials.createInsecure());
  const call = client.Play();
  let current = null; // the open Decision
  let over = false;

  call.write({ hello: { ticket: args.ticket, protocol_version: 2, bot_name: args.name } });
  call.on('data', (message) => {
    // with oneofs: true, `message.response` names the field that is set ("decision", ...)
    switch (message.response) {
      case 'decision':
        current = message.decision;
        call.write({ answer: randomAnswer(current, random) });
        break;
      case 'refused':
        if (current && message.refused.decision_id === current.decision_id) {
          console.error(`refused (${message.refused.code}): ${message.refused.reason}`);
          call.write({ answer: randomAnswer(current, random) });
        }
        break;
      case 'match_over': {
        const m = message.match_over;
        const winner = m.winner === undefined || m.winner === null ? 'none' : m.winner;
        console.error(`match over: winner team ${winner}, ${m.hands} hands, ` +
          `progress ${m.progress.join('/')}, ${m.ending}: ${m.reason}`);
        over = true;
        call.end();
        break;
      }
      default: // welcome, snapshot, strike: nothing to answer
    }
  });
  call.on('error', (err) => { // a non-OK gRPC status: a transport problem, not a game outcome
    if (over) return;
    console.error(`stream error: ${grpc.status[err.code]} (${err.code}): ${err.details}`);
    process.exit(1);
  });
  call.on('status', () => { // the stream is closed (after 'error', if there was one)
    if (!over) console.error('the server ended the stream before the match was over');
    client.close();
    process.exit(over ? 0 : 1);
  });
}

main();
