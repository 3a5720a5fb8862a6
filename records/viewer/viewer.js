// The 炒地皮 game viewer: shows the game record embedded in this page (docs/game-record.md),
// one step at a time. A step is one action of a seat and what followed from it (the cards it
// played, the trick it completed, the hand it ended); a hand's first step is its deal up to the
// first action. Every state is computed once, up front, by reading the record's lines in
// order, so stepping back is as cheap as stepping forward. The page knows no rule: what the
// rules decide it reads from the record (who won a trick, its points, the defenders' points so
// far, each hand's level and trump, the score, who acts next) or from what the engine put
// beside it (how a hand is arranged once trump is fixed, which cards are trumps, each team's
// level by name).
//
// Keys: ← → a step, Page Up / Page Down a hand, Home / End the first and last step, Space
// play / pause, A all hands, 0-3 what that seat saw. On a touch screen a swipe across the table
// steps. The address's hash holds where one is (#hand=4&step=31&seat=2: hand and step within
// it from 1, the seat whose view; no seat: all hands), so a link opens there.
"use strict";

(function () {
  const SUITS = ["♠", "♥", "♣", "♦"];
  const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  const SMALL_JOKER = 52;
  const BIG_JOKER = 53;

  // -- cards ------------------------------------------------------------------------------

  /** Card codes (suit * 13 + rank; 52 LJ, 53 BJ) of a record's card text: "♠AK ♥5 LJ BJ". */
  function parseCards(text) {
    const cards = [];
    for (const token of (text || "").split(/[\s,]+/)) {
      if (!token) continue;
      if (token === "LJ") { cards.push(SMALL_JOKER); continue; }
      if (token === "BJ") { cards.push(BIG_JOKER); continue; }
      const suit = SUITS.indexOf(token[0]);
      if (suit < 0) throw new Error("not a card: " + token);
      for (let i = 1; i < token.length; ) {
        const width = token.startsWith("10", i) ? 2 : 1;
        const rank = RANKS.indexOf(token.slice(i, i + width));
        if (rank < 0) throw new Error("not a card: " + token);
        cards.push(suit * 13 + rank);
        i += width;
      }
    }
    return cards;
  }

  const isJoker = (card) => card >= SMALL_JOKER;
  const suitOf = (card) => (isJoker(card) ? null : Math.floor(card / 13));
  const rankOf = (card) => (isJoker(card) ? null : card % 13);
  const cardName = (card) =>
    card === BIG_JOKER ? "BJ" : card === SMALL_JOKER ? "LJ" : SUITS[suitOf(card)] + RANKS[rankOf(card)];

  /** A hand as the engine arranges it: by code (suits ♠ ♥ ♣ ♦, low to high, the jokers last)
   * until trump is fixed, then by ``position`` (the page's arrangement of this hand's trump:
   * each card's place, side suits low to high, then the trumps, the strongest last). */
  function sortHand(cards, position) {
    const key = position ? (c) => position[c] : (c) => c;
    return cards.slice().sort((a, b) => key(a) - key(b));
  }

  /** Take ``cards`` out of ``hand`` (a multiset: each copy once). */
  function removeCards(hand, cards) {
    const left = hand.slice();
    for (const card of cards) {
      const at = left.indexOf(card);
      if (at >= 0) left.splice(at, 1);
    }
    return left;
  }

  const rankIndex = (text) => (text === null || text === undefined ? null : RANKS.indexOf(text));
  const suitIndex = (text) => (text === null || text === undefined ? null : SUITS.indexOf(text));

  // -- the record, read into steps -------------------------------------------------------

  const record = JSON.parse(document.getElementById("record").textContent);
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
      default: // declare, fry, pass, took_kitty, buried, reveal: shown from their lines
        break;
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
   * the full facts and leaves out their public copies (a bid hidden as null, "took the
   * kitty", "buried eight cards"); a seat's view shows the lines that seat saw, never the
   * referee's "dealt" line. */
  function shows(line, view) {
    if (view === "all") {
      if (!line.to) return true;
      if (line.type === "took_kitty" || line.type === "buried") return false;
      return !((line.type === "declare" || line.type === "fry") && line.bid === null);
    }
    return line.type !== "dealt" && (!line.to || line.to.includes(view));
  }

  const seatName = (seat) => "seat " + seat + " (" + names[seat] + ")";

  function bidText(line) {
    return line.bid === null ? "a hidden bid" : line.bid;
  }

  /** One line of the record, in words. */
  function describe(line) {
    const who = line.seat !== undefined ? seatName(line.seat) : "";
    switch (line.type) {
      case "hand": {
        const dealer = line.dealer === null ? "decided by declaring" : seatName(line.dealer);
        return "Hand " + (line.hand + 1) + " at level " + (line.level ?? "none (扛旗)") + "; dealer: " + dealer;
      }
      case "deal": return who + " is dealt " + line.cards;
      case "dealt": return "dealt: kitty " + line.kitty;
      case "declare": return who + " declares " + bidText(line);
      case "fry": return who + " fries (炒底) with " + bidText(line);
      case "pass": return who + " passes" + (line.stage === "fry" ? " (frying)" : "");
      case "dealer": return who + " deals this hand";
      case "kitty": return who + " takes the kitty: " + line.cards;
      case "took_kitty": return who + " takes the kitty";
      case "bury": return who + " buries " + line.cards;
      case "buried": return who + " buries eight cards";
      case "redeal": return "nobody declared: the cards are dealt again (" + line.redeals + ")";
      case "kitty_turned":
        return "nobody declared: the kitty " + line.cards + " is turned; trump " + (line.suit || "none (no-trump)");
      case "reveal":
        return "the bids: " + line.bids.map((b) => "seat " + b.seat + " " + b.bid + (b.stood ? "" : " (did not stand)")).join(", ");
      case "trump":
        return "trump " + (line.suit || "none (no-trump)") + ", level " + (line.level ?? "none (扛旗)") + "; " + seatName(line.dealer) + " leads";
      case "play":
        return who + " plays " + line.cards + (line.attempted ? " (failed throw of " + line.attempted + ", penalty " + line.penalty + ")" : "");
      case "trick": return "trick " + line.trick + " to " + who + ", " + line.points + " points";
      case "hand_over": return "hand over: the defenders have " + line.total + "; " + line.note;
      default: return line.type;
    }
  }

  /** How a seat's action was taken: time, a strike and the seat's strikes, refusals, a fallback. */
  function clockText(action) {
    if (action.asked === false) return "forced";
    if (action.ms === undefined) return "";
    let text = action.ms + " ms";
    if (action.timeout) text += ", struck";
    if (action.strikes) text += ", strikes " + action.strikes;
    if (action.refused) text += ", " + action.refused + " refused";
    if (action.fallback) text += ", fallback (its kit answered for it)";
    return text;
  }

  /** What a seat did at a step, as the viewer may show it: its visible event lines. */
  function saidText(stepIndex, seat, view) {
    const line = steps[stepIndex].lines.find((l) => l.seat === seat && shows(l, view) && l.type !== "trick");
    if (!line) return "";
    return describe(line).replace(seatName(seat) + " ", "");
  }

  // -- drawing -----------------------------------------------------------------------------

  const $ = (id) => document.getElementById(id);
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  /** A card; ``trumps`` (a set of codes, or null before the trump is fixed) marks a trump. */
  function cardNode(card, trumps) {
    const node = el("span", "card");
    node.dataset.card = String(card);
    node.title = cardName(card);
    if (trumps && trumps.has(card)) {
      node.classList.add("trump");
      node.title += " (trump)";
    }
    if (isJoker(card)) {
      node.classList.add("joker", card === BIG_JOKER ? "red" : "black");
      node.append(el("span", "rank", card === BIG_JOKER ? "BJ" : "LJ"), el("span", "suit", "★"));
    } else {
      node.classList.add(suitOf(card) % 2 === 1 ? "red" : "black");
      node.append(el("span", "rank", RANKS[rankOf(card)]), el("span", "suit", SUITS[suitOf(card)]));
    }
    return node;
  }

  function cardsNode(cards, className, trumps) {
    const node = el("div", "cards " + (className || ""));
    for (const card of cards) node.append(cardNode(card, trumps));
    return node;
  }

  function backsNode(count) {
    const node = el("div", "cards hidden");
    for (let i = 0; i < count; i++) node.append(el("span", "card back"));
    return node;
  }

  /** A team's place as the engine names it ("7", "A (circuit 2)", "扛旗"), or its number
   * when the page was made without the record's preset. */
  const levelName = (progress) => levelNames[progress] ?? "progress " + progress;

  let at = 0;
  let view = "all";

  function drawHeader() {
    const result = header.result || {};
    const teams = [0, 1].map((t) => names[t] === names[t + 2] ? names[t] : names[t] + " & " + names[t + 2]);
    $("title").textContent = teams[0] + " vs " + teams[1];
    const facts = [
      "preset " + header.preset,
      header.deal !== undefined ? "deal " + header.deal : null,
      header.game ? "game " + header.game : null,
      header.date || null,
    ].filter(Boolean);
    let verdict = result.winner === null || result.winner === undefined
      ? (result.ending === "played out" ? "a draw" : "undecided")
      : teams[result.winner] + " won (reward " + result.reward + ")";
    verdict += " after " + result.hands + (result.hands === 1 ? " hand: " : " hands: ") + result.reason;
    $("facts").textContent = facts.join(" · ");
    $("verdict").textContent = verdict;
    document.title = teams[0] + " vs " + teams[1] + " — 炒地皮";
  }

  function drawSeat(seat, state) {
    const box = document.querySelector('.seat[data-seat="' + seat + '"]');
    const trumps = trumpsOf(state);
    box.classList.toggle("acting", !!steps[at].action && steps[at].action.seat === seat);
    box.classList.toggle("to-play", toPlay(at) === seat);
    box.querySelector(".turn").hidden = toPlay(at) !== seat;
    box.classList.toggle("viewer", view === seat);
    const dealer = state.dealer === seat ? " · dealer" : "";
    box.querySelector(".name").textContent = seatName(seat) + " · team " + teamOf(seat) + dealer;
    const hand = sortHand(state.hands[seat], state.trump && arrangements[state.number]);
    const shown = view === "all" || view === seat ? cardsNode(hand, "hand", trumps) : backsNode(hand.length);
    shown.classList.add("hand");
    box.querySelector(".hand").replaceWith(shown);
    box.querySelector(".count").textContent = hand.length + " cards";
    box.classList.toggle("over", !!state.over); // the hand is played out: "as dealt" in its place
    const dealt = box.querySelector(".dealt");
    dealt.replaceChildren();
    if (state.over) { // the hand is over and every card shown: the hand as it was dealt
      dealt.append(el("span", "label", "as dealt"), cardsNode(sortHand(parseCards(state.over.dealt[seat]), arrangements[state.number]), "", trumps));
    }
    const said = state.said[seat];
    const bubble = box.querySelector(".said");
    bubble.replaceChildren();
    if (said) {
      bubble.append(el("span", "what", saidText(said.step, seat, view)));
      const clock = clockText(said.action);
      if (clock) bubble.append(el("span", "clock", clock));
      if (said.action.note && (view === "all" || view === seat)) {
        bubble.append(el("span", "note", "“" + said.action.note + "”"));
      }
    }
  }

  /** Why a complete trick went to its winner, when a trump beat the suit led (the trumps
   * are the engine's list; the winner is the record's): "♠2 (trump) beats ♦Q". */
  function whyWon(trick, trumps) {
    if (trick.winner === null || !trumps || !trick.plays.length) return "";
    const led = trick.plays[0];
    const won = trick.plays.find((p) => p.seat === trick.winner);
    const allTrump = (cards) => cards.length > 0 && cards.every((c) => trumps.has(c));
    if (!won || won === led || allTrump(led.cards) || !allTrump(won.cards)) return "";
    return won.cards.map(cardName).join(" ") + " (trump) beats " + led.cards.map(cardName).join(" ");
  }

  function drawTrick(state) {
    const trumps = trumpsOf(state);
    for (let seat = 0; seat < 4; seat++) {
      const spot = document.querySelector('.spot[data-seat="' + seat + '"]');
      spot.replaceChildren();
      spot.classList.toggle("winner", !!state.trick && state.trick.winner === seat);
      const play = state.trick && state.trick.plays.find((p) => p.seat === seat);
      if (play) {
        spot.append(cardsNode(play.cards, "played", trumps));
        if (play.attempted) spot.append(el("div", "failed", "tried " + play.attempted.map(cardName).join(" ")));
      }
    }
    const trick = state.trick;
    let caption = "";
    if (trick) {
      caption = "trick " + trick.number;
      if (trick.winner !== null) caption += ": " + seatName(trick.winner) + " wins " + trick.points + " points";
      const why = whyWon(trick, trumps);
      if (why) caption += "; " + why;
    }
    $("trick-caption").textContent = caption;
  }

  /** The parts of a scored hand (the record's ``score``) summed to its total, as a sum:
   * "tricks 370 + kitty 30 × 2 + throws 20 = 430" (the floor said when it applied); the
   * kitty's points said when the defenders did not dig it. */
  function scoreSum(over) {
    const s = over.score || {};
    const parts = ["tricks " + s.trick_points];
    if (s.kitty_multiplier) parts.push("kitty " + s.kitty_points + " × " + s.kitty_multiplier);
    if (s.throw_penalty) parts.push("throws " + s.throw_penalty);
    if (s.fry_penalty) parts.push("fries " + s.fry_penalty);
    if (s.red_five) parts.push("red fives " + s.red_five);
    // 001 §4.1: parts summing below 0 are floored at 0 in presets with the floor
    let text = parts.join(" + ") + (s.floored ? " < 0; floored at 0" : " = " + over.total);
    if (!s.kitty_multiplier && s.kitty_points) text += "; the kitty's " + s.kitty_points + " not dug";
    return text;
  }

  function drawStatus(state) {
    const trumps = state.trump && trumpFacts[state.number];
    const trump = state.trump
      ? (state.trump.suit === null ? "no-trump" : SUITS[state.trump.suit]) + ", level " + (state.trump.level === null ? "none" : RANKS[state.trump.level]) +
        (trumps ? ": trumps are " + trumps.says : "")
      : "not yet fixed (level " + (state.level === null ? "—" : RANKS[state.level]) + ")";
    const defenders = state.dealer === null ? null : 1 - teamOf(state.dealer);
    const running = state.over
      ? state.over.total + " points, the hand's score (below)"
      : (state.defenders === null ? "—" : state.defenders) + " points" +
        (state.penalties ? " (" + (state.penalties > 0 ? "+" : "") + state.penalties + " from throws)" : "") +
        " in " + state.tricksDone + " tricks";
    const rows = [
      ["hand", (state.number + 1) + " of " + handStarts.length],
      ["step", (at + 1) + " of " + steps.length],
      ["dealer", state.dealer === null ? "not yet known" : seatName(state.dealer)],
      ["trump", trump],
      ["defenders", defenders === null ? "—" : "team " + defenders + ": " + running],
      ["team 0 (seats 0, 2)", "level " + levelName(state.progress[0])],
      ["team 1 (seats 1, 3)", "level " + levelName(state.progress[1])],
    ];
    const kittyKnown = view === "all" || state.kittyKnownTo.includes(view);
    const table = $("status");
    table.replaceChildren();
    for (const [name, value] of rows) {
      const row = el("tr");
      row.append(el("th", "", name), el("td", "", value));
      table.append(row);
    }
    const kitty = $("kitty");
    kitty.replaceChildren(el("span", "label", "kitty"));
    if (state.kitty.length && kittyKnown) {
      kitty.append(cardsNode(sortHand(state.kitty, state.trump && arrangements[state.number]), "kitty-cards", trumpsOf(state)));
    }
    else if (state.kitty.length) kitty.append(backsNode(state.kitty.length));
    else if (state.kittyHeldBy !== null) kitty.append(el("span", "muted", "in the hand of " + seatName(state.kittyHeldBy)));
    else kitty.append(el("span", "muted", "—"));
    const over = $("hand-over");
    over.hidden = !state.over;
    if (state.over) {
      const tricks = (tricksOf[state.number] || []).length;
      over.replaceChildren(
        el("strong", "", "Hand " + (state.number + 1) + " scored: the defenders have " + state.over.total),
        el("div", "sum", scoreSum(state.over) + "; " + tricks + " tricks played"),
        el("div", "", state.over.note),
        el("div", "muted", "next dealer " + seatName(state.over.next_dealer)),
      );
    }
  }

  function drawLog() {
    const list = $("log");
    list.replaceChildren();
    const hand = states[at].number;
    let current = null;
    steps.forEach((step, i) => {
      if (states[i].number !== hand) return;
      const visible = step.lines.filter((l) => shows(l, view) && l.type !== "hand");
      if (!visible.length && !step.action) return;
      const item = el("li");
      item.dataset.step = String(i);
      if (step.action) {
        const clock = clockText(step.action);
        item.append(el("span", "clock", clock));
      }
      for (const line of visible) item.append(el("div", "line " + line.type, describe(line)));
      if (step.action && step.action.note && (view === "all" || view === step.action.seat)) {
        item.append(el("div", "note", "note: " + step.action.note));
      }
      if (i === at) { item.classList.add("current"); current = item; }
      if (i > at) item.classList.add("future");
      item.addEventListener("click", () => go(i));
      list.append(item);
    });
    if (current) { // the list scrolls to it, never the page (a phone's table stays in sight)
      const box = list.getBoundingClientRect(), item = current.getBoundingClientRect();
      if (item.top < box.top) list.scrollTop += item.top - box.top;
      else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
    }
  }

  /** This hand's tricks so far, a row each (click one to go to the step that completed it). */
  function drawTricks(state) {
    const body = $("tricks").querySelector("tbody");
    body.replaceChildren();
    const trumps = trumpsOf(state);
    for (const trick of tricksOf[state.number] || []) {
      if (trick.step > at) break;
      const row = el("tr");
      row.dataset.step = String(trick.step);
      if (trick.step === at) row.classList.add("current");
      row.append(el("td", "", String(trick.number)));
      for (let seat = 0; seat < 4; seat++) {
        const cell = el("td");
        const play = trick.plays.find((p) => p.seat === seat);
        if (play) {
          cell.append(cardsNode(play.cards, "small", trumps));
          if (play === trick.plays[0]) cell.classList.add("led");
        }
        row.append(cell);
      }
      row.append(el("td", "", seatName(trick.winner)), el("td", "", String(trick.points)),
        el("td", "", trick.defenders === null ? "—" : String(trick.defenders)));
      row.addEventListener("click", () => go(trick.step));
      body.append(row);
    }
  }

  /** The defenders' points at each step of this hand, as the record states them (the
   * running total from the card play on, the scored total at the hand's end): a line, the
   * current step marked. */
  function drawGraph(state) {
    const svg = $("points");
    const NS = svg.namespaceURI; // the SVG namespace, as the page parsed it
    const node = (tag, attributes) => {
      const made = document.createElementNS(NS, tag);
      for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
      return made;
    };
    const first = handStarts.filter((i) => i <= at).pop() ?? 0;
    const last = (handStarts.find((i) => i > at) ?? steps.length) - 1;
    const points = [];
    for (let i = first; i <= last; i++) {
      const value = states[i].over ? states[i].over.total : states[i].defenders;
      if (value !== null && value !== undefined) points.push([i, value]);
    }
    svg.replaceChildren();
    svg.dataset.points = JSON.stringify(points.map(([, v]) => v));
    const width = 600, height = 160, pad = 14;
    const values = points.map(([, v]) => v);
    const low = Math.min(0, ...values), high = Math.max(40, ...values);
    const x = (i) => pad + (width - 2 * pad) * (last > first ? (i - first) / (last - first) : 0);
    const y = (v) => height - pad - (height - 2 * pad) * (v - low) / (high - low);
    svg.append(node("line", { x1: pad, x2: width - pad, y1: y(0), y2: y(0), class: "axis" }));
    const label = node("text", { x: pad, y: pad - 2, class: "label" });
    label.textContent = String(high);
    svg.append(label);
    if (points.length) {
      svg.append(node("polyline", {
        points: points.map(([i, v]) => x(i).toFixed(1) + "," + y(v).toFixed(1)).join(" "),
        class: "line",
      }));
    }
    svg.append(node("line", { x1: x(at), x2: x(at), y1: pad, y2: height - pad, class: "now" }));
    const now = points.find(([i]) => i === at);
    if (now) svg.append(node("circle", { cx: x(now[0]), cy: y(now[1]), r: 4, class: "dot" }));
  }

  function draw() {
    const state = states[at];
    document.body.dataset.step = String(at);
    document.body.dataset.view = String(view);
    document.body.dataset.toPlay = toPlay(at) === null ? "" : String(toPlay(at));
    for (let seat = 0; seat < 4; seat++) drawSeat(seat, state);
    drawTrick(state);
    drawStatus(state);
    drawLog();
    drawTricks(state);
    drawGraph(state);
    $("prev").disabled = at === 0;
    $("next").disabled = at === steps.length - 1;
    $("where").textContent = "step " + (at + 1) + " / " + steps.length;
    $("scrub").value = String(at);
    writeHash();
  }

  function go(step) {
    at = Math.max(0, Math.min(steps.length - 1, step));
    draw();
  }

  // -- where one is, in the address: #hand=4&step=31&seat=2 -------------------------------

  function writeHash() {
    const first = handStarts.filter((i) => i <= at).pop() ?? 0;
    const hand = handStarts.indexOf(first) + 1;
    const hash = "#hand=" + hand + "&step=" + (at - first + 1) + (view === "all" ? "" : "&seat=" + view);
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  /** Go where the address's hash says, if it says: true when it did. */
  function readHash() {
    const said = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (!said.has("hand") && !said.has("step") && !said.has("seat")) return false;
    const seat = said.get("seat");
    view = seat !== null && /^[0-3]$/.test(seat) ? Number(seat) : "all";
    $("view").value = String(view);
    const hand = Math.max(1, Math.min(handStarts.length, Number(said.get("hand")) || 1));
    const first = handStarts[hand - 1] ?? 0;
    const end = (handStarts[hand] ?? steps.length) - 1;
    go(Math.min(end, first + Math.max(1, Number(said.get("step")) || 1) - 1));
    return true;
  }

  // -- playing the steps one after another ---------------------------------------------------

  let timer = null;

  function setPlaying(playing) {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    $("play").textContent = playing ? "❚❚ pause" : "▶ play";
    $("play").setAttribute("aria-pressed", String(playing));
    document.body.dataset.playing = String(playing);
    if (playing) tick();
  }

  function tick() {
    timer = setTimeout(() => {
      timer = null;
      if (at >= steps.length - 1) { setPlaying(false); return; }
      go(at + 1);
      if (at >= steps.length - 1) setPlaying(false);
      else tick();
    }, Number($("speed").value));
  }

  /** The first step of the next (``direction`` 1) or this or the previous (-1) hand. */
  function handStep(direction) {
    if (direction > 0) return handStarts.find((i) => i > at) ?? steps.length - 1;
    const earlier = handStarts.filter((i) => i < at);
    return earlier.length ? earlier[earlier.length - 1] : 0;
  }

  function setView(value) {
    view = value === "all" ? "all" : Number(value);
    $("view").value = String(view);
    draw();
  }

  $("first").addEventListener("click", () => go(0));
  $("prev-hand").addEventListener("click", () => go(handStep(-1)));
  $("prev").addEventListener("click", () => go(at - 1));
  $("next").addEventListener("click", () => go(at + 1));
  $("next-hand").addEventListener("click", () => go(handStep(1)));
  $("last").addEventListener("click", () => go(steps.length - 1));
  $("view").addEventListener("change", (event) => setView(event.target.value));
  $("play").addEventListener("click", () => setPlaying(timer === null));
  $("speed").addEventListener("change", () => { if (timer !== null) setPlaying(true); });
  $("scrub").max = String(steps.length - 1);
  $("scrub").addEventListener("input", (event) => go(Number(event.target.value)));
  window.addEventListener("hashchange", readHash);
  { // a swipe across the table: left for the next step, right for the one before
    let from = null;
    $("table").addEventListener("touchstart", (event) => {
      from = event.touches.length === 1 ? { x: event.touches[0].clientX, y: event.touches[0].clientY } : null;
    }, { passive: true });
    $("table").addEventListener("touchend", (event) => {
      if (!from) return;
      const dx = event.changedTouches[0].clientX - from.x, dy = event.changedTouches[0].clientY - from.y;
      from = null;
      if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) go(at + (dx < 0 ? 1 : -1));
    });
  }
  document.addEventListener("keydown", (event) => {
    const tag = event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === " " && tag === "BUTTON") return; // the button's own Space
    const keys = {
      ArrowRight: () => go(at + 1),
      ArrowLeft: () => go(at - 1),
      PageDown: () => go(handStep(1)),
      PageUp: () => go(handStep(-1)),
      Home: () => go(0),
      End: () => go(steps.length - 1),
      a: () => setView("all"),
      " ": () => setPlaying(timer === null),
      0: () => setView(0), 1: () => setView(1), 2: () => setView(2), 3: () => setView(3),
    };
    const action = keys[event.key];
    if (action) { action(); event.preventDefault(); }
  });
  const viewSelect = $("view");
  for (let seat = 0; seat < 4; seat++) {
    const option = el("option", "", "what " + seatName(seat) + " saw");
    option.value = String(seat);
    viewSelect.append(option);
  }

  drawHeader();
  const start = JSON.parse(document.getElementById("start").textContent);
  if (!readHash()) {
    view = start.view === "all" ? "all" : Number(start.view);
    $("view").value = String(view);
    go(handStarts[start.hand] ?? 0);
  }
  window.chaodipiViewer = { steps: steps.length, go, setView, setPlaying, parseCards };
})();
