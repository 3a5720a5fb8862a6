// The hand's graphs, inline SVG.

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
