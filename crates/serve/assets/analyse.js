// The analyse page: the agent's policy, visits, value and line for one
// position; clicking a connect-four column plays it and analyses again.
"use strict";

const pct = p => p === null || p === undefined ? "–" : `${(100 * p).toFixed(1)}%`;
const signed = v => v === null || v === undefined ? "–" : (v >= 0 ? "+" : "") + v.toFixed(3);

function request() {
  const r = { agent: $("agent").value || undefined };
  if ($("simulations").value) r.simulations = Number($("simulations").value);
  return r;
}

async function analyseConnect4() {
  const moves = $("position").value.trim();
  $("status").textContent = "searching…";
  const a = await api("/api/connect4/analyse", { ...request(), moves });
  const notes = a.visits.map((v, c) => a.priors[c] === null ? "" : `${pct(a.priors[c])} ${v}`);
  drawConnect4($("board"), a.board.cells, column => {
    $("position").value = moves + column;
    run();
  }, notes);
  const rows = a.visits.map((v, c) => `<tr><td>${c + 1}</td><td>${pct(a.priors[c])}</td><td>${v}</td>` +
    `<td>${a.pons_scores ? (a.pons_scores[c] ?? "–") : "–"}</td></tr>`).join("");
  $("result").innerHTML = `
    <p>Player ${a.board.to_move} to move. Value for them: network ${signed(a.network_value)},
    search ${signed(a.search_value)}${a.proven_value !== null ? `, proven ${signed(a.proven_value)}` : ""}
    (${a.simulations} simulations, ${a.seconds.toFixed(2)} s).</p>
    <p>Principal variation: <b id="pv">${a.principal_variation.join(" ")}</b></p>
    <table id="table"><tr><th>column</th><th>prior</th><th>visits</th><th>exact score</th></tr>${rows}</table>
    <p id="pons">${a.pons_note}</p>`;
  $("status").textContent = "";
}

async function analyseBackgammon() {
  const text = $("position").value.trim() || "4HPwATDgc/ABMA";
  const setup = await api("/api/backgammon/setup", { text });
  const a = await api("/api/backgammon/analyse", { ...request(), state: setup.view.state });
  drawBackgammon($("board"), a.view);
  const td = a.rows_are === "plays";
  const head = td ? "<th>play</th><th>equity</th><th>win</th><th>gammon</th>" :
    "<th>checker move</th><th>prior</th><th>visits</th>";
  const rows = a.rows.map(r => td ?
    `<tr><td>${r.play}</td><td>${signed(r.equity)}</td><td>${pct(r.win)}</td><td>${pct(r.gammon)}</td></tr>` :
    `<tr><td>${r.play}</td><td>${pct(r.prior)}</td><td>${r.visits}</td></tr>`).join("");
  const seat = ["X", "O"][a.view.to_play];
  $("result").innerHTML = `
    <p class="ids">Position ID <input readonly value="${a.view.position_id}:${a.view.match_id}"></p>
    <p>${seat} to play ${a.view.dice[0]}-${a.view.dice[1]}. The agent plays <b id="agentplay">${a.agent_play}</b>.</p>
    ${a.network_value !== null ? `<p>Value for ${seat}: network ${signed(a.network_value)}, search
      ${signed(a.search_value)} (${a.simulations} simulations, ${a.seconds.toFixed(2)} s).</p>
      <p>Principal variation: <b id="pv">${a.principal_variation.join(" ")}</b></p>` : ""}
    <table id="table"><tr>${head}</tr>${rows}</table>`;
  $("status").textContent = "";
}

async function run() {
  showError(null);
  try {
    if ($("game").value === "connect4") await analyseConnect4(); else await analyseBackgammon();
  } catch (e) { showError(e); $("status").textContent = ""; }
}

async function pickGame() {
  const bgGame = $("game").value === "backgammon";
  $("position").placeholder = bgGame ? "Position ID [dice], e.g. 4HPwATDgc/ABMA 31" : "moves, e.g. 4453";
  $("board").innerHTML = $("result").innerHTML = "";
  await fillAgents($("agent"), $("game").value).catch(showError);
}

(async () => {
  const params = new URLSearchParams(location.search);
  if (params.get("game")) $("game").value = params.get("game");
  await pickGame();
  $("position").value = params.get("moves") ?? params.get("id") ?? "";
  if (params.get("game")) run();
})();
$("game").addEventListener("change", pickGame);
$("go").addEventListener("click", run);
$("position").addEventListener("keydown", e => { if (e.key === "Enter") run(); });
