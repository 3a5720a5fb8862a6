// The hand's graphs, inline SVG: the defenders' points, and (with a review) the value of the
// position for each team.

/** An SVG element of ``svg``'s namespace (as the page parsed it) with ``attributes``. */
function svgNode(svg, tag, attributes) {
  const made = document.createElementNS(svg.namespaceURI, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
  return made;
}

/** The first and last step of the hand the current step is in. */
function handRange() {
  const first = handStarts.filter((i) => i <= at).pop() ?? 0;
  const last = (handStarts.find((i) => i > at) ?? steps.length) - 1;
  return [first, last];
}

/** The defenders' points at each step of this hand, as the record states them (the
 * running total from the card play on, the scored total at the hand's end): a line, the
 * current step marked. */
function drawGraph(state) {
  const svg = $("points");
  const node = (tag, attributes) => svgNode(svg, tag, attributes);
  const [first, last] = handRange();
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

/** The value of the position through this hand, from team 0's side, as the review judged it:
 * at each judged decision, the reviewer's best candidate's value for the acting seat's team
 * (negated for team 1), joined by a line over the hand's steps (above the middle: team 0
 * ahead; below: team 1). The marked decisions are dots coloured by their mark (a click goes
 * to the step), and the current step is marked, as lichess's evaluation graph. In a seat's
 * view, only that seat's decisions: the others' values come from worlds drawn from cards it
 * never saw. Hidden without a review. */
function drawValues(state) {
  const figure = $("values-graph");
  figure.hidden = !review;
  if (!review) return;
  $("values-whose").textContent = view === "all" ? "each seat's decisions" : seatName(view) + "'s decisions only";
  const svg = $("values");
  const node = (tag, attributes) => svgNode(svg, tag, attributes);
  const [first, last] = handRange();
  const judged = (decisionsOf[state.number] || []).filter((d) => d.judged && reviewShown(d));
  const points = judged.map((d) => [d.step, teamValue(d), d]);
  svg.replaceChildren();
  svg.dataset.values = JSON.stringify(points.map(([, v]) => v));
  const width = Math.max(200, Math.round(svg.getBoundingClientRect().width) || 600);
  const height = 160, pad = 14, left = 30;
  svg.setAttribute("viewBox", "0 0 " + width + " " + height); // drawn at its own size: round dots
  const top = Math.max(1, Math.ceil(Math.max(0, ...points.map(([, v]) => Math.abs(v)))));
  const x = (i) => left + (width - left - pad) * (last > first ? (i - first) / (last - first) : 0);
  const y = (v) => height / 2 - (height / 2 - pad) * v / top;
  svg.append(node("rect", { x: left, y: pad, width: width - left - pad, height: height / 2 - pad, class: "team0" }));
  svg.append(node("rect", { x: left, y: height / 2, width: width - left - pad, height: height / 2 - pad, class: "team1" }));
  svg.append(node("line", { x1: left, x2: width - pad, y1: y(0), y2: y(0), class: "axis" }));
  for (const [v, text] of [[top, "+" + top], [0, "0"], [-top, "−" + top]]) {
    const label = node("text", { x: 2, y: y(v) + 4, class: "label" });
    label.textContent = text;
    svg.append(label);
  }
  if (points.length) {
    const line = points.map(([i, v]) => x(i).toFixed(1) + "," + y(v).toFixed(1)).join(" ");
    svg.append(node("polygon", {
      points: x(points[0][0]).toFixed(1) + "," + y(0) + " " + line + " " + x(points[points.length - 1][0]).toFixed(1) + "," + y(0),
      class: "area",
    }));
    svg.append(node("polyline", { points: line, class: "line" }));
  }
  svg.append(node("line", { x1: x(at), x2: x(at), y1: pad, y2: height - pad, class: "now" }));
  for (const [i, v, d] of points) {
    const marked = MARKS[d.mark];
    if (!marked && i !== at) continue;
    const dot = node("circle", {
      cx: x(i), cy: y(v), r: marked ? 6 : 4, class: "dot " + (marked ? marked : "here"),
    });
    dot.dataset.step = String(i);
    const title = node("title", {});
    title.textContent = "step " + d.step + " · " + seatName(d.seat) + ": " + verdictText(d);
    dot.append(title);
    dot.addEventListener("click", (event) => { event.stopPropagation(); goShown(i); });
    svg.append(dot);
  }
  svg.onclick = (event) => { // elsewhere on the graph: the judged decision nearest across
    if (!points.length) return;
    const box = svg.getBoundingClientRect();
    const across = (event.clientX - box.left) * width / box.width;
    const nearest = points.reduce((a, b) => (Math.abs(x(b[0]) - across) < Math.abs(x(a[0]) - across) ? b : a));
    goShown(nearest[0]);
  };
}

/** Go to step ``i`` from the graph, the step's review brought into sight (beside the graph on
 * a phone, in the panel beside the table on a wide screen). */
function goShown(i) {
  go(i);
  $("step-review").scrollIntoView({ block: "nearest" });
}
