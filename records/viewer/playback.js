// Moving through the steps: drawing one, the address's hash, playing them one after another,
// the buttons, keys and swipes, and where the page opens.
//
// Keys: ← → a step, Page Up / Page Down a hand, Home / End the first and last step, Space
// play / pause, A all hands, 0-3 what that seat saw. On a touch screen a swipe across the table
// steps. The address's hash holds where one is (#hand=4&step=31&seat=2: hand and step within
// it from 1, the seat whose view; no seat: all hands), so a link opens there.

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
  drawReview(state);
  drawValues(state);
  $("prev").disabled = at === 0;
  $("next").disabled = at === steps.length - 1;
  const place = placeOf(at);
  $("where").textContent = "step " + place.step + " / " + place.steps; // in this hand, as the address
  $("where").title = "hand " + place.hand + ", step " + place.step + " of its " + place.steps;
  $("scrub").value = String(at);
  writeHash();
}

function go(step) {
  at = Math.max(0, Math.min(steps.length - 1, step));
  draw();
}

// -- where one is, in the address: #hand=4&step=31&seat=2 -------------------------------

function writeHash() {
  const place = placeOf(at);
  const hash = "#hand=" + place.hand + "&step=" + place.step + (view === "all" ? "" : "&seat=" + view);
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
