// A random bot for the stdio bridge, in plain Node.js (no packages): one JSON message per line
// in, one Answer line out for each decision. python3 -m chaodipi.bot.stdio -- node stdio_bot.js
const pick = (n) => Math.floor(Math.random() * n);
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const decision = JSON.parse(line).decision;
  if (!decision) return; // welcome, snapshot, refused, strike, matchOver: nothing to answer
  const legal = decision.legal, bids = legal.bids || [];
  let action;
  if (legal.phase === "PHASE_DECLARE" || legal.phase === "PHASE_FRY") {
    const i = pick(bids.length + (legal.canPass ? 1 : 0)); // the last choice: pass
    action = i < bids.length ? { [legal.phase === "PHASE_FRY" ? "fry" : "declare"]: bids[i] } : { passTurn: {} };
  } else { // bury or play: all of an option's forced cards, and k of its pool
    const option = legal.cardOptions[pick(legal.cardOptions.length)], pool = option.pool || [];
    const low = option.kMin || 0, k = low + pick((option.kMax || 0) - low + 1);
    for (let i = pool.length - 1; i > 0; i--) { const j = pick(i + 1); [pool[i], pool[j]] = [pool[j], pool[i]]; }
    const cards = [...(option.forced || []), ...pool.slice(0, k)];
    action = { [legal.phase === "PHASE_BURY" ? "bury" : "play"]: { cards } };
  }
  console.log(JSON.stringify({ decisionId: decision.decisionId, action }));
});
