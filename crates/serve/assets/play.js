// The play page: the game lives here; each move is one request.
"use strict";

let c4 = null;      // connect four: the server's last board
let bg = null;      // backgammon: the server's last view
let busy = false;

const game = () => $("game").value;
const human = () => Number($("seat").value);
function settings() {
  const s = { agent: $("agent").value || undefined, network_alone: $("alone").checked };
  if ($("simulations").value) s.simulations = Number($("simulations").value);
  return s;
}
function log(line) { const p = document.createElement("div"); p.textContent = line; $("log").prepend(p); }

async function guarded(work) {
  if (busy) return;
  busy = true;
  showError(null);
  try { await work(); } catch (e) { showError(e); } finally { busy = false; }
}

// Connect four.
function showConnect4() {
  drawConnect4($("board"), c4.cells, column => guarded(() => playColumn(column)));
  const you = human() + 1;
  let status;
  if (c4.over) status = c4.winner === null ? "Game over: a draw" :
    c4.winner === you ? "Game over: you win" : "Game over: the agent wins";
  else status = c4.to_move === you ? "Your move: click a column" : "The agent is thinking…";
  $("status").textContent = status;
  $("analyse").href = `/analyse?game=connect4&moves=${c4.moves}`;
}
async function connect4Request(column) {
  const reply = await api("/api/connect4/move", { ...settings(), moves: c4 ? c4.moves : "", column });
  c4 = reply.board;
  if (reply.agent_move) log(`the agent plays column ${reply.agent_move}`);
  showConnect4();
}
async function playColumn(column) {
  if (c4.over) return;
  log(`you play column ${column}`);
  await connect4Request(column);
}
async function newConnect4() {
  c4 = { moves: "", cells: Array.from({ length: 6 }, () => Array(7).fill(0)), legal: [1, 2, 3, 4, 5, 6, 7],
    over: false, winner: null, to_move: 1 };
  showConnect4();
  if (human() === 1) await connect4Request(undefined);
}

// Backgammon.
function showBackgammon(reply) {
  bg = reply.view;
  for (const e of reply.events || []) log(e);
  drawBackgammon($("board"), bg);
  $("ids").value = `${bg.position_id}:${bg.match_id}`;
  $("analyse").href = `/analyse?game=backgammon&id=${encodeURIComponent(bg.position_id + ":" + bg.match_id)}`;
  const plays = $("plays");
  plays.innerHTML = "";
  if (bg.over) {
    const kind = ["", "", " (a gammon)", " (a backgammon)"][bg.over.points];
    $("status").textContent = `Game over: ${bg.over.winner === human() ? "you win" : "the agent wins"} ` +
      `${bg.over.points} point(s)${kind}`;
    return;
  }
  const seat = ["X", "O"][human()];
  if (bg.to_play === human()) {
    $("status").textContent = `You (${seat}) rolled ${bg.dice[0]}-${bg.dice[1]}: choose a play`;
    for (const play of bg.plays) {
      const b = document.createElement("button");
      b.textContent = play;
      b.addEventListener("click", () => guarded(() => backgammonMove(play)));
      plays.appendChild(b);
    }
  } else {
    $("status").textContent = "The agent is on roll…";
  }
}
async function backgammonMove(play) {
  const reply = await api("/api/backgammon/move", { ...settings(), state: bg.state, human: human(), play });
  showBackgammon(reply);
}
async function agentIfOnRoll() {
  if (!bg.over && bg.to_play !== null && bg.to_play !== human()) await backgammonMove(undefined);
}
async function newBackgammon() {
  showBackgammon(await api("/api/backgammon/new", {}));
  log(`new game: ${bg.to_play === human() ? "you open" : "the agent opens"}`);
  await agentIfOnRoll();
}
async function setupPasted() {
  const onRoll = $("onroll").value === "agent" ? 1 - human() : human();
  showBackgammon(await api("/api/backgammon/setup", { text: $("paste").value, player: onRoll }));
  log(`set up ${bg.position_id}`);
  await agentIfOnRoll();
}

async function newGame() {
  $("bg").hidden = game() !== "backgammon";
  $("log").innerHTML = "";
  c4 = bg = null;
  if (game() === "connect4") await newConnect4(); else await newBackgammon();
}
async function start() {
  await fillAgents($("agent"), game());
  await newGame();
}

$("game").addEventListener("change", () => guarded(start));
$("new").addEventListener("click", () => guarded(newGame));
$("setup").addEventListener("click", () => guarded(setupPasted));
$("copy").addEventListener("click", () => { $("ids").select(); navigator.clipboard?.writeText($("ids").value); });
guarded(start);
