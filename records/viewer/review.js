// The game's review (arena show --html --review; review_json's JSON, docs/seeing-a-game.md),
// when the page has one: beside each step whose action was a decision judged, its mark and
// cost, the better move (also raised on the table's cards), and the candidates with their
// values; a mark beside the step in the hand's steps. The values are the review's, in levels
// for the acting seat's team.

const review = JSON.parse($("review").textContent);
const reviewOf = {}; // step → the review's decision taken at it
const decisionsOf = {}; // hand number → its decisions reviewed, in order
for (const decision of review ? review.decisions : []) {
  const step = stepAt(decision.hand, decision.step); // the review names steps as the address does
  if (step === undefined) continue;
  const entry = { ...decision, step };
  reviewOf[step] = entry;
  (decisionsOf[decision.hand] ||= []).push(entry);
}
/** A mark and its class (the colour it is drawn in). */
const MARKS = { "??": "blunder", "?": "mistake", "?!": "inaccuracy" };

/** A move as the review names it, the record's action without "play": "♠AA", "bury ♣743". */
const moveText = (action) => action.replace(/^play /, "");

/** The cards of a move's text ("play ♠AA" → two ♠A), none for a move without cards. */
function moveCards(action) {
  try { return parseCards(action.replace(/^\S+\s*/, "")); } catch (error) { return []; }
}

/** The value of the position after a judged decision, from team 0's side: the best
 * candidate's value for the acting seat's team, negated for team 1. */
const teamValue = (d) => (teamOf(d.seat) === 0 ? 1 : -1) * d.candidates[0].value;

/** ``value`` to two decimals as arena review's text writes it: as ``toFixed`` does, but an
 * exact tie goes to the even digit (1.625 is "1.62"), so the page and the text say the same. */
function fixed(value) {
  if (!/^\d+\.\d\d50*$/.test(Math.abs(value).toFixed(20))) return value.toFixed(2);
  const down = Math.trunc(Math.abs(value) * 100); // a tie's lower neighbour, in hundredths
  return (value < 0 ? "-" : "") + ((down % 2 === 0 ? down : down + 1) / 100).toFixed(2);
}

/** A value with its sign: "+0.25", "−1.50". */
const signed = (value) => (value < 0 ? "−" : "+") + fixed(Math.abs(value));

/** A judged decision's verdict in words: "?? cost 0.62 ± 0.10", "the reviewer's move". */
function verdictText(d) {
  if (d.chosen === d.best) return "the reviewer's move";
  return (d.mark ? d.mark + " " : "") + "cost " + fixed(d.cost) + " ± " + fixed(d.error) +
    (d.mark ? "" : " (within the noise)");
}

/** The judge that made the review, as arena review's text names it: " · judge chaodipi.search
 * PIMC 3" (nothing for a review that does not name one). */
const judgeText = () => (review.judge ? " · judge " + review.judge.name + " " + review.judge.version : "");

/** Whether the current view shows a decision's review: all hands, or the acting seat's view
 * (its candidates name cards the other seats did not see, and its values come from worlds
 * drawn from what the acting seat saw). */
const reviewShown = (d) => view === "all" || view === d.seat;

/** The mark beside a step in the hand's steps, or null. */
function reviewMark(step) {
  const d = reviewOf[step];
  if (!d || !d.judged || !d.mark || !reviewShown(d)) return null;
  const mark = el("span", "mark " + MARKS[d.mark], d.mark);
  mark.title = verdictText(d);
  return mark;
}

function drawReview(state) {
  const box = $("step-review");
  box.hidden = !review || !steps[at].action;
  if (box.hidden) return;
  box.replaceChildren(el("h2", "", "Review"));
  const d = reviewOf[at];
  const action = steps[at].action;
  if (!d) {
    box.append(el("p", "muted", action.asked === false ? "A forced move: no decision to judge."
      : "This decision is not in the review."));
    return;
  }
  if (!d.judged) {
    box.append(el("p", "muted", "Not judged: the reviewer had one candidate, nothing to weigh it against."));
    return;
  }
  if (!reviewShown(d)) {
    box.append(el("p", "muted", seatName(d.seat) + "'s decision: its review shows in all hands' view or seat " + d.seat + "'s."));
    return;
  }
  box.dataset.mark = d.mark;
  const verdict = el("p", "verdict " + (MARKS[d.mark] || (d.chosen === d.best ? "best" : "")));
  verdict.append(el("strong", "", verdictText(d)));
  verdict.append(el("span", "muted", " · " + seatName(d.seat) + ", " + d.phase + ", chose " + moveText(d.chosen)));
  box.append(verdict);
  const trumps = trumpsOf(state);
  if (d.chosen !== d.best) {
    const better = el("div", "better-move");
    better.append(el("span", "", "better: " + moveText(d.best)));
    const cards = moveCards(d.best);
    if (cards.length) better.append(cardsNode(cards, "small", trumps));
    box.append(better);
    raiseOnTable(d.seat, cards);
  }
  const table = el("table", "candidates");
  const head = el("tr");
  head.append(el("th", "", "move"), el("th", "", "value"), el("th", "", "±"));
  table.append(head);
  for (const c of d.candidates) {
    const row = el("tr", c.action === d.chosen ? "chosen" : "");
    row.append(el("td", "", moveText(c.action) + (c.action === d.chosen ? " ← chosen" : "")),
      el("td", "num", signed(c.value)), el("td", "num", fixed(c.error)));
    table.append(row);
  }
  box.append(table);
  // hindsight (all cards open) is no seat's information: only in the view of all hands
  box.append(el("p", "muted small", "levels for team " + teamOf(d.seat) + " · " + d.worlds + " worlds, " +
    review.simulations + " playouts" + judgeText() +
    (view === "all" ? " · all cards open: " + moveText(d.hindsight) : "")));
}

/** The better move's cards raised on the table: in the acting seat's hand as this step shows
 * it, or where the move just put them (the trick, the kitty). */
function raiseOnTable(seat, cards) {
  const places = [
    '.seat[data-seat="' + seat + '"] .hand .card',
    '.spot[data-seat="' + seat + '"] .card',
    "#kitty .card",
  ];
  for (const card of cards) {
    for (const place of places) {
      const found = document.querySelector(place.replace(/ \.card$/, ' .card[data-card="' + card + '"]:not(.better)'));
      if (found) { found.classList.add("better"); break; }
    }
  }
}
