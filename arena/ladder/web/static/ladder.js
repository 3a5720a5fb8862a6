// The ladder's pages: each time says how long ago it was (or how long a pair has played),
// and the leaderboard follows the ladder's events (server-sent, /events): when something
// happens it reads the page again and puts in the new standings, the pairs playing and the
// recent pairs. When the stream drops, the browser connects again and, once the stream is
// ready again, the page is read afresh.
"use strict";
(function () {
  const SECTIONS = ["standings", "apart", "playing", "recent"];

  function span(seconds) { // in its largest unit: "40 s", "3 min", "2 h", "5 d"
    const s = Math.max(0, Math.round(seconds));
    if (s < 60) return s + " s";
    if (s < 3600) return Math.floor(s / 60) + " min";
    if (s < 86400) return Math.floor(s / 3600) + " h";
    return Math.floor(s / 86400) + " d";
  }

  function tick() {
    const now = Date.now() / 1000;
    for (const time of document.querySelectorAll("time[data-ts]")) {
      const seconds = now - Number(time.dataset.ts);
      time.title = time.getAttribute("datetime");
      time.textContent = time.dataset.style === "for" ? "for " + span(seconds) : span(seconds) + " ago";
    }
  }
  tick();
  setInterval(tick, 5000);

  const list = document.getElementById("playing-list");
  if (!list || !("EventSource" in window)) return;

  const state = document.getElementById("live-state");
  function show(text, down) {
    state.hidden = false;
    state.textContent = text;
    state.classList.toggle("down", down);
  }

  let reading = null;
  let again = false;
  function refresh() { // one read at a time; events during it ask for one more
    if (reading) { again = true; return; }
    reading = fetch(window.location.pathname, { cache: "no-store" })
      .then((response) => response.ok ? response.text() : Promise.reject(response.status))
      .then((html) => {
        const fresh = new DOMParser().parseFromString(html, "text/html");
        for (const id of SECTIONS) {
          const now = fresh.getElementById(id);
          const here = document.getElementById(id);
          if (now && here) here.replaceWith(document.adoptNode(now));
        }
        document.body.dataset.read = String(Number(document.body.dataset.read || 0) + 1);
        tick();
        document.getElementById("live-state").replaceWith(state); // keep the stream's state
      })
      .catch(() => {})
      .finally(() => {
        reading = null;
        if (again) { again = false; refresh(); }
      });
  }

  const source = new EventSource(list.dataset.events);
  let opened = false;
  source.addEventListener("ready", () => { // subscribed: from now on no event is missed
    show("live", false);
    if (opened) refresh(); // events may have been missed while it was away
    opened = true;
  });
  source.addEventListener("error", () => show("reconnecting…", true));
  for (const kind of ["pair_started", "game_over", "pair_finished", "version", "refit"]) {
    source.addEventListener(kind, refresh);
  }
})();
