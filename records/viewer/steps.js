// The record read into steps. A step is one action of a seat and what followed from it (the
// cards it played, the trick it completed, the hand it ended); a hand's first step is its deal
// up to the first action. Every state is computed once, up front, by reading the record's lines
// in order, so stepping back is as cheap as stepping forward. The page knows no rule: what the
// rules decide it reads from the record (who won a trick, its points, the defenders' points so
// far, each hand's level and trump, the score, who acts next) or from what the engine put
// beside it (how a hand is arranged once trump is fixed, which cards are trumps, each team's
// level by name). Then what a view shows of a line, and each line in words: the words are
// written into the page beside the record (page.py: the words `arena show` prints), never
// composed here.

// -- the record, read into steps -------------------------------------------------------

const record = JSON.parse(document.getElementById("record").textContent);
const words = JSON.parse(document.getElementById("words").textContent);
const wordsOf = new Map(record.map((line, i) => [line, words.lines[i]])); // a line → its words
const arrangements = JSON.parse(document.getElementById("arrangements").textContent);
const trumpFacts = JSON.parse(document.getElementById("trumps").textContent);
const levelNames = JSON.parse(document.getElementById("levels").textContent);
const header = record[0];
const names = [0, 1, 2, 3].map((seat) => {
  const bot = (header.bots || []).find((b) => b.seat === seat);
  return bot && bot.name ? bot.name : "seat " + seat;
});
const teamOf = (seat) => {
  const bot = (header.bots || []).find((b) => b.seat === seat);
  return bot ? bot.team : seat % 2;
};

/** The record's lines grouped into steps: each action line begins one, and so does each
 * hand line (a hand's deal comes before its first action). */
function groupSteps(lines) {
  const steps = [];
  let step = null;
  for (const line of lines) {
    if (line.type === "action" || line.type === "hand" || step === null) {
      step = { action: null, lines: [] };
      steps.push(step);
    }
    if (line.type === "action") step.action = line;
    else step.lines.push(line);
  }
  return steps;
}

function freshHand(line) {
  return {
    number: line.hand,
    level: rankIndex(line.level),
    dealer: line.dealer,
    progress: line.progress ? line.progress.slice() : [0, 0],
    trump: null, // {level, suit} once the card play begins
    hands: [[], [], [], []],
    kitty: [], // the kitty's cards while it lies on the table
    kittyHeldBy: null, // the seat that picked it up, while the kitty is in its hand
    kittyKnownTo: [], // the seats that know the kitty's cards
    trick: null, // {number, plays: [{seat, cards, attempted, penalty}], winner, points}
    tricksDone: 0,
    defenders: null, // the defenders' points so far, as the record states them (null: not stated)
    penalties: 0, // the signed change to them from failed throws
    said: [null, null, null, null], // each seat's latest action, as shown beside it
    over: null, // the hand_over line, once scored
  };
}

const copyState = (s) => ({
  ...s,
  progress: s.progress.slice(),
  hands: s.hands.map((h) => h.slice()),
  kitty: s.kitty.slice(),
  kittyKnownTo: s.kittyKnownTo.slice(),
  trick: s.trick && { ...s.trick, plays: s.trick.plays.slice() },
  said: s.said.slice(),
});

/** The state after one event line. */
function apply(state, line) {
  const seat = line.seat;
  switch (line.type) {
    case "hand":
      return freshHand(line);
    case "deal":
      state.hands[seat] = state.hands[seat].concat(parseCards(line.cards));
      break;
    case "dealt":
      state.hands = line.hands.map(parseCards);
      state.kitty = parseCards(line.kitty);
      state.kittyKnownTo = [];
      break;
    case "redeal":
      state.hands = [[], [], [], []];
      state.kitty = [];
      break;
    case "dealer":
      state.dealer = seat;
      break;
    case "kitty":
      state.hands[seat] = state.hands[seat].concat(parseCards(line.cards));
      state.kitty = [];
      state.kittyHeldBy = seat;
      break;
    case "bury": {
      const cards = parseCards(line.cards);
      state.hands[seat] = removeCards(state.hands[seat], cards);
      state.kitty = cards;
      state.kittyHeldBy = null;
      state.kittyKnownTo = [seat];
      break;
    }
    case "kitty_turned":
      state.kitty = parseCards(line.cards);
      state.kittyKnownTo = [0, 1, 2, 3];
      break;
    case "trump":
      state.trump = { level: rankIndex(line.level), suit: suitIndex(line.suit) };
      state.level = state.trump.level;
      state.dealer = line.dealer;
      state.defenders = 0; // nothing is taken before the first card is played
      break;
    case "play": {
      const cards = parseCards(line.cards);
      if (!state.trick || state.trick.number !== line.trick) {
        state.trick = { number: line.trick, plays: [], winner: null, points: 0 };
      }
      state.trick.plays.push({
        seat,
        cards,
        attempted: line.attempted ? parseCards(line.attempted) : null,
        penalty: line.penalty || 0,
      });
      state.hands[seat] = removeCards(state.hands[seat], cards);
      state.penalties += line.penalty || 0;
      if (line.defenders !== undefined) state.defenders = line.defenders;
      break;
    }
    case "trick":
      state.trick.winner = seat;
      state.trick.points = line.points;
      state.tricksDone = line.trick;
      state.defenders = line.defenders === undefined ? null : line.defenders;
      break;
    case "hand_over":
      state.over = line;
      state.progress = line.progress.slice();
      state.kitty = parseCards(line.kitty);
      state.kittyHeldBy = null;
      state.kittyKnownTo = [0, 1, 2, 3];
      break;
    case "declare": case "fry": case "pass": case "took_kitty": case "buried": case "reveal":
      break; // nothing on the table changes: the log says them
    case "header": case "action":
      throw new Error("a " + line.type + " line is no event of a step");
    default: // every kind of the record's schema is a case above (tests/test_event_kinds.py)
      throw new Error("a record line of a kind this viewer does not know: " + line.type);
  }
  return state;
}

const steps = groupSteps(record.slice(1));
const states = [];
const tricksOf = {}; // hand number → its completed tricks: {number, plays, winner, points, defenders, step}
{
  let state = freshHand({ hand: 0, level: null, dealer: null, progress: [0, 0] });
  for (const step of steps) {
    state = copyState(state);
    for (const line of step.lines) {
      state = apply(state, line);
      if (line.type === "trick") {
        (tricksOf[state.number] ||= []).push({ ...state.trick, defenders: state.defenders, step: states.length });
      }
    }
    if (step.action) state.said[step.action.seat] = { step: states.length, action: step.action };
    states.push(state);
  }
}
const handStarts = steps.map((step, i) => (step.lines.length && step.lines[0].type === "hand" ? i : -1))
  .filter((i) => i >= 0);
const beginsHand = (i) => steps[i] && steps[i].lines.length > 0 && steps[i].lines[0].type === "hand";

/** Where step ``i`` is, as the address and a review name it (records/steps.py): its hand
 * and its step in that hand, both from 1, and how many steps the hand has. */
function placeOf(i) {
  const first = handStarts.filter((s) => s <= i).pop() ?? 0;
  const index = handStarts.indexOf(first);
  const end = handStarts[index + 1] ?? steps.length;
  return { hand: index + 1, step: i - first + 1, steps: end - first };
}

/** The step (from 0, over the whole game) of a hand's step ``step`` (from 1), the hand as
 * the record numbers it (from 0); undefined when the record has no such step. */
function stepAt(hand, step) {
  const first = handStarts.find((i) => steps[i].lines[0].hand === hand);
  const end = handStarts.find((i) => i > first) ?? steps.length;
  return first === undefined || step < 1 || first + step - 1 >= end ? undefined : first + step - 1;
}

/** The seat to act next after step ``i``, as the record's next action line says: none at
 * the last step, at a hand's end, or when the next step begins a hand. */
function toPlay(i) {
  const next = steps[i + 1];
  if (!next || beginsHand(i + 1) || states[i].over) return null;
  return next.action ? next.action.seat : null;
}

/** The trump cards of the hand of ``state`` (the engine's list), once its trump is fixed. */
function trumpsOf(state) {
  const facts = state.trump && trumpFacts[state.number];
  return facts ? new Set(facts.cards) : null;
}

// -- what a view shows -------------------------------------------------------------------

/** Whether the viewer (``view``: "all" or a seat number) shows a line. "All hands" shows
 * the full facts and leaves out their public copies (a bid hidden as null, the lines
 * "took_kitty" and "buried"); a seat's view shows the lines that seat saw, never the
 * referee's "dealt" line. */
function shows(line, view) {
  if (view === "all") {
    if (!line.to) return true;
    if (line.type === "took_kitty" || line.type === "buried") return false;
    return !((line.type === "declare" || line.type === "fry") && line.bid === null);
  }
  return line.type !== "dealt" && (!line.to || line.to.includes(view));
}

/** A seat as the page names it: "seat 2 (alpha)". */
const seatName = (seat) => words.seats[seat];

/** One line of the record, in words: a seat's line is its name, then what it did. */
function describe(line) {
  const said = wordsOf.get(line);
  return said.does === undefined ? said.says : seatName(line.seat) + " " + said.does;
}

/** How a seat's action was taken: its time, a strike, refusals, a fallback, or "forced". */
const clockText = (action) => wordsOf.get(action).turn;

/** What a seat did at a step, as the viewer may show it beside the seat: its visible event
 * line, without its name. */
function saidText(stepIndex, seat, view) {
  const line = steps[stepIndex].lines.find((l) => l.seat === seat && shows(l, view) && l.type !== "trick");
  return line ? wordsOf.get(line).does : "";
}

/** A team's place as the engine names it ("7", "A (circuit 2)", "扛旗"), or its number
 * when the page was made without the record's preset. */
const levelName = (progress) => levelNames[progress] ?? "progress " + progress;

let at = 0;
let view = "all";
