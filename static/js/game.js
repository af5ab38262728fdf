// The game page: applies the server's events to the page's state (game_store.js), redraws it (game_view.js), sends
// the person's moves and runs the controls. Everything comes from the server (docs/protocol.md); the browser holds
// no rules.
import {
  ApiError, STOP_KEY_PREFIX, connectGame, directEngines, getGame, getPgn, getPosition, getSearch, scoreEveryMove,
  setHints, stopGame, takeSeat,
} from "./api.js";
import { Clocks } from "./clock.js";
import { Sound } from "./sound.js";
import { escapeHtml } from "./format.js";
import { MoveList } from "./movelist.js";
import { Offers } from "./offers.js";
import { GameReview } from "./review.js";
import { EnginePanel } from "./panel.js";
import { readGrid } from "./boards/grid.js";
import { SearchTree } from "./tree.js";
import { showToast } from "./toast.js";
import { GameStore } from "./game_store.js";
import { GameView } from "./game_view.js";
import { lastMoveNews } from "./game_announce.js";
import { analyseHref, pgnWithHeaders, stepsHref } from "./game_links.js";

const root = document.getElementById("game-root");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
const PANEL_KEY = "arena.panel.hidden";
const FOLLOW_SECONDS = 5; // before a spectator follows the players into their rematch
const ANALYSE_SETUP_LIMIT = Number(root.dataset.analyseSetupLimit); // the longest setup the analysis board takes

const store = new GameStore({
  token: root.dataset.token || null,
  invite: root.dataset.invite || new URLSearchParams(window.location.search).get("invite"),
});
const sound = new Sound(() => !store.isPlayer);
const tree = new SearchTree($("tree"), $("tree-summary"));
const clocks = new Clocks([...document.querySelectorAll(".player .clock")], (seat) => {
  if (seat === store.you) sound.play("lowtime");
});
/** The page's Socket.IO connection to the game's room (`connectGame`), once made. */
let connection = null;
const offers = new Offers(
  { waiting: $("waiting-panel"), inviteField: $("invite-field"), copy: $("invite-copy"), share: $("invite-share"),
    alone: $("play-alone"), banner: $("offer-banner") },
  (event, extra) => connection.emit(event, extra),
  () => (store.invite ? `${window.location.origin}/g/${gameId}?invite=${encodeURIComponent(store.invite)}` : null),
  (text, isError) => showToast(text, isError),
);
const view = new GameView(store, { moves: new MoveList($("moves"), (ply) => review(ply)), offers, sound }, stopCode,
  ANALYSE_SETUP_LIMIT);
const gameReview = new GameReview($("review-card"), gameId, (ply) => review(ply), () => store.shownPly,
  (ply) => (store.state ? analyseHref(store, ANALYSE_SETUP_LIMIT, ply) : null));
/** The game whose board module is loaded (the board is the view's). */
let boardGame = null;

async function loadBoardModule(game) {
  try {
    return await import(`./boards/${game}.js`);
  } catch (error) {
    console.warn(`no board module for ${game}, using the generic one`, error);
    return import("./boards/generic.js");
  }
}

async function ensureBoard(state) {
  if (boardGame === state.game) return;
  boardGame = state.game;
  const module = await loadBoardModule(state.game);
  view.board?.destroy();
  view.board = module.createBoard($("board"), { onMove: sendMove, players: state.players });
}

function sendMove(move) {
  if (!store.canMove()) return;
  store.setPending(true);
  connection.emit("move", { move });
  view.render("board");
}

// ---- the game's state ----

/** Tells screen readers (and, with sound on, the ears) the latest move of `state`, once: `previous` is the state
 * shown before, a page load has none to compare with and makes no sound. */
function announceLastMove(state, previous) {
  const news = lastMoveNews(state);
  if (!news) return;
  if (previous && state.ply > previous.ply) sound.play(news.sound);
  $("announcer").textContent = news.text;
}

async function applyState(state) {
  const previous = store.state;
  const rematchIsNew = previous !== null && !previous.rematch_id;
  store.receive(state);
  if (state.ply !== previous?.ply) {
    announceLastMove(state, previous);
    if (previous && state.ply > previous.ply) {
      $("move-text").value = "";
      $("move-error").textContent = "";
    }
  }
  clocks.update(state.clock, state.players);
  gameReview.onState(state);
  if (state.rematch_id && !store.isPlayer) {
    // A spectator follows the players into their rematch even when it missed the `rematch` event itself; one who
    // opened the game after its rematch began gets the link only.
    showRematch(`/g/${state.rematch_id}`, rematchIsNew);
  }
  document.body.dataset.game = state.game;
  $("move-notation").textContent = `Moves are written as ${state.move_notation}.`;
  const labSetup = state.game === "chess" ? state.view.fen : state.setup;
  $("lab-link").href = `/lab?game=${encodeURIComponent(state.game)}&setup=${encodeURIComponent(labSetup)}`;
  $("flip").setAttribute("aria-pressed", String(store.flipped));
  if (!view.panel) {
    view.panel = new EnginePanel($("panel"), state.players, $("engine-strip"), (searchTree, last) => {
      if (store.state?.search_tree) tree.show(searchTree, last);
    }, (ply) => scoreEveryMove(gameId, ply), (movePly, depth) => stepsHref(store, ANALYSE_SETUP_LIMIT, movePly, depth));
  }
  await ensureBoard(state);
  view.render("all");
}

// ---- looking at past positions ----

async function review(ply) {
  const state = store.state;
  if (!state) return;
  if (ply === state.ply) {
    backToLive();
    return;
  }
  try {
    const position = await getPosition(gameId, ply);
    store.showPast(ply, position.view, position.move);
    view.render("all");
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
  if (store.past?.ply !== ply) return; // another move was selected meanwhile
  view.panel.showRecord(record, ply);
  if (record?.info.tree && state.search_tree) tree.show(record.info.tree);
}

/** Back to the live search in the panel and the tree. */
function showLiveSearch() {
  view.panel?.showLive();
  if (store.liveTree) tree.show(store.liveTree);
}

function backToLive() {
  store.showLive();
  showLiveSearch();
  view.render("all");
}

// ---- the connection ----

/** A `state` event: applied unless the page already shows a later version of the game. */
async function onState(state) {
  if (store.state && state.version < store.state.version) return;
  await applyState(state);
}

/**
 * A `moved` event, in order: one the page has already passed is ignored (a late or repeated message); one that
 * does not follow the version shown (a message was lost) makes the page fetch the whole game.
 */
async function onMoved(payload) {
  const shown = store.state?.version ?? -1;
  if (payload.version <= shown) return;
  if (payload.version !== shown + 1) {
    await resync();
    return;
  }
  await applyState({ ...payload.state, you: store.you });
}

/** Fetches the whole game and shows it, unless an event brought a later version meanwhile. */
async function resync() {
  try {
    const state = await getGame(gameId);
    if (!store.state || state.version >= store.state.version) await applyState(state);
  } catch (error) {
    showToast(error.message, true);
  }
}

/** A `search` event: the panel, the engine's favourite on the board, the live tree and the status line. */
function onSearch(payload) {
  view.panel?.onSearch(payload);
  const info = payload.info;
  if (store.state && payload.ply === store.state.ply && store.setHint(info.final ? null : (info.best ?? null))) {
    view.renderBoardSoon();
  }
  if (info.final && info.tree && store.state?.search_tree) {
    $("tree-card").hidden = false;
    store.setLiveTree(info.tree);
    if (store.isLive) tree.show(info.tree);
  }
  if (store.state && (info.kind === "queued" || info.kind === "started")) {
    store.setSearchState(info.kind === "queued" ? "queued" : "thinking");
    view.render("status");
  }
}

function connect() {
  connection?.socket.disconnect();
  connection = connectGame(gameId, store.token, {
    state: (state) => onState(state),
    moved: (payload) => onMoved(payload),
    search: onSearch,
    watchers: ({ count }) => {
      $("watchers-count").textContent = String(count);
      store.setWatchers(count);
    },
    rematch: (payload) => onRematch(payload),
    review: (payload) => gameReview.onReview(payload),
    analysis: (payload) => gameReview.onAnalysis(payload),
    every_move: (payload) => view.panel?.onEveryMove(payload),
    hints: (payload) => {
      store.setMoveHints(payload);
      view.drawBoard();
    },
    error: ({ code, message, event }) => {
      store.setPending(false);
      view.render("board");
      if (event === "move" && !$("move-entry").hidden) $("move-error").textContent = message ?? code;
      else showToast(message ?? code, true);
    },
    connect_error: (error) => {
      const code = error?.data?.code;
      if (code === "bad_token") {
        store.dropToken();
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
  if (store.isPlayer && store.askForRematchSeat()) {
    // The rematch was made through another server: ask ours, which answers with this seat's token.
    connection.emit("rematch");
    return;
  }
  showRematch(payload.url, true);
}

/** The countdown to following the players into their rematch (a timer), null once the spectator stays, undefined
 * before any. */
let rematchCountdown;

/**
 * Shows a spectator the link to the players' rematch at `url`; with `follow`, the page goes there after
 * `FOLLOW_SECONDS` (as the players do at once) unless the spectator chooses to stay. Counts down once per page.
 */
function showRematch(url, follow) {
  $("rematch-link").href = url;
  $("rematch-banner").hidden = false;
  if (!follow || rematchCountdown !== undefined) return;
  let left = FOLLOW_SECONDS;
  const tick = () => {
    if (left === 0) {
      window.location.assign(url);
      return;
    }
    $("rematch-text").textContent = `The players started a rematch: following them in ${left} s.`;
    left -= 1;
    rematchCountdown = setTimeout(tick, 1000);
  };
  $("rematch-stay").hidden = false;
  tick();
}

/** The spectator stays on the finished game instead of following the rematch. */
function stayAfterRematch() {
  clearTimeout(rematchCountdown);
  rematchCountdown = null;
  $("rematch-text").textContent = "The players started a rematch.";
  $("rematch-stay").hidden = true;
}

// ---- controls ----

async function copyLink() {
  const seatFree = store.state?.seats.some((seat) => seat.kind === "human" && !seat.taken);
  const inviting = Boolean(store.invite && seatFree && store.isPlayer);
  const url = `${window.location.origin}/g/${gameId}${inviting ? `?invite=${encodeURIComponent(store.invite)}` : ""}`;
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
    const { token, seat } = await takeSeat(gameId, { invite: store.invite });
    store.takeSeat(token, seat);
    if (store.state) await applyState({ ...store.state, you: seat }); // the board faces the new seat at once
    showToast(`You play ${store.names[seat]}.`);
    connect();
  } catch (error) {
    showToast(error instanceof ApiError ? error.message : String(error), true);
  }
}

/** The stop code this browser got when it created engine-against-engine game `id`, or null. */
function stopCode(id) {
  try {
    return localStorage.getItem(`${STOP_KEY_PREFIX}${id}`);
  } catch {
    return null;
  }
}

async function stopThisGame() {
  try {
    await stopGame(store.state.id, stopCode(store.state.id));
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
  connection.emit("resign");
}

function togglePanel(hidden) {
  $("panel").classList.toggle("collapsed", hidden);
  $("panel-toggle").setAttribute("aria-expanded", String(!hidden));
  $("panel-toggle").textContent = hidden ? "Show" : "Hide";
  try {
    localStorage.setItem(PANEL_KEY, hidden ? "1" : "");
  } catch { /* storage refused: the choice lasts for this page only */ }
}

/** The creator pauses, resumes or paces an engine-against-engine game. */
async function direct(change) {
  try {
    await onState(await directEngines(gameId, stopCode(gameId), change));
  } catch (error) {
    showToast(error.message, true);
  }
}

/** Downloads the game's PGN, with the engine's evaluations and depths as `[%eval ...]` comments. */
async function downloadPgn() {
  if (store.state?.game !== "chess") return;
  let pgn;
  try {
    pgn = await getPgn(gameId);
  } catch (error) {
    showToast(error.message, true);
    return;
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([pgnWithHeaders(pgn, store.state)], { type: "application/x-chess-pgn" }));
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
  if (!text || !store.state) return;
  if (!store.canMove()) {
    $("move-error").textContent = store.state.waiting_for_opponent ? "Your friend has not joined yet."
      : store.isLive ? "Wait for your turn." : "Go back to the live position to move.";
    return;
  }
  $("move-error").textContent = "";
  sendMove(text);
}

function wireControls() {
  $("copy-link").addEventListener("click", copyLink);
  $("take-seat").addEventListener("click", claimSeat);
  $("resign").addEventListener("click", resign);
  $("stop-game").addEventListener("click", stopThisGame);
  $("pause-game").addEventListener("click", () => direct({ paused: !store.state.options?.paused_by_creator }));
  $("pace").addEventListener("change", () => direct({ pace: Number($("pace").value) }));
  $("takeback").addEventListener("click", () => connection.emit("takeback"));
  $("offer-draw").addEventListener("click", () => connection.emit("offer", { kind: "draw" }));
  $("ask-takeback").addEventListener("click", () => connection.emit("offer", { kind: "takeback" }));
  $("abort").addEventListener("click", () => connection.emit("abort"));
  $("hints-toggle").addEventListener("click", async () => {
    try {
      await onState(await setHints(gameId, $("hints-toggle").dataset.on === "true", store.token));
    } catch (error) {
      showToast(error.message, true);
    }
  });
  $("rematch").addEventListener("click", () => connection.emit("rematch"));
  $("rematch-stay").addEventListener("click", stayAfterRematch);
  $("back-live").addEventListener("click", backToLive);
  $("download-pgn").addEventListener("click", downloadPgn);
  $("move-entry").addEventListener("submit", submitTypedMove);
  $("flip").addEventListener("click", () => {
    store.flip();
    $("flip").setAttribute("aria-pressed", String(store.flipped));
    view.drawBoard();
  });
  $("panel-toggle").addEventListener("click", () => togglePanel(!$("panel").classList.contains("collapsed")));
  $("sound-toggle").addEventListener("click", () => {
    sound.set(!sound.on);
    view.drawSoundToggle();
  });
  $("board").addEventListener("board-read", (event) => { $("announcer").textContent = event.detail; });
  $("read-position").addEventListener("click", () => {
    $("announcer").textContent = readGrid($("board").querySelector("svg"));
  });
  $("tree-expand").addEventListener("click", () => tree.expandAll());
  $("tree-collapse").addEventListener("click", () => tree.collapseAll());
  document.addEventListener("keydown", (event) => {
    if (!store.state || event.altKey || event.ctrlKey || event.metaKey) return;
    // Escape goes back to the live game from anywhere, a slider included; the other keys are not a field's.
    if (event.target.closest?.("input, select, textarea") && !(event.key === "Escape" && event.target.type === "range")) {
      return;
    }
    const shown = store.shownPly;
    if (event.key === "Escape" && !store.isLive) backToLive();
    else if (event.key === "ArrowLeft" && shown > 0) review(shown - 1);
    else if (event.key === "ArrowRight" && !store.isLive) review(shown + 1);
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
