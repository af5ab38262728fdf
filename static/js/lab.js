// The algorithm lab: send the position and up to four search configurations (lab_start), then show every
// column's counters as its events arrive (lab) and, once all are final, whether their values agree.
import { io } from "./socketio.js";
import { formatCount, formatMillis } from "./format.js";
import { truthMark } from "./truth.js";

const form = document.getElementById("lab-form");
const runButton = document.getElementById("lab-run");
const stopButton = document.getElementById("lab-stop");
const status = document.getElementById("lab-status");
const results = document.getElementById("lab-results");
const tbody = document.querySelector("#lab-table tbody");
const agree = document.getElementById("lab-agree");
const socket = io({ transports: ["websocket", "polling"], tryAllTransports: true });
let run = null;
let columns = [];

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function number(name) {
  const raw = form.elements[name].value.trim();
  return raw === "" ? null : Number(raw);
}

function configs() {
  const chosen = [];
  for (let column = 0; column < 4; column += 1) {
    const preset = form.elements[`preset${column}`].value;
    if (!preset) continue;
    const label = form.elements[`preset${column}`].selectedOptions[0].textContent;
    chosen.push({ label, config: { preset, depth: number(`depth${column}`), time: number(`time${column}`), playouts: number(`playouts${column}`) } });
  }
  return chosen;
}

/** The exact value of the column's best move, marked with its verdict on the column's search (engine/truth.py). */
function truthCell(info, final) {
  const exact = final ? info.truth?.[info.best] : null;
  if (!exact) return cell(final && info.truth === null ? "unknown" : "–");
  const mark = truthMark(exact, info.score_text, info.depth);
  const td = cell(mark.text);
  td.title = mark.title;
  td.className = mark.verdict === "error" ? "horizon" : (mark.verdict ?? "");
  return td;
}

function renderRow(column) {
  const entry = columns[column];
  const info = entry.info ?? {};
  const row = document.createElement("tr");
  row.dataset.column = String(column);
  row.dataset.state = entry.state;
  const final = entry.state === "done";
  row.append(
    cell(entry.label), cell(entry.state), cell(info.depth ?? "–"), cell(final ? info.score_text ?? "–" : "–"),
    cell(final ? info.pv_text?.[0] ?? info.best ?? "–" : "–"), cell(formatCount(info.nodes ?? 0)), cell(formatCount(info.pruned ?? 0)),
    cell(info.time_ms === undefined ? "–" : formatMillis(info.time_ms)), cell(formatCount(info.nps ?? 0)),
    cell(info.ebf == null ? "–" : info.ebf.toFixed(2)), cell(entry.agrees ?? ""), truthCell(info, final),
  );
  const old = tbody.querySelector(`tr[data-column="${column}"]`);
  if (old) old.replaceWith(row);
  else tbody.append(row);
}

function finish() {
  const finals = columns.filter((c) => c.state === "done" && c.info.algorithm !== "mcts");
  const reference = finals[0]?.info.score;
  for (const entry of columns) {
    if (entry.state !== "done") entry.agrees = "";
    else if (entry.info.algorithm === "mcts") entry.agrees = "n/a (MCTS)";
    else entry.agrees = entry.info.score === reference ? "yes" : "no";
  }
  columns.forEach((_, column) => renderRow(column));
  const values = new Set(finals.map((c) => c.info.score));
  agree.textContent = finals.length < 2 ? "" : values.size === 1 ? "All values agree." : "The values differ (different depths or limits?).";
  runButton.disabled = false;
  stopButton.disabled = true;
  status.textContent = "Done.";
}

/** The analysis board's link to the position the form names. */
function drawAnalyseLink() {
  const query = new URLSearchParams();
  const setup = form.elements.setup.value.trim();
  const moves = form.elements.moves.value.trim().split(/\s+/).filter(Boolean).join(" ");
  if (setup) query.set("setup", setup);
  if (moves) query.set("moves", moves);
  const text = query.toString();
  document.getElementById("lab-analyse").href = `/analyse/${encodeURIComponent(form.elements.game.value)}${text ? `?${text}` : ""}`;
}
form.addEventListener("input", drawAnalyseLink);
drawAnalyseLink();

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const chosen = configs();
  if (chosen.length === 0) {
    status.textContent = "Choose at least one search.";
    return;
  }
  const moves = form.elements.moves.value.trim().split(/\s+/).filter(Boolean);
  columns = chosen.map(({ label }) => ({ label, state: "waiting", info: null }));
  tbody.replaceChildren();
  columns.forEach((_, column) => renderRow(column));
  agree.textContent = "";
  results.hidden = false;
  runButton.disabled = true;
  status.textContent = "Starting…";
  run = null;
  socket.emit("lab_start", {
    game: form.elements.game.value, setup: form.elements.setup.value, moves, configs: chosen.map((c) => c.config),
  });
});

stopButton.addEventListener("click", () => {
  if (run) socket.emit("lab_stop", { run });
});

socket.on("lab_started", (payload) => {
  run = payload.run;
  stopButton.disabled = false;
  status.textContent = `Searching ${payload.setup || "the start position"}…`;
});

socket.on("lab", ({ run: id, column, info }) => {
  if (id !== run || !columns[column]) return;
  const entry = columns[column];
  if (info.kind === "queued") entry.state = "queued";
  else if (info.kind === "started") entry.state = "searching";
  else if (info.kind === "cancelled") entry.state = "stopped";
  else if (info.kind === "failed") entry.state = `failed: ${info.message}`;
  else {
    entry.info = info;
    entry.state = info.final ? "done" : "searching";
  }
  renderRow(column);
  if (columns.every((c) => !["waiting", "queued", "searching"].includes(c.state))) finish();
});

socket.on("error", (payload) => {
  if (!String(payload.event ?? "").startsWith("lab")) return;
  status.textContent = payload.message;
  runButton.disabled = false;
  stopButton.disabled = true;
  results.hidden = true;
});
