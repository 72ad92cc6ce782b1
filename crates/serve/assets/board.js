// Shared by every page: the JSON API, the agent list and the two boards.
"use strict";

// POST (with a body) or GET a JSON endpoint; a 4xx/5xx throws its message.
async function api(path, body) {
  const init = body === undefined ? {} :
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: "the server sent no JSON" }));
  if (!response.ok) throw new Error(`${response.status}: ${data.error}`);
  return data;
}

function $(id) { return document.getElementById(id); }

// Shows `e` (an Error or text) in the page's error line; null clears it.
function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }

// Fills a <select> with the loaded agents of `game`.
async function fillAgents(select, game) {
  const agents = await api("/api/agents");
  select.innerHTML = "";
  for (const a of agents.filter(a => a.game === game)) {
    const option = document.createElement("option");
    option.value = a.name;
    option.textContent = `${a.name} (${a.task})`;
    option.dataset.simulations = a.simulations ?? "";
    select.appendChild(option);
  }
}

const SVG = "http://www.w3.org/2000/svg";
function svgEl(name, attrs, parent) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

// Connect four: `cells` rows top to bottom (0 empty, 1 X red, 2 O yellow).
// `onColumn(c)` (1-based) is called on a click; `notes[c]` is text drawn
// under column c.
function drawConnect4(container, cells, onColumn, notes) {
  const size = 56, rows = cells.length, cols = 7, foot = notes ? 40 : 0;
  const svg = svgEl("svg", { width: cols * size, height: rows * size + foot, id: "c4board" });
  svgEl("rect", { x: 0, y: 0, width: cols * size, height: rows * size, fill: "#2456a4", rx: 8 }, svg);
  for (let c = 0; c < cols; c++) {
    const column = svgEl("g", { class: "column", "data-column": c + 1, cursor: onColumn ? "pointer" : "default" }, svg);
    svgEl("rect", { x: c * size, y: 0, width: size, height: rows * size, fill: "transparent" }, column);
    for (let r = 0; r < rows; r++) {
      const fill = ["#fafafa", "#d33", "#ec3"][cells[r][c]];
      svgEl("circle", { cx: c * size + size / 2, cy: r * size + size / 2, r: size * 0.4, fill }, column);
    }
    if (onColumn) column.addEventListener("click", () => onColumn(c + 1));
    if (notes && notes[c] !== undefined) {
      const text = svgEl("text", { x: c * size + size / 2, y: rows * size + 16, "text-anchor": "middle",
        "font-size": 12 }, svg);
      text.textContent = notes[c];
    }
  }
  container.innerHTML = "";
  container.appendChild(svg);
}

// Backgammon from X's side: X's home board bottom right. `view` is the
// server's: points[n - 1] is X's point n (positive X, negative O).
function drawBackgammon(container, view) {
  const w = 36, h = 170, bar = 30, width = 12 * w + bar + 60, height = 2 * h + 40;
  const svg = svgEl("svg", { width, height, id: "bgboard" });
  svgEl("rect", { x: 0, y: 0, width, height, fill: "#d9b77e" }, svg);
  const xOf = n => { // left edge of X's point n
    const i = n <= 12 ? 12 - n : n - 13; // 0..11 from the left
    return i * w + (i >= 6 ? bar : 0);
  };
  for (let n = 1; n <= 24; n++) {
    const x = xOf(n), top = n > 12;
    const tip = top ? h : height - h;
    const base = top ? 0 : height;
    svgEl("polygon", { points: `${x},${base} ${x + w},${base} ${x + w / 2},${tip}`,
      fill: n % 2 ? "#8b3a2b" : "#f3e6c8" }, svg);
    const label = svgEl("text", { x: x + w / 2, y: top ? h + 14 : height - h - 6, "text-anchor": "middle",
      "font-size": 10 }, svg);
    label.textContent = n;
    const count = Math.abs(view.points[n - 1]);
    const fill = view.points[n - 1] > 0 ? "#fff" : "#222";
    for (let k = 0; k < Math.min(count, 5); k++) {
      const cy = top ? 16 + k * 30 : height - 16 - k * 30;
      svgEl("circle", { cx: x + w / 2, cy, r: 14, fill, stroke: "#555" }, svg);
    }
    if (count > 5) {
      const t = svgEl("text", { x: x + w / 2, y: top ? 16 + 4 * 30 + 4 : height - 16 - 4 * 30 + 4,
        "text-anchor": "middle", "font-size": 12, fill: view.points[n - 1] > 0 ? "#000" : "#fff" }, svg);
      t.textContent = count;
    }
  }
  const barX = 6 * w + bar / 2;
  svgEl("rect", { x: 6 * w, y: 0, width: bar, height, fill: "#7a5a30" }, svg);
  const text = (x, y, s) => { const t = svgEl("text", { x, y, "text-anchor": "middle", "font-size": 12 }, svg);
    t.textContent = s; };
  text(barX, height / 2 - 20, `O ${view.bar[1]}`);
  text(barX, height / 2 + 30, `X ${view.bar[0]}`);
  text(12 * w + bar + 30, 20, `off O ${view.off[1]}`);
  text(12 * w + bar + 30, height - 10, `off X ${view.off[0]}`);
  if (view.dice) text(12 * w + bar + 30, height / 2, `dice ${view.dice[0]}-${view.dice[1]}`);
  container.innerHTML = "";
  container.appendChild(svg);
}
