// Drawing a step: the header, the four seats, the trick, the status beside the table, the
// hand's steps and its tricks.

function drawHeader() {
  const teams = [0, 1].map((t) => names[t] === names[t + 2] ? names[t] : names[t] + " & " + names[t + 2]);
  $("title").textContent = teams[0] + " vs " + teams[1];
  const facts = [
    "preset " + header.preset,
    header.deal !== undefined ? "deal " + header.deal : null,
    header.game ? "game " + header.game : null,
    header.date || null,
  ].filter(Boolean);
  $("facts").textContent = facts.join(" · ");
  $("verdict").textContent = wordsOf.get(header).says || "";
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
  box.querySelector(".count").textContent = hand.length + (hand.length === 1 ? " card" : " cards");
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
    ["hand", placeOf(at).hand + " of " + handStarts.length],
    ["step", placeOf(at).step + " of " + placeOf(at).steps + " in this hand"],
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
  if (state.over) { // the parts of the hand_over line's words
    const said = wordsOf.get(state.over);
    over.replaceChildren(
      el("strong", "", said.head),
      el("div", "sum", said.sum),
      el("div", "", state.over.note),
      el("div", "muted", said.next),
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
      const mark = reviewMark(i);
      if (mark) item.append(mark);
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
