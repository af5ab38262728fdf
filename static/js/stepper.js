// The search stepper: one search recorded node by node (GET /api/steps/<game>, docs/protocol.md), replayed one
// step at a time: a step enters a node (its window, table probe and moves in order) or returns from it (its value,
// bound and cut-off). The board shows the node's position (GET /api/analysis/<game> for its path). The URL names the
// search and the step (?setup=&moves=&preset=&depth=&step=), so a link reopens the same step.
import { escapeHtml, formatCount, formatPercent, isDecided, WIN } from "./format.js";
import { stepsUrl } from "./steplink.js";
import { showToast } from "./toast.js";

const $ = (id) => document.getElementById(id);
const root = $("steps-root");
const game = root.dataset.game;
const params = new URLSearchParams(window.location.search);
const asked = {
  setup: params.get("setup") ?? "",
  moves: (params.get("moves") ?? "").split(/\s+/).filter(Boolean),
  preset: params.get("preset") ?? "everything",
  depth: Number(params.get("depth") ?? "") || null,
};
const players = [...document.querySelectorAll("#players .who")].map((who) => who.textContent);
document.body.dataset.game = game; // the game's own piece colours (chess: white and black)
const ORDINAL = new Intl.PluralRules("en-US", { type: "ordinal" });
const SUFFIX = { one: "st", two: "nd", few: "rd", other: "th" };

const page = {
  data: null, // the recording
  record: null,
  events: null, // Int32Array: 2k = enter node k, 2k + 1 = return from node k
  at: null, // Int32Array: the step of each event (2k: node k's entry, 2k + 1: its return)
  parent: null, // Int32Array: each node's parent (-1 for a root)
  children: null, // node -> its child nodes in visit order
  cuts: [], // event indexes of the returns with a cut-off
  shallower: new Set(), // the nodes that searched a ply shallower than they entered with
  step: 0,
  playing: false,
  timer: 0,
  views: new Map(), // "move move ..." -> the analysis node payload of that path
  fetching: null,
  board: null,
  rootToMove: 0,
  scale: 1,
};

const ordinal = (n) => `${n}${SUFFIX[ORDINAL.select(n)]}`;

/** A value or bound of the record, for the side to move at a node `ply` plies below the root. */
function valueText(value, ply) {
  if (value === null || value === undefined) return "?";
  if (value > WIN) return "+∞";
  if (value < -WIN) return "−∞";
  if (isDecided(value)) {
    const plies = WIN - Math.abs(value) - ply;
    if (plies <= 0) return value > 0 ? "won" : "lost";
    return value > 0 ? `win in ${Math.ceil(plies / 2)}` : `loss in ${Math.floor(plies / 2)}`;
  }
  const number = page.scale === 1 ? String(Math.abs(value)) : (Math.abs(value) / page.scale).toFixed(2);
  return value > 0 ? `+${number}` : value < 0 ? `−${number}` : (page.scale === 1 ? "0" : "0.00");
}

const BOUND_MARK = { e: "", l: "≥ ", u: "≤ " };

function buildEvents(record) {
  const count = record.nodes;
  const events = new Int32Array(2 * count);
  const parent = new Int32Array(count);
  const children = Array.from({ length: count }, () => []);
  const stack = [];
  let at = 0;
  for (let node = 0; node < count; node += 1) {
    const ply = record.ply[node];
    while (stack.length > ply) events[at++] = 2 * stack.pop() + 1;
    parent[node] = ply ? stack[stack.length - 1] : -1;
    if (ply) children[parent[node]].push(node);
    events[at++] = 2 * node;
    stack.push(node);
  }
  while (stack.length) events[at++] = 2 * stack.pop() + 1;
  const stepOf = new Int32Array(2 * count);
  events.forEach((event, index) => { stepOf[event] = index; });
  page.at = stepOf;
  page.events = events;
  page.parent = parent;
  page.children = children;
  page.cuts = [];
  for (let index = 0; index < events.length; index += 1) {
    if (events[index] % 2 === 1 && String(events[index] >> 1) in record.cut) page.cuts.push(index);
  }
}

/** The moves from the root to `node` and whether a pass (null move) lies on the way. */
function pathOf(node) {
  const moves = [];
  for (let at = node; at >= 0 && page.record.ply[at] > 0; at = page.parent[at]) moves.push(page.record.move[at]);
  return moves.reverse();
}

function pathKey(moves) {
  return [...asked.moves, ...moves].join(" ");
}

/** The analysis node of a path (without any pass: the board cannot show a position reached by passing). */
async function viewOf(moves) {
  const key = pathKey(moves);
  if (page.views.has(key)) return page.views.get(key);
  const query = new URLSearchParams({ moves: key });
  if (asked.setup) query.set("setup", asked.setup);
  const response = await fetch(`/api/analysis/${game}?${query}`);
  const payload = await response.json();
  if (!response.ok) throw new Error(payload.message ?? response.statusText);
  page.views.set(key, payload);
  return payload;
}

/** Shows the board of the current step; while one is being fetched, the latest step's board follows it. */
async function drawBoard() {
  const node = page.events[page.step] >> 1;
  const path = pathOf(node);
  const pass = path.indexOf("pass");
  const shown = pass >= 0 ? path.slice(0, pass) : path;
  const note = $("board-note");
  note.hidden = pass < 0;
  note.textContent = pass < 0 ? "" : "On this path a side passed (the null move): the board shows the position "
    + "before the pass, which no move can reach.";
  if (page.fetching) {
    page.fetching.again = true;
    return;
  }
  const job = { again: false };
  page.fetching = job;
  try {
    const payload = await viewOf(shown);
    const current = page.events[page.step] >> 1;
    if (!job.again || pathKey(pathOf(current)) === pathKey(shown)) {
      page.board?.render(payload.view, {
        interactive: false, flipped: false, lastMove: shown.length ? shown[shown.length - 1] : null, hint: null,
      });
      drawFacts(); // its moves as players read them, now that the node's legal moves are known
      drawPath(path, payload);
      drawOrder();
    }
  } catch (error) {
    note.hidden = false;
    note.textContent = `The board could not be drawn: ${error.message}`;
  } finally {
    page.fetching = null;
    if (job.again) drawBoard();
  }
}

/** The shown text (SAN in chess) of each move of the path, from the node payload's own path. */
function drawPath(path, payload) {
  const shown = payload.shown.slice(asked.moves.length);
  const items = path.map((move, index) => (move === "pass" ? "pass" : shown[index] ?? move));
  $("step-path").innerHTML = items.length
    ? items.map((text, index) => `<span class="pv-move${index === items.length - 1 ? " last" : ""}">${escapeHtml(text)}</span>`).join(" ")
    : "<span class=\"hint\">the root: the position searched</span>";
}

/** A node's move in the game's notation as players read it (SAN in chess: from the node's legal moves). */
function shownMove(payload, move) {
  if (!payload) return move;
  const legal = payload.legal.find((row) => row.move === move);
  return legal ? legal.shown : move;
}

function sideAt(ply) {
  return players[(page.rootToMove + ply) % 2] ?? "";
}

function windowText(alpha, beta, ply) {
  const a = valueText(alpha, ply);
  const b = valueText(beta, ply);
  if (alpha < -WIN && beta > WIN) return `α = ${a}, β = ${b}: the full window, nothing known yet`;
  if (beta - alpha === 1) return `α = ${a}, β = ${b}: a null window, asking only “is the value above ${a}?”`;
  return `α = ${a}, β = ${b}: values at or below α cannot change the choice above, values at or above β are more `
    + "than the opponent will allow";
}

/** Why a stored entry answers the window (α, β) without a search. */
function cutReason(lower, upper, alpha, beta, ply) {
  if (lower === upper) return "the exact value is stored";
  if (lower >= beta) return `its lower bound ${valueText(lower, ply)} is already at or above β = ${valueText(beta, ply)}`;
  if (upper <= alpha) return `its upper bound ${valueText(upper, ply)} is already at or below α = ${valueText(alpha, ply)}`;
  return "its bounds answer the window once the game's bounds (mate distance, the game's rules) have narrowed it";
}

/** The current step's facts as rows of [name, HTML]; `payload` is the node's view when known (its moves are then
 * written as players read them, SAN in chess). */
function describeStep(payload) {
  const record = page.record;
  const event = page.events[page.step];
  const node = event >> 1;
  const leaving = event % 2 === 1;
  const ply = record.ply[node];
  const kind = record.kind[node];
  const legend = page.data.legend;
  const rows = [];
  const key = String(node);
  rows.push(["Node", `${formatCount(node + 1)} of ${formatCount(record.nodes)} · ${leaving ? "returns" : "enters"} · ${ply} `
    + `${ply === 1 ? "ply" : "plies"} below the root · ${escapeHtml(sideAt(ply))} to move`]);
  rows.push(["Path", "<span id=\"step-path\" class=\"pv\"></span>"]);
  if (kind === "R") {
    rows.push(["Searched as", `the root of a pass to depth ${record.depth[node]}`]);
  } else {
    const parent = page.parent[node];
    const order = record.order[String(parent)] ?? [];
    const index = record.index[node];
    const why = index >= 0 && order[index] ? record.reasons[order[index][1]] : "";
    rows.push(["Searched as", escapeHtml(legend.kind[kind])]);
    if (index >= 0) {
      rows.push(["Its place", `the ${ordinal(index + 1)} of ${order.length} moves at its parent: ${escapeHtml(why)}`]);
    }
  }
  const shallower = page.shallower.has(node)
    ? ": one less than it entered with, since the table had no move to try first (internal iterative reduction)" : "";
  rows.push(["Depth left", `${record.depth[node]} ${record.depth[node] === 1 ? "ply" : "plies"}${shallower}`]);
  rows.push(["Window", escapeHtml(windowText(record.alpha[node], record.beta[node], ply))]);
  const probe = record.tt[node];
  if (probe !== "-") {
    const entry = record.tt_entry[key];
    let text = escapeHtml(legend.tt[probe]);
    if (entry) {
      const [depth, lower, upper] = entry;
      const range = lower === upper ? `exactly ${valueText(lower, ply)}`
        : `between ${valueText(Math.max(lower, -WIN - 1), ply)} and ${valueText(Math.min(upper, WIN + 1), ply)}`;
      text += ` (stored: ${depth < 0 ? "proven" : `depth ${depth}`}, ${range})`;
      if (probe === "c") text += `: ${escapeHtml(cutReason(lower, upper, record.alpha[node], record.beta[node], ply))}`;
    }
    rows.push(["Table", text]);
  }
  if (record.skipped[key]) {
    const why = legend.skip[record.skip_reason[key]];
    const skipped = record.skipped[key].map((move) => escapeHtml(shownMove(payload, move)));
    rows.push(["Left out", `${skipped.join(", ")}: ${escapeHtml(why)}`]);
  }
  if (leaving) {
    const value = record.value[node];
    const bound = record.bound[node];
    rows.push(["Returns", `<b class="step-value">${BOUND_MARK[bound]}${escapeHtml(valueText(value, ply))}</b> for `
      + `${escapeHtml(sideAt(ply))}: ${escapeHtml(legend.bound[bound])}`]);
    rows.push(["From", escapeHtml(legend.source[record.source[node]])]);
    if (key in record.cut) {
      const order = record.order[key];
      const index = record.cut[key];
      const rest = order.slice(index + 1).map(([move]) => shownMove(payload, move));
      rows.push(["Cut-off", `<span class="cut-text">its ${ordinal(index + 1)} move, ${escapeHtml(shownMove(payload, order[index][0]))}, reached β `
        + `= ${escapeHtml(valueText(record.beta[node], ply))}: the opponent already has a better choice above, so `
        + `${rest.length ? `the other ${rest.length} (${escapeHtml(rest.join(", "))}) were never searched` : "no move was left"}</span>`]);
    }
  }
  return rows;
}

/** Writes the current step's facts, from what is known of its node so far. */
function drawFacts() {
  const rows = describeStep(page.views.get(pathKey(pathOf(page.events[page.step] >> 1))));
  $("step-body").innerHTML = `<dl class="step-facts">${rows.map(([name, text]) => `<div><dt>${name}</dt><dd>${text}</dd></div>`).join("")}</dl>`;
}

function drawStep() {
  if (!page.record) return;
  drawFacts();
  $("step-count").textContent = `Step ${formatCount(page.step + 1)} of ${formatCount(page.events.length)}`;
  $("step-range").value = String(page.step);
  drawOrder();
  drawBoard();
  if (!page.playing) announce();
}

/** The current node's moves in order: why each is there, and what its searches have returned so far. */
function drawOrder() {
  const record = page.record;
  const event = page.events[page.step];
  const node = event >> 1;
  const ply = record.ply[node];
  const order = record.order[String(node)];
  const body = $("order-rows");
  $("order-table").hidden = !order;
  if (!order) {
    body.replaceChildren();
    $("order-note").textContent = "This node searches no moves of its own (see “From” once it returns).";
    return;
  }
  const visited = new Map(); // index -> the last visit of that move so far, and whether it has returned
  for (const child of page.children[node]) {
    if (page.at[2 * child] > page.step) break;
    const index = record.index[child];
    if (index >= 0) visited.set(index, { child, done: page.at[2 * child + 1] <= page.step });
  }
  const returned = page.at[2 * node + 1] <= page.step;
  const cut = record.cut[String(node)];
  const payload = page.views.get(pathKey(pathOf(node)));
  body.innerHTML = order.map(([move, reason], index) => {
    const seen = visited.get(index);
    let value = "not searched yet";
    let cls = "";
    if (seen) {
      const childValue = record.value[seen.child];
      const childBound = record.bound[seen.child];
      if (!seen.done) value = "being searched";
      else {
        const mark = childBound === "l" ? "≤ " : childBound === "u" ? "≥ " : "";
        value = `${mark}${valueText(childValue === null ? null : -childValue, ply)}`;
      }
    } else if (cut !== undefined && index > cut && returned) {
      value = "cut off: never searched";
      cls = "cut-row";
    }
    if (cut === index && returned) cls = "cutter-row";
    const legal = !payload || payload.legal.some((row) => row.move === move);
    const shown = legal ? shownMove(payload, move) : `${move} (illegal: leaves the king in check; skipped)`;
    return `<tr class="${cls}"><td>${index + 1}</td><td class="mono">${escapeHtml(shown)}</td>`
      + `<td>${escapeHtml(record.reasons[reason])}</td><td>${escapeHtml(value)}</td></tr>`;
  }).join("");
  $("order-note").textContent = `Values are for ${sideAt(ply)}, the side to move here: a move is worth the negation of `
    + "what its position returned for the opponent. ≥ and ≤ are bounds: a probe or a cut-off below proved only that much.";
}

function announce() {
  const event = page.events[page.step];
  const node = event >> 1;
  const record = page.record;
  const ply = record.ply[node];
  const path = pathOf(node).join(" ") || "the root";
  const text = event % 2 === 1
    ? `Node ${node + 1} returns ${BOUND_MARK[record.bound[node]]}${valueText(record.value[node], ply)}${String(node) in record.cut ? ", with a cut-off" : ""}.`
    : `Node ${node + 1} enters: ${path}. Window ${valueText(record.alpha[node], ply)} to ${valueText(record.beta[node], ply)}.`;
  $("announcer").textContent = text;
}

function go(step, { keepUrl = false } = {}) {
  if (!page.events) return;
  page.step = Math.max(0, Math.min(page.events.length - 1, step));
  drawStep();
  if (!keepUrl) writeUrl();
}

function writeUrl() {
  if (!asked.depth) return;
  window.history.replaceState(null, "", stepsUrl({ game, ...asked, step: page.step + 1 }));
}

function setPlaying(playing) {
  page.playing = playing && page.events !== null;
  $("step-play").textContent = page.playing ? "Pause" : "Play";
  $("step-play").setAttribute("aria-pressed", String(page.playing));
  window.clearTimeout(page.timer);
  if (page.playing) tick();
  else {
    writeUrl();
    if (page.record) announce();
  }
}

function tick() {
  if (!page.playing) return;
  if (page.step >= page.events.length - 1) {
    setPlaying(false);
    return;
  }
  go(page.step + 1, { keepUrl: true });
  page.timer = window.setTimeout(tick, 1000 / Number($("step-speed").value));
}

function nextCut(direction) {
  const cuts = page.cuts;
  if (!cuts.length) {
    showToast("This search made no cut-off.");
    return;
  }
  const found = direction > 0 ? cuts.find((index) => index > page.step) : [...cuts].reverse().find((index) => index < page.step);
  if (found === undefined) showToast(direction > 0 ? "No cut-off after this step." : "No cut-off before this step.");
  else go(found);
}

/** The step that enters the next node of the current node's parent (its next sibling), or the parent's return. */
function nextSibling() {
  const node = page.events[page.step] >> 1;
  const parent = page.parent[node];
  if (parent < 0) return;
  const target = page.children[parent].find((child) => child > node);
  const event = target === undefined ? 2 * parent + 1 : 2 * target;
  const index = page.events.indexOf(event, page.step);
  if (index >= 0) go(index);
}

function drawSummary() {
  const data = page.data;
  const search = data.search;
  const best = search.best ? shownMove(page.views.get(pathKey([])), search.best) : "–";
  $("search-summary").innerHTML = `<p>Depth ${search.depth} · ${formatCount(search.nodes)} nodes · `
    + `${formatCount(search.cutoffs)} cut-offs · table hits ${formatCount(search.tt_hits)} of `
    + `${formatCount(search.tt_probes)} probes · best ${escapeHtml(best)} · score ${escapeHtml(search.score_text || "–")} for `
    + `${escapeHtml(sideAt(0))}</p><p class="hint">${escapeHtml(presetLabel(data.preset))}, to depth ${data.depth}: a fresh `
    + "search (empty table, no time limit), so this page always replays the same steps.</p>";
  const ordering = data.ordering;
  if (!ordering) {
    $("ordering-summary").replaceChildren();
    return;
  }
  $("ordering-summary").innerHTML = `<h3 class="subhead">How good the move ordering was</h3>`
    + `<p>${formatCount(ordering.first_move_cutoffs)} of ${formatCount(ordering.cutoffs)} cut-offs came from the first `
    + `move tried (${formatPercent(ordering.first_move_cutoffs, ordering.cutoffs)}): the nearer to all, the better the `
    + `ordering.</p><p>The last pass (depth ${ordering.depth}) visited ${formatCount(ordering.last_pass_nodes)} nodes. A `
    + `uniform tree of ${ordering.branching} moves per node (this search's mean) needs at least `
    + `${formatCount(ordering.minimal_tree)} with perfect ordering (Knuth and Moore's minimal tree); `
    + (ordering.last_pass_nodes < ordering.minimal_tree
      ? `fewer here: the real tree is not uniform (lines end where the game does)${search.tt_probes
        ? ", and the table answers positions reached twice" : ""}.</p>`
      : `${formatPercent(ordering.last_pass_nodes - ordering.minimal_tree, ordering.minimal_tree)} more here.</p>`);
}

function presetLabel(name) {
  const option = [...$("steps-form").elements.preset.options].find((row) => row.value === name);
  return option ? option.textContent : name;
}

async function load() {
  const form = $("steps-form");
  form.elements.preset.value = asked.preset;
  form.elements.depth.value = asked.depth ?? "";
  const analyse = new URLSearchParams();
  if (asked.setup) analyse.set("setup", asked.setup);
  if (asked.moves.length) analyse.set("moves", asked.moves.join(" "));
  $("analyse-link").href = `/analyse/${game}?${analyse}`;
  if (!asked.depth) {
    $("status-sub").textContent = "Choose a depth and record the search.";
    return;
  }
  const query = new URLSearchParams(analyse);
  query.set("preset", asked.preset);
  query.set("depth", String(asked.depth));
  root.setAttribute("aria-busy", "true");
  let data;
  try {
    const response = await fetch(`/api/steps/${game}?${query}`);
    data = await response.json();
    if (!response.ok) throw new Error(data.message ?? response.statusText);
  } catch (error) {
    $("status-sub").textContent = `The search could not be recorded: ${error.message}`;
    root.removeAttribute("aria-busy");
    return;
  }
  root.removeAttribute("aria-busy");
  page.data = data;
  page.scale = data.search.score_scale || 1;
  const start = await viewOf([]);
  page.rootToMove = start.to_move;
  drawSummary();
  if (data.too_large) {
    const smaller = Math.max(1, Math.min(asked.depth - 1, data.search.depth));
    $("status-sub").textContent = `Too large to record: this search visits more than ${formatCount(data.limit)} nodes.`;
    $("step-body").innerHTML = `<p>The search to depth ${asked.depth} was stopped at ${formatCount(data.search.nodes)} `
      + `nodes, having completed depth ${data.search.depth}. A search of at most ${formatCount(data.limit)} nodes can be `
      + `stepped through: <a class="btn small" href="${smallerUrl(smaller)}">Record depth ${smaller}</a></p>`;
    page.board?.render(start.view, { interactive: false, flipped: false, lastMove: null, hint: null });
    return;
  }
  if (!data.record) {
    $("status-sub").textContent = "The search was stopped before its end: record it again.";
    return;
  }
  page.record = data.record;
  page.shallower = new Set(data.record.shallower);
  buildEvents(page.record);
  $("status-sub").textContent = `${formatCount(page.record.nodes)} nodes, ${formatCount(page.events.length)} steps: `
    + "each node is entered, then returns.";
  const range = $("step-range");
  range.max = String(page.events.length - 1);
  range.disabled = false;
  const wanted = Number(params.get("step") ?? "1");
  go(Number.isInteger(wanted) && wanted >= 1 ? wanted - 1 : 0, { keepUrl: !params.has("step") });
}

function smallerUrl(depth) {
  return stepsUrl({ game, ...asked, depth });
}

function wire() {
  $("board").addEventListener("board-read", (event) => { $("announcer").textContent = event.detail; });
  $("step-start").addEventListener("click", () => go(0));
  $("step-back").addEventListener("click", () => go(page.step - 1));
  $("step-forward").addEventListener("click", () => go(page.step + 1));
  $("step-end").addEventListener("click", () => go(Infinity));
  $("step-play").addEventListener("click", () => setPlaying(!page.playing));
  $("step-cut").addEventListener("click", () => nextCut(1));
  $("step-cut-back").addEventListener("click", () => nextCut(-1));
  $("step-range").addEventListener("input", (event) => go(Number(event.target.value)));
  $("copy-step").addEventListener("click", async (event) => {
    event.preventDefault();
    writeUrl();
    try {
      await navigator.clipboard.writeText(window.location.href);
      showToast("Link to this step copied");
    } catch {
      showToast("Copy the address bar's link");
    }
  });
  $("steps-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const depth = Number(form.elements.depth.value);
    if (!Number.isInteger(depth) || depth < 1 || depth > Number(form.elements.depth.max)) {
      form.elements.depth.focus();
      showToast(`The depth is a whole number from 1 to ${form.elements.depth.max}`);
      return;
    }
    asked.preset = form.elements.preset.value;
    window.location.href = smallerUrl(depth);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
    if (!page.events) return;
    const jump = event.shiftKey ? 10 : 1;
    const actions = {
      ArrowRight: () => go(page.step + jump), ArrowLeft: () => go(page.step - jump), Home: () => go(0),
      End: () => go(Infinity), " ": () => setPlaying(!page.playing),
      c: () => nextCut(1), C: () => nextCut(-1), n: nextSibling,
    };
    const action = actions[event.key];
    if (!action || (event.key === " " && event.target.closest("button, a"))) return;
    event.preventDefault();
    action();
  });
}

async function start() {
  wire();
  let module;
  try {
    module = await import(`./boards/${game}.js`);
  } catch {
    module = await import("./boards/generic.js");
  }
  page.board = module.createBoard($("board"), { onMove: () => {}, players });
  await load();
}

start();
