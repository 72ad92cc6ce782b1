// The watch page: a run's metrics.jsonl polled from the byte offset the
// last poll reached, drawn as one SVG chart per metric; and a logic CA's
// frames played back on a canvas.
"use strict";

let series = {};   // metric name -> [[step, value], ...]
let offset = 0, lineCount = 0, polling = null, watched = "";

async function poll() {
  try {
    const chunk = await api(`/api/metrics?run=${encodeURIComponent(watched)}&offset=${offset}`);
    if (chunk.restarted) { series = {}; lineCount = 0; }
    for (const line of chunk.lines) {
      for (const [name, value] of Object.entries(line)) {
        if (name === "step" || typeof value !== "number") continue;
        (series[name] ||= []).push([line.step, value]);
      }
    }
    lineCount += chunk.lines.length;
    offset = chunk.offset;
    showError(null);
    $("lines").textContent = `${lineCount} lines, ${chunk.size} bytes`;
    if (chunk.lines.length) draw();
  } catch (e) { showError(e); }
}

function draw() {
  const charts = $("charts");
  charts.innerHTML = "";
  for (const [name, points] of Object.entries(series)) {
    const w = 320, h = 180, m = 36;
    const svg = svgEl("svg", { width: w, height: h, class: "chart", "data-metric": name }, charts);
    const xs = points.map(p => p[0]), ys = points.map(p => p[1]).filter(Number.isFinite);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    const sx = x => m + (w - m - 8) * (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5);
    const sy = y => h - 20 - (h - 40) * (y1 > y0 ? (y - y0) / (y1 - y0) : 0.5);
    const path = points.filter(p => Number.isFinite(p[1])).map((p, i) => `${i ? "L" : "M"}${sx(p[0])},${sy(p[1])}`);
    svgEl("path", { d: path.join(""), fill: "none", stroke: "#2456a4", "stroke-width": 1.5 }, svg);
    const label = (x, y, s, anchor) => {
      const t = svgEl("text", { x, y, "font-size": 10, "text-anchor": anchor || "start" }, svg);
      t.textContent = s;
    };
    label(4, 12, name);
    label(m - 2, sy(y1) + 3, y1.toPrecision(3), "end");
    label(m - 2, sy(y0) + 3, y0.toPrecision(3), "end");
    label(sx(x0), h - 6, `step ${x0}`);
    label(w - 8, h - 6, `${x1}`, "end");
  }
}

$("watch").addEventListener("click", () => {
  watched = $("run").value.trim();
  series = {}; offset = 0; lineCount = 0;
  $("charts").innerHTML = "";
  clearInterval(polling);
  poll();
  polling = setInterval(poll, 1000);
});

let playing = null;
$("grow").addEventListener("click", async () => {
  clearInterval(playing);
  $("caerror").textContent = "";
  const params = new URLSearchParams({ seed: $("seed").value || "0" });
  if ($("carun").value.trim()) params.set("run", $("carun").value.trim());
  if ($("steps").value) params.set("steps", $("steps").value);
  let data;
  try { data = await api(`/api/logic-ca/frames?${params}`); } catch (e) {
    $("caerror").textContent = e.message; return;
  }
  const canvas = $("ca"), scale = Math.max(1, Math.floor(256 / Math.max(data.height, data.width)));
  canvas.width = data.width * scale; canvas.height = data.height * scale;
  const ctx = canvas.getContext("2d");
  let k = 0;
  const show = () => {
    const frame = data.frames[k];
    ctx.fillStyle = "#f0f0f0"; ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = "#181818";
    frame.forEach((row, r) => { for (let c = 0; c < row.length; c++) if (row[c] === "1") ctx.fillRect(c * scale, r * scale, scale, scale); });
    $("frame").textContent = `frame ${k} of ${data.frames.length - 1} (trained for ${data.trained_steps} steps)`;
    if (++k >= data.frames.length) clearInterval(playing);
  };
  show();
  playing = setInterval(show, 150);
});

const preset = new URLSearchParams(location.search).get("run");
if (preset) { $("run").value = preset; $("watch").click(); }
