// The algorithm lab: send the position and up to four search configurations (lab_start), then show every
// column's counters as its events arrive (lab) and, once all are final, whether their values agree.
import { io } from "./socketio.js";
import { formatCount, formatMillis } from "./format.js";
import { stepsUrl } from "./steplink.js";
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
let runPosition = null; // the game, setup and moves of the run shown, as they were sent

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

/** The column's best move as players write it (SAN in chess); none for a search that completed no depth (its
 * "best" is only the first move it would have tried). */
function shownBest(info) {
  if (!info.depth && info.algorithm !== "mcts") return "–";
  return info.pv_text?.[0] ?? info.root_moves?.find((rm) => rm.move === info.best)?.text ?? info.best ?? "–";
}

/** A link to step through the column's search node by node: its preset, to the depth asked, else the depth it
 * reached (MCTS has no nodes to step through). */
function stepsCell(entry, final) {
  const td = document.createElement("td");
  const depth = entry.config.depth ?? entry.info?.depth;
  if (!final || entry.config.preset === "mcts" || !depth) {
    td.textContent = "–";
    return td;
  }
  const link = document.createElement("a");
  link.href = stepsUrl({ ...runPosition, preset: entry.config.preset, depth });
  link.textContent = "Step through";
  link.setAttribute("aria-label", `Step through the ${entry.label} search node by node`);
  td.append(link);
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
    cell(final ? shownBest(info) : "–"), cell(formatCount(info.nodes ?? 0)), cell(formatCount(info.pruned ?? 0)),
    cell(info.time_ms === undefined ? "–" : formatMillis(info.time_ms)), cell(formatCount(info.nps ?? 0)),
    cell(info.ebf == null ? "–" : info.ebf.toFixed(2)), cell(entry.agrees ?? ""), truthCell(info, final),
    stepsCell(entry, final),
  );
  const old = tbody.querySelector(`tr[data-column="${column}"]`);
  if (old) old.replaceWith(row);
  else tbody.append(row);
}

/** Whether two finished columns' values are of the same thing: the same depth, or a value proven at depth d (the
 * game's value, which every search to depth d or more finds) beside one of depth d or more, or two proven ones. */
function likeWithLike(a, b) {
  if (a.proven && b.proven) return true;
  if (a.proven) return b.depth >= a.depth;
  if (b.proven) return a.depth >= b.depth;
  return a.depth === b.depth;
}

/**
 * Whether each finished column agrees with the others, like with like: only searches that completed the same depth
 * are compared, and proven ones with each other (a search that stopped below its depth because its value was proven
 * holds for every depth; one that did not reach its depth otherwise says how far it got), and values agree when
 * they read the same as shown (the panel's precision). MCTS has no depth and is not compared.
 */
function judgeAgreement() {
  const comparable = (entry) => entry.state === "done" && entry.info.algorithm !== "mcts" && entry.info.depth > 0
    && (entry.config.depth === null || entry.info.depth >= entry.config.depth || entry.info.proven);
  for (const entry of columns) {
    const info = entry.info;
    if (entry.state !== "done") entry.agrees = "";
    else if (info.algorithm === "mcts") entry.agrees = "n/a (MCTS)";
    else if (!info.depth) entry.agrees = "no value: no depth completed";
    else if (!comparable(entry)) entry.agrees = `n/a: depth ${info.depth} of ${entry.config.depth}`;
    else {
      const peers = columns.filter((other) => other !== entry && comparable(other) && likeWithLike(info, other.info));
      entry.agrees = peers.length === 0 ? `alone at depth ${info.depth}${info.proven ? " (proven)" : ""}`
        : peers.every((other) => other.info.score_text === info.score_text) ? "yes" : "no";
    }
  }
  // One sentence per depth some column was not proven at (with the columns proven by then), one for proven ones.
  const compared = columns.filter(comparable);
  const depths = [...new Set(compared.filter((entry) => !entry.info.proven).map((entry) => entry.info.depth))]
    .sort((a, b) => a - b);
  const groups = depths.map((depth) => [`At depth ${depth}`,
    compared.filter((entry) => entry.info.depth === depth || (entry.info.proven && entry.info.depth <= depth))]);
  if (!depths.length) groups.push(["Proven", compared]);
  const sentences = groups.map(([where, group]) => {
    if (group.length < 2) return null;
    const values = new Set(group.map((entry) => entry.info.score_text));
    const proven = group.filter((entry) => entry.info.proven).length;
    const note = proven && depths.length ? ` (${proven} proven: the game's value at every depth)` : "";
    return values.size === 1 ? `${where} the ${group.length} values agree (${group[0].info.score_text})${note}.`
      : `${where} the values differ${note}: ${group.map((entry) => `${entry.label} ${entry.info.score_text}`).join(", ")}.`;
  }).filter(Boolean);
  const short = columns.filter((entry) => entry.state === "done" && entry.info.algorithm !== "mcts" && !comparable(entry));
  if (short.length) {
    sentences.push(`Not compared: ${short.map((entry) => `${entry.label} (depth ${entry.info.depth || 0} of the ${entry.config.depth ?? "?"} asked)`).join(", ")}.`);
  }
  return sentences.join(" ");
}

function finish() {
  agree.textContent = judgeAgreement();
  columns.forEach((_, column) => renderRow(column));
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
  runPosition = { game: form.elements.game.value, setup: form.elements.setup.value.trim(), moves };
  columns = chosen.map(({ label, config }) => ({ label, config, state: "waiting", info: null }));
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
