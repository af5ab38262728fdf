// The analysis board: any position of a game, moves for both sides kept as a tree of variations, the engine
// searching the position shown and every move's exact value beside it (docs/protocol.md, "The analysis board").
// The URL names the node shown (?setup=&moves=); the tree of variations is kept for the tab (sessionStorage).
import { io } from "./socketio.js";
import { EnginePanel } from "./panel.js";
import { SearchTree } from "./tree.js";
import { MoveTree } from "./movetree.js";
import { hintItems, hintLegend } from "./hintmarks.js";
import { escapeHtml } from "./format.js";
import { stepsUrl } from "./steplink.js";
import { showToast } from "./toast.js";
import { Exercise } from "./exercise.js";
import { recordTraining } from "./api.js";

const $ = (id) => document.getElementById(id);
const game = $("analysis-root").dataset.game;
/** Games whose board draws every move's value itself; for the others the list under the board shows them. */
const BOARD_HINTS = new Set(["connect4", "tictactoe", "nim", "wolves"]);
const SEND_DELAY_MS = 120;
const DEFAULT_STEP_DEPTH = 4; // the stepper's depth before the search on a node has completed one // stepping through moves quickly asks the server for the last position only

const params = new URLSearchParams(window.location.search);
const page = {
  setup: params.get("setup") ?? "",
  tree: null,
  current: null,
  nodes: new Map(), // node id -> its analysis_node payload
  truth: new Map(), // node id -> its analysis_truth payload
  best: null, // the move the engine prefers in the current node
  board: null,
  flipped: false,
  sendTimer: 0,
  request: "", // the name of the last `analyse` sent: "<node id>.<count>"; events of any other are old
  requests: 0,
  rootPly: null, // half-moves before the root, once a node has told them
  searchTree: new SearchTree($("tree"), $("tree-summary")),
  panel: null,
  ready: false,
  exercise: null, // an Exercise when the URL asks for one (?exercise=<move played>)
  afterTruth: null, // the node of an exercise's answer, opened once the exercise's exact values have come
};

const storageKey = () => `arena.analysis:${game}:${page.setup}`;

function loadTree() {
  try {
    return MoveTree.load(JSON.parse(window.sessionStorage.getItem(storageKey()) ?? "[]"));
  } catch {
    return new MoveTree();
  }
}

function saveTree() {
  try {
    window.sessionStorage.setItem(storageKey(), JSON.stringify(page.tree.save()));
  } catch {
    // a full or disabled storage only loses the variations on reload
  }
}

/** The URL of the node shown: game, root setup and the moves to it. */
function nodeUrl(node) {
  const query = new URLSearchParams();
  if (page.setup) query.set("setup", page.setup);
  const moves = page.tree.path(node);
  if (moves.length) query.set("moves", moves.join(" "));
  const text = query.toString();
  return `${window.location.pathname}${text ? `?${text}` : ""}`;
}

const socket = io({ transports: ["websocket", "polling"], tryAllTransports: true });

function engineSettings() {
  const form = $("engine-form").elements;
  const number = (name) => (form[name].value.trim() === "" ? null : Number(form[name].value));
  const hidden = page.exercise?.hides(page.current) ?? false;
  const settings = { on: form.on.checked && !hidden, preset: form.preset.value, lines: Number(form.lines.value) };
  if (number("depth") !== null) settings.depth = number("depth");
  if (number("time") !== null) settings.time = number("time");
  return settings;
}

/** Asks the server for the current node: its board, the engine's search and its exact values. */
function send() {
  window.clearTimeout(page.sendTimer);
  page.sendTimer = 0;
  const node = page.current;
  if (!page.ready) return; // connected before the board and the controls were ready: start() sends
  page.requests += 1;
  page.request = `${node.id}.${page.requests}`;
  socket.emit("analyse", {
    node: page.request, game, setup: page.setup, moves: page.tree.path(node).join(" "), engine: engineSettings(),
  });
}

/** Shows `node`: drawn at once from what is known of it, then asked of the server. */
function open(node, { immediately = false } = {}) {
  page.current = node;
  page.best = null;
  // Only a new address: rewriting the same one cancels a link's navigation that a blur's change began here.
  const url = nodeUrl(node);
  if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(null, "", url);
  drawStepLink();
  // The panel is cleared at once: nothing of the node left behind stays on it.
  showPosition(page.nodes.get(node.id) ?? { ply: page.tree.depth(node), to_move: null });
  $("tree-card").hidden = true;
  drawAll();
  window.clearTimeout(page.sendTimer);
  if (immediately) send();
  else page.sendTimer = window.setTimeout(send, SEND_DELAY_MS);
}

/** The panel, cleared for the node `payload` describes (before it is known: its ply, and no side to move). */
function showPosition(payload) {
  page.panel.onPosition({
    ply: payload.ply, toMove: payload.to_move, scoreUnit: payload.score_unit, scoreAxis: payload.score_axis,
    lines: engineSettings().lines,
  });
}

function onMove(move) {
  const known = page.nodes.get(page.current.id);
  const legal = known?.legal.find((entry) => entry.move === move);
  if (!legal) return;
  const from = page.current;
  const next = page.tree.play(page.current, move, legal.shown);
  if (page.exercise?.awaitsTruth(from, page.truth.get(from.id))) {
    // Opening the answer's node now would cancel the exact values the answer is judged by: the board stays on the
    // exercise's position until they have come (then opens the answer, "analysis_truth").
    page.afterTruth = next;
    page.exercise.answer(from, move, legal.shown, undefined);
    drawTree();
    return;
  }
  open(next);
  page.exercise?.answer(from, move, legal.shown, page.truth.get(from.id));
}

// ---- drawing ----

/** Half-moves before the root, for numbering (the same for every node; 0 until a node has told): chess reads
 * them from the FEN, the others from the side to move. */
function rootPly() {
  return page.rootPly ?? 0;
}

/** Learns the half-moves before the root from a node's `payload`. */
function learnRootPly(payload) {
  if (game === "chess") {
    const [, turn, , , , fullmove] = payload.view.fen.split(" ");
    page.rootPly = (Number(fullmove) - 1) * 2 + (turn === "b" ? 1 : 0) - payload.ply;
  } else {
    page.rootPly = (((payload.to_move - payload.ply) % 2) + 2) % 2;
  }
}

function drawStatus(payload) {
  const main = $("status-main");
  const sub = $("status-sub");
  const dot = $("turn-dot");
  if (!payload) {
    sub.textContent = "Loading the position…";
    return;
  }
  const names = payload.players;
  if (payload.outcome) {
    const { winner, reason } = payload.outcome;
    dot.className = `turn-dot${winner === null ? "" : ` p${winner}`}`;
    main.textContent = winner === null ? `Draw · ${reason}` : `${names[winner]} ${names[winner].endsWith("s") ? "win" : "wins"} · ${reason}`;
  } else {
    dot.className = `turn-dot p${payload.to_move}`;
    main.textContent = `${names[payload.to_move]} to move`;
  }
  const ply = rootPly() + payload.ply;
  const line = page.tree.isMain(page.current) ? "main line" : "a variation";
  sub.textContent = `${payload.title} · analysis board · move ${Math.floor(ply / 2) + 1} · ${payload.ply === 0 ? "the start" : line}`;
  document.title = `${main.textContent} · ${payload.title} analysis · Alpha-Beta Arena`;
  $("move-notation").textContent = `Moves are written as ${payload.move_notation}.`;
  const opening = payload.view.opening;
  $("opening").hidden = !opening;
  if (opening) {
    $("opening-eco").textContent = opening.eco;
    $("opening-name").textContent = opening.name;
  }
}

/** The current node's exact values as the boards draw hints, or null. */
function currentTruth() {
  if (page.exercise?.hides(page.current)) return null;
  const truth = page.truth.get(page.current.id);
  return truth?.how === "exact" ? { how: "exact", moves: truth.moves } : null;
}

function drawTruth(payload) {
  const truth = page.truth.get(page.current.id);
  const source = $("truth-source");
  const list = $("truth-list");
  list.classList.toggle("visually-hidden", BOARD_HINTS.has(game));
  $("truth-legend").textContent = truth?.how === "exact" ? hintLegend("exact") : "";
  if (page.exercise?.hides(page.current)) {
    source.textContent = "are hidden until the exercise is answered.";
    $("truth-legend").textContent = "";
    list.replaceChildren();
    return;
  }
  if (payload?.outcome) source.textContent = "do not apply: the game is over in this position.";
  else if (!truth) source.textContent = "are being worked out…";
  else if (truth.how === "exact") source.textContent = `for ${payload?.players[payload.to_move] ?? "the side to move"}, ${truth.source}:`;
  else source.textContent = `are not known here: ${truth.source}.`;
  list.replaceChildren(...(truth?.how === "exact" ? hintItems({ how: "exact", moves: truth.moves }) : []));
}

function drawBoard(payload) {
  if (!page.board || !payload) return;
  const focused = $("board").contains(document.activeElement);
  page.board.render(payload.view, {
    interactive: !payload.outcome, flipped: page.flipped, lastMove: page.current.move ?? null,
    hint: page.best, hints: currentTruth(),
  });
  if (focused && !$("board").contains(document.activeElement)) $("board").focus();
}

function moveButton(node, ply) {
  const current = node === page.current;
  const side = page.nodes.get(page.current.id)?.players[ply % 2] ?? "";
  return `<button type="button" class="mv" data-id="${node.id}" aria-current="${current}"`
    + ` aria-label="Move ${Math.floor(ply / 2) + 1}, ${escapeHtml(side)}: ${escapeHtml(node.shown)}">${escapeHtml(node.shown)}</button>`;
}

/** The tree's moves as HTML (`MoveTree.tokens`): the main line flowing, each variation in an indented block of its
 * own after the move it replaces. */
function treeHtml() {
  return page.tree.tokens(rootPly()).map((token) => {
    if (token.number) return `<span class="no">${token.number.replace("...", "…")}</span>`;
    if (token.node) return moveButton(token.node, token.ply);
    return token.open ? '<div class="variation">' : "</div>";
  }).join("");
}

function drawTree() {
  const host = $("move-tree");
  const payload = page.nodes.get(page.current.id);
  if (!page.tree.root.children.length) {
    host.innerHTML = '<span class="none">No moves yet: play one on the board, for either side.</span>';
  } else {
    host.innerHTML = treeHtml();
    host.querySelector('[aria-current="true"]')?.scrollIntoView({ block: "nearest" });
  }
  $("promote").disabled = page.tree.isMain(page.current);
  $("delete-node").disabled = !page.current.parent;
  $("go-back").disabled = !page.current.parent;
  $("go-start").disabled = !page.current.parent;
  $("go-forward").disabled = !page.current.children.length;
  $("go-end").disabled = !page.current.children.length;
}

/** Tells screen readers the node shown: "Move 2, White: Nc3, a variation" or "The start position". */
function announce(payload) {
  const node = page.current;
  if (!node.parent) {
    $("announcer").textContent = "The start position";
    return;
  }
  const ply = rootPly() + page.tree.depth(node) - 1;
  const side = payload?.players[(payload.to_move + 1) % 2] ?? "";
  const line = page.tree.isMain(node) ? "" : ", a variation";
  $("announcer").textContent = `Move ${Math.floor(ply / 2) + 1}, ${side}: ${node.shown}${line}`;
}

function drawAll() {
  const payload = page.nodes.get(page.current.id);
  drawStatus(payload);
  drawBoard(payload);
  drawTruth(payload);
  drawTree();
  drawExerciseButtons();
  $("copy-fen").hidden = game !== "chess";
  if (payload) {
    const labSetup = game === "chess" ? payload.view.fen : payload.position;
    $("lab-link").href = `/lab?game=${encodeURIComponent(game)}&setup=${encodeURIComponent(labSetup)}`;
  }
}

// ---- copying ----

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    showToast(`${what} copied.`);
  } catch {
    window.prompt(`Copy the ${what.toLowerCase()}:`, text);
  }
}

/** The tree as text: chess a PGN with every variation (its FEN when it starts elsewhere), the others their
 * moves numbered the same way. */
function movesText() {
  const payload = page.nodes.get(page.current.id);
  const movetext = page.tree.movetext(rootPly());
  if (game !== "chess") {
    const from = page.setup ? ` from ${page.setup}` : "";
    return `${payload?.title ?? game}${from}: ${movetext || "no moves"}`;
  }
  const headers = ['[Event "Analysis"]', `[Site "${window.location.origin}"]`, '[Result "*"]'];
  if (page.setup && payload?.setup_fen) headers.push('[SetUp "1"]', `[FEN "${payload.setup_fen}"]`);
  return `${headers.join("\n")}\n\n${movetext ? `${movetext} ` : ""}*\n`;
}

// ---- events ----

socket.on("connect", () => send());

/** The tree node an `analyse` request named ("<node id>.<count>"), if it is still in the tree. */
const requested = (name) => page.tree.get(String(name).split(".")[0]);

socket.on("analysis_node", (payload) => {
  const node = requested(payload.node);
  if (!node) return;
  page.nodes.set(node.id, payload);
  learnRootPly(payload);
  // The path as the server writes it (a move typed in SAN is UCI in chess) and as players read it (a node made
  // from the URL knew only what the URL said).
  page.tree.line(node).forEach((step, i) => {
    step.move = payload.moves[i] ?? step.move;
    step.shown = payload.shown[i] ?? step.shown;
  });
  if (node !== page.current) return;
  saveTree();
  showPosition(payload);
  announce(payload);
  if (payload.outcome) page.panel.onSearch({ ply: payload.ply, seat: payload.to_move, info: { kind: "cancelled" } });
  drawAll();
});

/** Points "Step through this search" at the node shown, to the depth asked, else the depth the search reached
 * (`reached`), else 4. */
function drawStepLink(reached = 0) {
  const settings = engineSettings();
  const preset = settings.preset;
  const depth = settings.depth ?? (reached || DEFAULT_STEP_DEPTH);
  $("engine-steps").href = stepsUrl({ game, setup: page.setup, moves: page.tree.path(page.current), preset, depth });
}

socket.on("analysis_search", ({ node, ply, seat, info }) => {
  if (node !== page.request) return; // an event of a node left behind, or of an earlier request
  page.panel.onSearch({ ply, seat, info });
  if (info.depth) drawStepLink(info.depth);
  const payload = page.nodes.get(page.current.id);
  if (info.best !== undefined && info.best !== page.best) {
    page.best = info.best;
    drawBoard(payload);
  }
  if (info.final && info.tree && payload?.search_tree) {
    $("tree-card").hidden = false;
    page.searchTree.show(info.tree);
  }
});

socket.on("analysis_truth", (truth) => {
  const node = requested(truth.node);
  if (!node) return;
  page.truth.set(node.id, truth);
  if (page.exercise && node === page.exercise.root) {
    page.exercise.judge(truth);
    drawExercise();
    const next = page.afterTruth;
    page.afterTruth = null;
    if (next && page.current === node) open(next);
  }
  if (node === page.current) {
    const payload = page.nodes.get(node.id);
    drawTruth(payload);
    drawBoard(payload);
  }
});

socket.on("exercise_verdict", (payload) => page.exercise?.checked(payload));

socket.on("error", (payload) => {
  if (payload.event === "exercise_check") page.exercise?.checked({ answer: page.exercise.checking?.move, right: null, message: payload.message });
  if (payload.event !== "analyse" && payload.event !== "analyse_stop") return;
  $("status-sub").textContent = payload.message;
  showToast(payload.message, true);
  // A refused node changed nothing on the server: the search of the node before would run on.
  if (payload.event === "analyse") socket.emit("analyse_stop", {});
});

function go(node) {
  if (node && node !== page.current) open(node);
}

function wireControls() {
  $("board").addEventListener("board-read", (event) => { $("announcer").textContent = event.detail; });
  $("go-start").addEventListener("click", () => go(page.tree.root));
  $("go-back").addEventListener("click", () => go(page.current.parent));
  $("go-forward").addEventListener("click", () => go(page.current.children[0]));
  $("go-end").addEventListener("click", () => go(page.tree.end(page.current)));
  $("move-tree").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-id]");
    if (button) go(page.tree.get(button.dataset.id));
  });
  $("promote").addEventListener("click", () => {
    if (page.tree.promote(page.current)) {
      saveTree();
      drawAll();
    }
  });
  $("delete-node").addEventListener("click", () => {
    const parent = page.tree.remove(page.current);
    if (parent) {
      saveTree();
      open(parent, { immediately: true });
    }
  });
  $("flip").addEventListener("click", () => {
    page.flipped = !page.flipped;
    $("flip").setAttribute("aria-pressed", String(page.flipped));
    drawBoard(page.nodes.get(page.current.id));
  });
  $("copy-link").addEventListener("click", () => copy(window.location.href, "Link"));
  $("copy-fen").addEventListener("click", () => {
    const payload = page.nodes.get(page.current.id);
    if (payload) copy(payload.view.fen, "FEN");
  });
  $("copy-moves").addEventListener("click", () => copy(movesText(), game === "chess" ? "PGN" : "Moves"));
  $("move-entry").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move-text").value.trim();
    const known = page.nodes.get(page.current.id);
    // The legal moves come with their texts as players write them (SAN in chess): either is taken.
    const move = known?.legal.find((entry) => entry.shown === text || entry.move === text)
      ?? known?.legal.find((entry) => entry.shown.toLowerCase() === text.toLowerCase() || entry.move === text.toLowerCase());
    $("move-error").textContent = move ? "" : `${text || "Nothing"} is not a legal move here.`;
    if (!move) return;
    $("move-text").value = "";
    onMove(move.move);
  });
  $("engine-form").addEventListener("change", () => open(page.current, { immediately: true }));
  $("engine-form").addEventListener("submit", (event) => event.preventDefault());
  $("engine-stop").addEventListener("click", () => socket.emit("analyse_stop", {}));
  $("engine-again").addEventListener("click", () => open(page.current, { immediately: true }));
  $("setup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const setup = $("setup-text").value.trim();
    const query = setup ? `?${new URLSearchParams({ setup })}` : "";
    window.location.assign(`${window.location.pathname}${query}`);
  });
  $("tree-expand").addEventListener("click", () => page.searchTree.expandAll());
  $("tree-collapse").addEventListener("click", () => page.searchTree.collapseAll());
  $("panel-toggle").addEventListener("click", () => {
    const collapsed = $("panel").classList.toggle("collapsed");
    $("panel-toggle").setAttribute("aria-expanded", String(!collapsed));
    $("panel-toggle").textContent = collapsed ? "Show" : "Hide";
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest?.("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = {
      ArrowLeft: () => page.current.parent,
      ArrowRight: () => page.current.children[0],
      ArrowUp: () => page.tree.sibling(page.current, -1),
      ArrowDown: () => page.tree.sibling(page.current, 1),
      Home: () => page.tree.root,
      End: () => page.tree.end(page.current),
    };
    const target = moves[event.key]?.();
    if (!target || target === page.current) return; // nowhere to go: the key keeps its usual job (scrolling)
    event.preventDefault();
    go(target);
  });
}

/** The exercise of the URL: the node opened is its position; its card says what to find and how the answer went. */
function startExercise() {
  const number = (name) => (/^-?\d{1,7}$/.test(params.get(name) ?? "") ? Number(params.get(name)) : null);
  const task = {
    played: params.get("exercise"), better: params.get("better") || null, within: number("within"), value: number("value"),
  };
  const train = /^([A-Za-z0-9_-]{1,32}):(\d+)$/.exec(params.get("train") ?? "");
  const report = train ? (right) => {
    recordTraining(train[1], Number(train[2]), right).catch((error) => showToast(error.message, true));
  } : null;
  const root = page.current;
  const check = game === "chess" ? (move) => {
    socket.emit("exercise_check", {
      node: String(root.id), game, setup: page.setup, moves: page.tree.path(root).join(" "), answer: move,
      value: task.value, better: task.better,
    });
  } : null;
  page.exercise = new Exercise(root, task, (text) => {
    $("exercise-result").textContent = text;
    if (page.exercise.done) open(page.current, { immediately: true }); // the engine may search now
    else drawExercise();
  }, report, check);
  $("exercise").hidden = false;
  $("exercise-retry").addEventListener("click", () => go(page.exercise.root));
  $("exercise-show").addEventListener("click", () => {
    page.exercise.reveal();
    const truth = page.truth.get(page.exercise.root.id);
    const moves = truth?.how === "exact" ? truth.moves : null;
    const best = moves ? Object.entries(moves).sort(([, a], [, b]) => (b.score ?? 0) - (a.score ?? 0))[0] : null;
    $("exercise-result").textContent = best
      ? `The answer: ${best[1].shown}, ${best[1].value}. Every move's value is shown; the engine searches again.`
      : `The review's search preferred ${task.better ? shownOf(task.better) : "another move"}; the engine searches again.`;
    open(page.exercise.root, { immediately: true });
    drawExercise();
  });
}

/** The exercise card's buttons: "Try again" after a wrong answer, "Show the answer" until it is done. */
function drawExerciseButtons() {
  if (!page.exercise) return;
  $("exercise-task").textContent = `Find a better move than ${shownOf(page.exercise.task.played)}, the move played in the game.`;
  $("exercise-retry").hidden = page.exercise.done || page.current === page.exercise.root;
  $("exercise-show").hidden = page.exercise.done;
}

/** A legal move of the exercise's position as players read it (SAN in chess), once the position is known. */
function shownOf(move) {
  return page.nodes.get(page.exercise.root.id)?.legal.find((entry) => entry.move === move)?.shown ?? move;
}

/** The exercise's card, values and board after its state changed. */
function drawExercise() {
  drawExerciseButtons();
  const payload = page.nodes.get(page.current.id);
  drawTruth(payload);
  drawBoard(payload);
}

async function start() {
  document.body.dataset.game = game;
  page.tree = loadTree();
  const moves = (params.get("moves") ?? "").split(/\s+/).filter(Boolean);
  page.current = page.tree.follow(moves, []);
  $("setup-text").value = page.setup;
  const players = [...document.querySelectorAll("#players .who")].map((who) => who.textContent);
  page.panel = new EnginePanel($("panel"), players, $("engine-strip"), (tree, last) => {
    if (page.nodes.get(page.current.id)?.search_tree) page.searchTree.show(tree, last);
  });
  let module;
  try {
    module = await import(`./boards/${game}.js`);
  } catch {
    module = await import("./boards/generic.js");
  }
  page.board = module.createBoard($("board"), { onMove, players });
  if (params.get("exercise")) startExercise();
  wireControls();
  page.ready = true;
  drawAll();
  if (socket.connected) send();
}

start();
