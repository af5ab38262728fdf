// The game page: draws the game's state, sends the person's moves, and shows the engine thinking.
// Everything comes from the server (docs/protocol.md); the browser holds no rules.
import {
  ApiError, STOP_KEY_PREFIX, connectGame, directEngines, getGame, getPgn, getPosition, getSearch, scoreEveryMove,
  setHints, stopGame, takeSeat,
} from "./api.js";
import { Clocks } from "./clock.js";
import { Sound } from "./sound.js";
import { escapeHtml } from "./format.js";
import { hintItems, hintLegend } from "./hintmarks.js";
import { MoveList, moveLabels } from "./movelist.js";
import { Offers } from "./offers.js";
import { GameReview } from "./review.js";
import { EnginePanel } from "./panel.js";
import { readGrid } from "./boards/grid.js";
import { stepsUrl } from "./steplink.js";
import { SearchTree } from "./tree.js";
import { showToast } from "./toast.js";

const root = document.getElementById("game-root");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
const FLIP_BY_DEFAULT = new Set(["chess", "wolves"]);
/** Games whose board draws hints itself; the others list them under the board. */
const BOARD_HINTS = new Set(["connect4", "tictactoe", "nim", "wolves"]);
const PANEL_KEY = "arena.panel.hidden";
const FOLLOW_SECONDS = 5; // before a spectator follows the players into their rematch
const ANALYSE_LINK_MOVES = 2000; // characters of moves an "Analyse" link carries at most (a URL's request line: 4 KB)
const ANALYSE_SETUP_LIMIT = Number(root.dataset.analyseSetupLimit); // the longest setup the analysis board takes

const page = {
  token: root.dataset.token || null,
  // The invitation code: a player's page has it from the server, an invited friend's from the share link.
  invite: root.dataset.invite || new URLSearchParams(window.location.search).get("invite"),
  state: null,
  you: null,
  board: null,
  boardGame: null,
  flipped: false,
  flipChosen: false,
  reviewPly: null,
  reviewView: null,
  reviewLast: null,
  pending: false,
  hint: null,
  hintFrame: 0,
  connection: null,
  panel: null,
  tree: new SearchTree($("tree"), $("tree-summary")),
  moves: new MoveList($("moves"), (ply) => review(ply)),
  clocks: new Clocks([...document.querySelectorAll(".player .clock")], (seat) => {
    if (seat === page.you) page.sound.play("lowtime");
  }),
  sound: new Sound(() => page.you === null || page.you === undefined),
};
page.offers = new Offers(
  { waiting: $("waiting-panel"), inviteField: $("invite-field"), copy: $("invite-copy"), share: $("invite-share"),
    alone: $("play-alone"), banner: $("offer-banner") },
  (event, extra) => page.connection.emit(event, extra),
  () => (page.invite ? `${window.location.origin}/g/${gameId}?invite=${encodeURIComponent(page.invite)}` : null),
  (text, isError) => showToast(text, isError),
);
page.gameReview = new GameReview($("review-card"), gameId, (ply) => review(ply),
  () => page.reviewPly ?? page.state?.ply ?? 0, (ply) => (page.state ? analyseHref(page.state, ply) : null));

async function loadBoardModule(game) {
  try {
    return await import(`./boards/${game}.js`);
  } catch (error) {
    console.warn(`no board module for ${game}, using the generic one`, error);
    return import("./boards/generic.js");
  }
}

async function ensureBoard(state) {
  if (page.boardGame === state.game) return;
  page.boardGame = state.game;
  const module = await loadBoardModule(state.game);
  page.board?.destroy();
  page.board = module.createBoard($("board"), { onMove: sendMove, players: state.players });
}

const names = () => page.state?.players ?? ["First", "Second"];
const hasEngine = (state) => state.seats.some((seat) => seat.kind === "engine");
const isLive = () => page.reviewPly === null;

function canMove(state) {
  return isLive() && !page.pending && state.status === "active" && page.you !== null && page.you !== undefined
    && state.to_move === page.you && state.seats[page.you]?.kind === "human" && !state.waiting_for_opponent;
}

function sendMove(move) {
  const state = page.state;
  if (!state || !canMove(state)) return;
  page.pending = true;
  page.connection.emit("move", { move });
  drawBoard();
  drawChess(state);
}

// ---- drawing ----

/** "X wins", "Wolves win": the verb agrees with a plural side's name. */
function wins(name) {
  return `${name} ${name.endsWith("s") ? "win" : "wins"}`;
}

function drawStatus(state) {
  const main = $("status-main");
  const sub = $("status-sub");
  const dot = $("turn-dot");
  const playerNames = state.players;
  const isPlayer = page.you !== null && page.you !== undefined;
  $("status").classList.toggle("over", state.status === "finished");
  $("status").classList.toggle("thinking", state.status === "active" && state.seats[state.to_move]?.kind === "engine");
  if (state.status === "finished") {
    const result = state.result ?? { winner: null, reason: "" };
    dot.className = `turn-dot${result.winner === null ? "" : ` p${result.winner}`}`;
    if (result.reason === "stopped") main.textContent = "Stopped by its creator";
    else if (result.reason === "aborted") main.textContent = "Game aborted";
    else if (result.winner === null) main.textContent = "Draw";
    else if (page.you === result.winner) main.textContent = `You win! (${playerNames[result.winner]})`;
    else if (isPlayer) main.textContent = `${wins(playerNames[result.winner])} — you lose`;
    else main.textContent = wins(playerNames[result.winner]);
    const fullMoves = Math.ceil(state.ply / 2); // as the move list numbers them: one per pair of turns
    const moves = `${fullMoves} ${fullMoves === 1 ? "move" : "moves"}`;
    sub.textContent = result.reason ? `${result.reason[0].toUpperCase()}${result.reason.slice(1)} · ${moves}` : moves;
  } else {
    const mover = state.to_move;
    const seat = state.seats[mover];
    dot.className = `turn-dot p${mover}`;
    if (state.waiting_for_opponent) {
      main.textContent = isPlayer ? "Waiting for your friend to take the other seat" : "Waiting for a second player";
    } else if (page.you === mover && seat.kind === "human") main.textContent = `Your move (${playerNames[mover]})`;
    else if (seat.kind === "engine") {
      main.textContent = state.options?.paused_by_creator ? "Paused by its creator" : {
        queued: `${playerNames[mover]}: the engine waits for a free worker`,
        paused: `${playerNames[mover]}: paused while nobody watches`,
      }[state.search_state] ?? `${playerNames[mover]}: the engine is thinking…`;
    } else if (!seat.taken) main.textContent = `${playerNames[mover]} to move — waiting for a second player`;
    else main.textContent = `${playerNames[mover]} to move`;
    // The number of the move to make, as the move list numbers it (from a set-up position's own move number).
    const { startPly = 0 } = moveLabels(state);
    sub.textContent = `${state.title} · move ${Math.floor((startPly + state.ply) / 2) + 1}`;
  }
  $("watchers").hidden = false;
  $("watchers-count").textContent = String(state.watchers ?? 0);
  document.title = `${main.textContent} · ${state.title} · Alpha-Beta Arena`;
}

function drawPlayers(state) {
  for (const el of document.querySelectorAll(".player")) {
    const seatIndex = Number(el.dataset.player);
    const seat = state.seats[seatIndex];
    const label = seat.label ?? seat.kind;
    el.querySelector(".who").textContent = label.startsWith(state.players[seatIndex])
      ? label : `${state.players[seatIndex]} · ${label}`;
    el.querySelector(".you").hidden = page.you !== seatIndex;
    el.classList.toggle("to-move", state.status === "active" && state.to_move === seatIndex);
  }
}

function drawSeatBanner(state) {
  const free = state.seats.find((seat) => seat.kind === "human" && !seat.taken);
  const show = Boolean(free) && (page.you === null || page.you === undefined) && state.status === "active";
  const invited = Boolean(state.opponent?.open || page.invite);
  $("seat-banner").hidden = !show;
  $("take-seat").hidden = !invited;
  if (show) {
    $("take-seat").textContent = `Join as ${state.players[free.seat]}`;
    $("seat-text").textContent = invited
      ? `The ${state.players[free.seat]} seat is free: join to play, or just watch.`
      : `The ${state.players[free.seat]} seat is kept for the player invited with the game's link. You can watch.`;
  }
}

function drawControls(state) {
  const player = page.you !== null && page.you !== undefined;
  $("resign").hidden = !(player && state.status === "active");
  $("stop-game").hidden = !(state.status === "active" && stopCode(state.id));
  const directing = state.status === "active" && Boolean(stopCode(state.id));
  $("pause-game").hidden = !directing;
  $("pause-game").textContent = state.options?.paused_by_creator ? "Resume" : "Pause";
  $("pace-row").hidden = !directing;
  if (directing) showPace(state.pace);
  $("rematch").hidden = !(player && state.status === "finished");
  // A game's end is final: no take-back once it is over, however it ended.
  $("takeback").hidden = !(player && state.status === "active" && state.options?.takeback && hasEngine(state)
    && state.ply > 0);
  const twoPlayers = state.seats.every((seat) => seat.kind === "human" && seat.taken);
  const pendingOffers = state.offers ?? {};
  $("offer-draw").hidden = !(player && twoPlayers && state.status === "active" && pendingOffers.draw === null);
  $("ask-takeback").hidden = !(player && twoPlayers && state.status === "active" && pendingOffers.takeback === null
    && (state.history ?? []).some((move) => move.by === page.you));
  $("abort").hidden = !(player && state.status === "active" && state.ply < 3);
  $("resign").hidden = !(player && state.status === "active" && state.ply >= 3);
  $("rematch").textContent = twoPlayers && !state.rematch_id
    ? (pendingOffers.rematch === page.you ? "Rematch offered…" : pendingOffers.rematch !== null ? "Accept rematch"
      : "Offer rematch")
    : "Rematch";
  $("rematch").disabled = twoPlayers && !state.rematch_id && pendingOffers.rematch === page.you;
  page.offers.draw(state, page.you);
  drawHintsToggle(state, player);
  $("back-live").hidden = isLive();
  $("back-live").classList.toggle("primary", !isLive());
  $("board-wrap").classList.toggle("review", !isLive());
}

/** The players' hints button: on or off alone against the engine; between two people on once both asked. */
function drawHintsToggle(state, player) {
  const button = $("hints-toggle");
  button.hidden = !(player && state.status === "active");
  if (button.hidden) return;
  const on = Boolean(state.options?.hints);
  const asked = state.options?.hints_asked_by;
  const alone = state.seats.filter((seat) => seat.kind === "human").length === 1;
  button.dataset.on = String(!on);
  button.textContent = on ? "Hints off" : alone ? "Hints on"
    : asked === page.you ? "Hints asked…" : asked !== null && asked !== undefined ? "Accept hints" : "Ask for hints";
  button.disabled = !on && asked === page.you;
  button.title = alone || on ? "Show every move's value on the board (for spectators too)"
    : "Hints come on once both players ask for them";
}

function drawBoard() {
  const state = page.state;
  if (!state || !page.board) return;
  const live = isLive();
  const view = live ? state.view : page.reviewView;
  const lastMove = live ? (state.history?.at(-1)?.move ?? null) : page.reviewLast;
  const thinking = live && state.status === "active" && state.seats[state.to_move]?.kind === "engine";
  const focused = $("board").contains(document.activeElement);
  page.board.render(view, {
    interactive: canMove(state), flipped: Boolean(page.flipped), lastMove, hint: thinking ? page.hint : null,
    hints: currentHints(),
  });
  drawHints();
  // A move redraws the board: keyboard focus stays on it rather than falling back to the page.
  if (focused && !$("board").contains(document.activeElement)) $("board").focus();
}

/** The hints of the live position, when the game has hints on and they have arrived. */
function currentHints() {
  const state = page.state;
  const hints = page.moveHints;
  return isLive() && state?.status === "active" && hints?.ply === state.ply ? hints : null;
}

/** The line under the board: where the hints come from, their legend, and every move's value (a list the page
 * shows for boards that do not draw hints, and that screen readers read for all). */
function drawHints() {
  const hints = currentHints();
  const active = page.state?.status === "active";
  const on = Boolean(page.state?.options?.hints) && active;
  const asked = page.state?.options?.hints_asked_by;
  const asking = !on && active && asked !== null && asked !== undefined;
  $("hints-bar").hidden = !on && !asking;
  if (asking) {
    $("hints-source").textContent = `: ${page.state.players[asked]} asks to turn them on; they come on once both players agree`;
    $("hints-legend").textContent = "";
    $("hints-list").replaceChildren();
    return;
  }
  if (!on) return;
  $("hints-source").textContent = hints
    ? `for ${page.state.players[hints.seat]}: ${hints.source}`
    : isLive() ? "are being worked out…" : "show on the live position";
  $("hints-legend").textContent = hints ? hintLegend(hints.how) : "";
  const list = $("hints-list");
  list.classList.toggle("visually-hidden", BOARD_HINTS.has(page.state.game));
  list.replaceChildren(...(hints ? hintItems(hints) : []));
}

/** Shows the engine's current favourite on the board, redrawn at most once per animation frame. */
function showHint(move) {
  if (move === page.hint) return;
  page.hint = move;
  if (!page.hintFrame) {
    page.hintFrame = requestAnimationFrame(() => {
      page.hintFrame = 0;
      drawBoard();
    });
  }
}

/** Chess only: the opening of the position shown, the PGN button and the typed-move form. */
function drawChess(state) {
  const chess = state.game === "chess";
  const shown = isLive() ? state.view : page.reviewView;
  const opening = chess ? shown?.opening : null;
  $("opening").hidden = !opening;
  if (opening) {
    $("opening-eco").textContent = opening.eco;
    $("opening-name").textContent = opening.name;
  }
  $("download-pgn").hidden = !chess;
  const player = page.you !== null && page.you !== undefined;
  $("move-entry").hidden = !(chess && player && state.status === "active");
}

/** `pgn` with the unknown ("?") Event, Site, Date, White and Black headers filled in from the state. */
function pgnWithHeaders(pgn, state) {
  const known = {
    Event: `Alpha-Beta Arena game ${state.id}`,
    Site: `${window.location.origin}/g/${state.id}`,
    Date: (state.created_at ?? "").slice(0, 10).replaceAll("-", "."),
    White: state.seats[0]?.label,
    Black: state.seats[1]?.label,
  };
  return pgn.replace(/^\[(\w+) "\?[?.]*"\]$/gm, (header, name) => {
    const value = known[name];
    return value ? `[${name} "${value.replaceAll("\\", "").replaceAll('"', "'")}"]` : header;
  });
}

/** Downloads the game's PGN, with the engine's evaluations and depths as `[%eval ...]` comments. */
async function downloadPgn() {
  if (page.state?.game !== "chess") return;
  let pgn;
  try {
    pgn = await getPgn(gameId);
  } catch (error) {
    showToast(error.message, true);
    return;
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([pgnWithHeaders(pgn, page.state)], { type: "application/x-chess-pgn" }));
  link.download = `arena-${gameId}.pgn`;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** The typed move (SAN or UCI) goes to the server as it is; the server judges it and answers `error` if wrong. */
function submitTypedMove(event) {
  event.preventDefault();
  const text = $("move-text").value.trim();
  if (!text || !page.state) return;
  if (!canMove(page.state)) {
    $("move-error").textContent = page.state.waiting_for_opponent ? "Your friend has not joined yet."
      : isLive() ? "Wait for your turn." : "Go back to the live position to move.";
    return;
  }
  $("move-error").textContent = "";
  sendMove(text);
}

function drawAll() {
  const state = page.state;
  drawStatus(state);
  drawPlayers(state);
  drawSeatBanner(state);
  drawControls(state);
  drawSoundToggle();
  drawBoard();
  page.moves.render(state.history ?? [], isLive() ? state.ply : page.reviewPly, state.players, moveLabels(state));
  drawChess(state);
  $("analyse-link").href = analyseHref(state);
  const engine = hasEngine(state);
  $("panel").hidden = !engine;
  if (!engine || !state.search_tree) $("tree-card").hidden = true;
  page.panel?.onState(state);
}

/** The analysis board's link to the position after `ply` moves (default: the one shown): the game's start and the
 * moves to it; for a path longer than a URL comfortably holds, or a start longer than the board takes (a chess game
 * set up from a long PGN), the position's own FEN, which only the position shown has at hand (another position's
 * link, or one that needs a FEN outside chess, is then null). */
function analyseHref(state, ply = isLive() ? state.ply : page.reviewPly) {
  const moves = state.moves.slice(0, ply).join(" ");
  const query = new URLSearchParams();
  if (moves.length > ANALYSE_LINK_MOVES || state.start_setup.length > ANALYSE_SETUP_LIMIT) {
    const shown = ply === (isLive() ? state.ply : page.reviewPly);
    if (!shown || state.game !== "chess") return null;
    query.set("setup", (isLive() ? state.view : page.reviewView).fen);
  } else {
    if (state.start_setup) query.set("setup", state.start_setup);
    if (moves) query.set("moves", moves);
  }
  const text = query.toString();
  return `/analyse/${encodeURIComponent(state.game)}${text ? `?${text}` : ""}`;
}

/** The search stepper's link to a search of the position before ply `movePly` to `depth`, with every technique
 * (the engine's own settings); null where the analysis board has no link to that position. */
function stepsHref(movePly, depth) {
  const href = page.state ? analyseHref(page.state, movePly - 1) : null;
  if (!href) return null;
  const query = new URL(href, window.location.origin).searchParams;
  return stepsUrl({
    game: page.state.game, setup: query.get("setup") ?? "", moves: (query.get("moves") ?? "").split(" ").filter(Boolean),
    preset: "everything", depth,
  });
}

/** The sound of the move `last` of `state` (`effect`: what a chess move did, in words): the end, a check, a
 * capture, the engine's move, or a move. */
function playMoveSound(state, last, effect) {
  if (state.result) page.sound.play("end");
  else if (/check/.test(effect)) page.sound.play("check");
  else if (/captures/.test(effect)) page.sound.play("capture");
  else page.sound.play(state.seats?.[last.by]?.kind === "engine" ? "engine" : "move");
}

/** The sound button: what it does for the visitor's role (a player's or a spectator's choice). */
function drawSoundToggle() {
  const button = $("sound-toggle");
  const on = page.sound.on;
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Sound on" : "Sound off";
  button.title = `${on ? "Turn off" : "Turn on"} the sounds of moves, checks, captures, the end and low time`
    + `${page.you === null || page.you === undefined ? " while watching" : ""}`;
}

/** What a chess move in SAN does, in words: "captures, check" ("" for a quiet move). */
function sanEffect(san) {
  const effects = [];
  if (san.startsWith("O-O")) effects.push(san.startsWith("O-O-O") ? "castles queenside" : "castles kingside");
  if (san.includes("x")) effects.push("captures");
  if (san.includes("=")) effects.push("promotes");
  if (san.endsWith("#")) effects.push("checkmate");
  else if (san.endsWith("+")) effects.push("check");
  return effects.join(", ");
}

/** Tells screen readers the latest move once, with what it did: "Black played Nf6", "White played Qxf7#:
 * captures, checkmate. White wins: checkmate". */
function announceLastMove(state) {
  const last = state.history?.at(-1);
  if (!last) return;
  const { labels } = moveLabels(state);
  const label = labels?.at(-1) ?? last.move;
  const effect = labels ? sanEffect(label) : "";
  if (page.state && state.ply > page.state.ply) playMoveSound(state, last, effect); // a new move, not a page load
  const { winner = null, reason = "" } = state.result ?? {};
  const result = state.result
    ? ` ${winner === null ? "Draw" : `${state.players[winner]} wins`}${reason ? `: ${reason}` : ""}.` : "";
  $("announcer").textContent = `${state.players[last.by]} played ${label}${effect ? `: ${effect}` : ""}.${result}`;
}

async function applyState(state) {
  const rematchIsNew = page.state !== null && page.state !== undefined && !page.state.rematch_id;
  if (state.you !== undefined) page.you = state.you;
  if (state.ply !== page.state?.ply) {
    page.hint = null;
    announceLastMove(state);
    if (page.state && state.ply > page.state.ply) {
      $("move-text").value = "";
      $("move-error").textContent = "";
    }
  }
  page.state = state;
  page.pending = false;
  page.clocks.update(state.clock, state.players);
  page.gameReview.onState(state);
  if (state.rematch_id && (page.you === null || page.you === undefined)) {
    // A spectator follows the players into their rematch even when it missed the `rematch` event itself; one who
    // opened the game after its rematch began gets the link only.
    showRematch(`/g/${state.rematch_id}`, rematchIsNew);
  }
  document.body.dataset.game = state.game;
  $("move-notation").textContent = `Moves are written as ${state.move_notation}.`;
  const labSetup = state.game === "chess" ? state.view.fen : state.setup;
  $("lab-link").href = `/lab?game=${encodeURIComponent(state.game)}&setup=${encodeURIComponent(labSetup)}`;
  if (!page.flipChosen) page.flipped = FLIP_BY_DEFAULT.has(state.game) && page.you === 1;
  $("flip").setAttribute("aria-pressed", String(page.flipped));
  if (!page.panel) {
    page.panel = new EnginePanel($("panel"), state.players, $("engine-strip"), (tree, last) => {
      if (page.state?.search_tree) page.tree.show(tree, last);
    }, (ply) => scoreEveryMove(gameId, ply), stepsHref);
  }
  await ensureBoard(state);
  drawAll();
}

// ---- looking at past positions ----

async function review(ply) {
  const state = page.state;
  if (!state) return;
  if (ply === state.ply) {
    backToLive();
    return;
  }
  try {
    const position = await getPosition(gameId, ply);
    page.reviewPly = ply;
    page.reviewView = position.view;
    page.reviewLast = position.move;
    drawAll();
    await showStoredSearch(state, ply);
  } catch (error) {
    showToast(error.message, true);
  }
}

/** In the panel and the tree, the search behind the move that made ply `ply` if an engine played it; else live. */
async function showStoredSearch(state, ply) {
  const move = state.history[ply - 1];
  if (!move || state.seats[move.by]?.kind !== "engine") {
    showLiveSearch();
    return;
  }
  let record = null;
  try {
    record = await getSearch(gameId, ply);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) showToast(error.message, true);
  }
  if (page.reviewPly !== ply) return; // another move was selected meanwhile
  page.panel.showRecord(record, ply);
  if (record?.info.tree && state.search_tree) page.tree.show(record.info.tree);
}

/** Back to the live search in the panel and the tree. */
function showLiveSearch() {
  page.panel?.showLive();
  if (page.liveTree) page.tree.show(page.liveTree);
}

function backToLive() {
  page.reviewPly = null;
  page.reviewView = null;
  page.reviewLast = null;
  showLiveSearch();
  drawAll();
}

// ---- the connection ----

/** A `state` event: applied unless the page already shows a later version of the game. */
async function onState(state) {
  if (page.state && state.version < page.state.version) return;
  await applyState(state);
}

/**
 * A `moved` event, in order: one the page has already passed is ignored (a late or repeated message); one that
 * does not follow the version shown (a message was lost) makes the page fetch the whole game.
 */
async function onMoved(payload) {
  const shown = page.state?.version ?? -1;
  if (payload.version <= shown) return;
  if (payload.version !== shown + 1) {
    await resync();
    return;
  }
  await applyState({ ...payload.state, you: page.you });
}

/** Fetches the whole game and shows it, unless an event brought a later version meanwhile. */
async function resync() {
  try {
    const state = await getGame(gameId);
    if (!page.state || state.version >= page.state.version) await applyState(state);
  } catch (error) {
    showToast(error.message, true);
  }
}

function connect() {
  page.connection?.socket.disconnect();
  page.connection = connectGame(gameId, page.token, {
    state: (state) => onState(state),
    moved: (payload) => onMoved(payload),
    search: (payload) => {
      page.panel?.onSearch(payload);
      const info = payload.info;
      if (page.state && payload.ply === page.state.ply) showHint(info.final ? null : (info.best ?? null));
      if (info.final && info.tree && page.state?.search_tree) {
        $("tree-card").hidden = false;
        page.liveTree = info.tree;
        if (page.reviewPly === null || page.reviewPly === undefined) page.tree.show(info.tree);
      }
      if (page.state && (info.kind === "queued" || info.kind === "started")) {
        page.state.search_state = info.kind === "queued" ? "queued" : "thinking";
        drawStatus(page.state);
      }
    },
    watchers: ({ count }) => {
      $("watchers-count").textContent = String(count);
      if (page.state) page.state.watchers = count;
    },
    rematch: (payload) => onRematch(payload),
    review: (payload) => page.gameReview.onReview(payload),
    analysis: (payload) => page.gameReview.onAnalysis(payload),
    every_move: (payload) => page.panel?.onEveryMove(payload),
    hints: (payload) => {
      page.moveHints = payload;
      drawBoard();
    },
    error: ({ code, message, event }) => {
      page.pending = false;
      if (page.state) {
        drawBoard();
        drawChess(page.state);
      }
      if (event === "move" && !$("move-entry").hidden) $("move-error").textContent = message ?? code;
      else showToast(message ?? code, true);
    },
    connect_error: (error) => {
      const code = error?.data?.code;
      if (code === "bad_token") {
        page.token = null;
        showToast("Your seat token was not accepted; you are watching.", true);
        connect();
      } else if (error?.description === 503) {
        // The server refused the connection: it holds as many as it takes (server_full); the client retries.
        showToast("The server is full right now; trying again…", true);
      }
    },
    disconnect: (reason) => {
      if (reason !== "io client disconnect") showToast("Connection lost; reconnecting…", true);
    },
  });
}

async function onRematch(payload) {
  if (payload.token) {
    try {
      await takeSeat(payload.new_id, { token: payload.token });
    } catch (error) {
      showToast(error.message, true);
      return;
    }
    window.location.assign(payload.url);
    return;
  }
  if (page.you !== null && page.you !== undefined && !page.askedForRematchSeat) {
    // The rematch was made through another server: ask ours, which answers with this seat's token.
    page.askedForRematchSeat = true;
    page.connection.emit("rematch");
    return;
  }
  showRematch(payload.url, true);
}

/**
 * Shows a spectator the link to the players' rematch at `url`; with `follow`, the page goes there after
 * `FOLLOW_SECONDS` (as the players do at once) unless the spectator chooses to stay. Counts down once per page.
 */
function showRematch(url, follow) {
  $("rematch-link").href = url;
  $("rematch-banner").hidden = false;
  if (!follow || page.rematchCountdown !== undefined) return;
  let left = FOLLOW_SECONDS;
  const tick = () => {
    if (left === 0) {
      window.location.assign(url);
      return;
    }
    $("rematch-text").textContent = `The players started a rematch: following them in ${left} s.`;
    left -= 1;
    page.rematchCountdown = setTimeout(tick, 1000);
  };
  $("rematch-stay").hidden = false;
  tick();
}

/** The spectator stays on the finished game instead of following the rematch. */
function stayAfterRematch() {
  clearTimeout(page.rematchCountdown);
  page.rematchCountdown = null;
  $("rematch-text").textContent = "The players started a rematch.";
  $("rematch-stay").hidden = true;
}

// ---- controls ----

async function copyLink() {
  const seatFree = page.state?.seats.some((seat) => seat.kind === "human" && !seat.taken);
  const inviting = Boolean(page.invite && seatFree && page.you !== null && page.you !== undefined);
  const url = `${window.location.origin}/g/${gameId}${inviting ? `?invite=${encodeURIComponent(page.invite)}` : ""}`;
  try {
    await navigator.clipboard.writeText(url);
    showToast(inviting
      ? "Invitation link copied. Whoever opens it first takes the free seat; send it to your friend only."
      : "Link copied. Anyone who opens it can watch.");
  } catch {
    window.prompt("Copy this link:", url);
  }
}

async function claimSeat() {
  try {
    const { token, seat } = await takeSeat(gameId, { invite: page.invite });
    page.token = token;
    page.you = seat;
    if (page.state) await applyState({ ...page.state, you: seat }); // the board faces the new seat at once
    showToast(`You play ${names()[seat]}.`);
    connect();
  } catch (error) {
    showToast(error instanceof ApiError ? error.message : String(error), true);
  }
}

/** The stop code this browser got when it created engine-against-engine game `gameId`, or null. */
function stopCode(gameId) {
  try {
    return localStorage.getItem(`${STOP_KEY_PREFIX}${gameId}`);
  } catch {
    return null;
  }
}

async function stopThisGame() {
  try {
    await stopGame(page.state.id, stopCode(page.state.id));
  } catch (error) {
    showToast(error instanceof ApiError ? error.message : String(error), true);
  }
}

let resignTimer = 0;
function resign() {
  const button = $("resign");
  if (button.dataset.confirm !== "yes") {
    button.dataset.confirm = "yes";
    button.textContent = "Click again to resign";
    resignTimer = window.setTimeout(() => {
      button.dataset.confirm = "";
      button.textContent = "Resign";
    }, 3000);
    return;
  }
  window.clearTimeout(resignTimer);
  button.dataset.confirm = "";
  button.textContent = "Resign";
  page.connection.emit("resign");
}

function togglePanel(hidden) {
  $("panel").classList.toggle("collapsed", hidden);
  $("panel-toggle").setAttribute("aria-expanded", String(!hidden));
  $("panel-toggle").textContent = hidden ? "Show" : "Hide";
  try {
    localStorage.setItem(PANEL_KEY, hidden ? "1" : "");
  } catch { /* storage refused: the choice lasts for this page only */ }
}

/** Shows the game's `pace` (seconds) in the pace menu, with an entry of its own when it is none of the creator's
 * choices (the server's `ARENA_PACE`). */
function showPace(pace) {
  const menu = $("pace");
  const value = String(pace);
  if (![...menu.options].some((option) => option.value === value)) {
    menu.add(new Option(`${value} s between moves (the server's pace)`, value));
  }
  menu.value = value;
}

/** The creator pauses, resumes or paces an engine-against-engine game. */
async function direct(change) {
  try {
    await onState(await directEngines(gameId, stopCode(gameId), change));
  } catch (error) {
    showToast(error.message, true);
  }
}

function wireControls() {
  $("copy-link").addEventListener("click", copyLink);
  $("take-seat").addEventListener("click", claimSeat);
  $("resign").addEventListener("click", resign);
  $("stop-game").addEventListener("click", stopThisGame);
  $("pause-game").addEventListener("click", () => direct({ paused: !page.state.options?.paused_by_creator }));
  $("pace").addEventListener("change", () => direct({ pace: Number($("pace").value) }));
  $("takeback").addEventListener("click", () => page.connection.emit("takeback"));
  $("offer-draw").addEventListener("click", () => page.connection.emit("offer", { kind: "draw" }));
  $("ask-takeback").addEventListener("click", () => page.connection.emit("offer", { kind: "takeback" }));
  $("abort").addEventListener("click", () => page.connection.emit("abort"));
  $("hints-toggle").addEventListener("click", async () => {
    try {
      await onState(await setHints(gameId, $("hints-toggle").dataset.on === "true", page.token));
    } catch (error) {
      showToast(error.message, true);
    }
  });
  $("rematch").addEventListener("click", () => page.connection.emit("rematch"));
  $("rematch-stay").addEventListener("click", stayAfterRematch);
  $("back-live").addEventListener("click", backToLive);
  $("download-pgn").addEventListener("click", downloadPgn);
  $("move-entry").addEventListener("submit", submitTypedMove);
  $("flip").addEventListener("click", () => {
    page.flipped = !page.flipped;
    page.flipChosen = true; // the viewer's choice stays, whatever seat they take
    $("flip").setAttribute("aria-pressed", String(page.flipped));
    drawBoard();
  });
  $("panel-toggle").addEventListener("click", () => togglePanel(!$("panel").classList.contains("collapsed")));
  $("sound-toggle").addEventListener("click", () => {
    page.sound.set(!page.sound.on);
    drawSoundToggle();
  });
  $("board").addEventListener("board-read", (event) => { $("announcer").textContent = event.detail; });
  $("read-position").addEventListener("click", () => {
    $("announcer").textContent = readGrid($("board").querySelector("svg"));
  });
  $("tree-expand").addEventListener("click", () => page.tree.expandAll());
  $("tree-collapse").addEventListener("click", () => page.tree.collapseAll());
  document.addEventListener("keydown", (event) => {
    if (!page.state || event.altKey || event.ctrlKey || event.metaKey) return;
    // Escape goes back to the live game from anywhere, a slider included; the other keys are not a field's.
    if (event.target.closest?.("input, select, textarea") && !(event.key === "Escape" && event.target.type === "range")) {
      return;
    }
    const shown = page.reviewPly ?? page.state.ply;
    if (event.key === "Escape" && !isLive()) backToLive();
    else if (event.key === "ArrowLeft" && shown > 0) review(shown - 1);
    else if (event.key === "ArrowRight" && !isLive()) review(shown + 1);
    else return;
    event.preventDefault();
  });
  let stored = "";
  try {
    stored = localStorage.getItem(PANEL_KEY) ?? "";
  } catch { /* no storage: the panel starts open */ }
  if (stored) togglePanel(true);
}

async function start() {
  wireControls();
  try {
    const state = await getGame(gameId);
    await applyState(state);
  } catch (error) {
    root.classList.add("missing");
    $("status-main").textContent = error.code === "not_found" ? "No such game" : "The game could not be loaded";
    const reason = error.code === "not_found" ? "The link may have been mistyped." : error.message;
    $("status-sub").innerHTML = `${escapeHtml(reason)} <a href="/">Start a new game</a>.`;
    return;
  }
  connect();
}

start();
