// The game page's drawing: everything it shows of the game, redrawn from the store (game_store.js) alone. The
// page asks for one redraw after each change: `render("all")`, `render("board")` (the board and the chess move
// form) or `render("status")`; `renderBoardSoon()` redraws the board at the next animation frame (the engine's
// favourite changes many times a second).
import { hintItems, hintLegend } from "./hintmarks.js";
import { moveLabels } from "./movelist.js";
import { analyseHref } from "./game_links.js";

const $ = (id) => document.getElementById(id);
/** Games whose board draws hints itself; the others list them under the board. */
const BOARD_HINTS = new Set(["connect4", "tictactoe", "nim", "wolves"]);

/** "X wins", "Wolves win": the verb agrees with a plural side's name. */
function wins(name) {
  return `${name} ${name.endsWith("s") ? "win" : "wins"}`;
}

export class GameView {
  /**
   * `store`: the page's state; `widgets`: `{ moves, offers, sound }` (the move list, the offers, the sounds);
   * `stopCode(gameId)`: the stop code this browser holds for an engine-against-engine game, or null;
   * `setupLimit`: the longest setup the analysis board takes.
   */
  constructor(store, widgets, stopCode, setupLimit) {
    this.store = store;
    this.widgets = widgets;
    this.stopCode = stopCode;
    this.setupLimit = setupLimit;
    /** The board module's board (once the game's module has loaded) and the engine panel (once a state came). */
    this.board = null;
    this.panel = null;
    this.boardFrame = 0;
  }

  /** Redraws `part` of the page: "all", "board" or "status". */
  render(part) {
    const state = this.store.state;
    if (!state) return;
    if (part === "status") {
      this.drawStatus(state);
      return;
    }
    if (part === "board") {
      this.drawBoard();
      this.drawChess(state);
      return;
    }
    this.drawStatus(state);
    this.drawPlayers(state);
    this.drawSeatBanner(state);
    this.drawControls(state);
    this.drawSoundToggle();
    this.drawBoard();
    this.widgets.moves.render(state.history ?? [], this.store.shownPly, state.players, moveLabels(state));
    this.drawChess(state);
    $("analyse-link").href = analyseHref(this.store, this.setupLimit);
    const engine = state.seats.some((seat) => seat.kind === "engine");
    $("panel").hidden = !engine;
    if (!engine || !state.search_tree) $("tree-card").hidden = true;
    this.panel?.onState(state);
  }

  /** Redraws the board at the next animation frame, once however often it is asked before. */
  renderBoardSoon() {
    if (this.boardFrame) return;
    this.boardFrame = requestAnimationFrame(() => {
      this.boardFrame = 0;
      this.drawBoard();
    });
  }

  drawStatus(state) {
    const { store } = this;
    const main = $("status-main");
    const sub = $("status-sub");
    const dot = $("turn-dot");
    const playerNames = state.players;
    $("status").classList.toggle("over", state.status === "finished");
    $("status").classList.toggle("thinking", state.status === "active" && state.seats[state.to_move]?.kind === "engine");
    if (state.status === "finished") {
      const result = state.result ?? { winner: null, reason: "" };
      dot.className = `turn-dot${result.winner === null ? "" : ` p${result.winner}`}`;
      if (result.reason === "stopped") main.textContent = "Stopped by its creator";
      else if (result.reason === "aborted") main.textContent = "Game aborted";
      else if (result.winner === null) main.textContent = "Draw";
      else if (store.you === result.winner) main.textContent = `You win! (${playerNames[result.winner]})`;
      else if (store.isPlayer) main.textContent = `${wins(playerNames[result.winner])} — you lose`;
      else main.textContent = wins(playerNames[result.winner]);
      const fullMoves = Math.ceil(state.ply / 2); // as the move list numbers them: one per pair of turns
      const moves = `${fullMoves} ${fullMoves === 1 ? "move" : "moves"}`;
      sub.textContent = result.reason ? `${result.reason[0].toUpperCase()}${result.reason.slice(1)} · ${moves}` : moves;
    } else {
      const mover = state.to_move;
      const seat = state.seats[mover];
      dot.className = `turn-dot p${mover}`;
      if (state.waiting_for_opponent) {
        main.textContent = store.isPlayer ? "Waiting for your friend to take the other seat" : "Waiting for a second player";
      } else if (store.you === mover && seat.kind === "human") main.textContent = `Your move (${playerNames[mover]})`;
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

  drawPlayers(state) {
    for (const el of document.querySelectorAll(".player")) {
      const seatIndex = Number(el.dataset.player);
      const seat = state.seats[seatIndex];
      const label = seat.label ?? seat.kind;
      el.querySelector(".who").textContent = label.startsWith(state.players[seatIndex])
        ? label : `${state.players[seatIndex]} · ${label}`;
      el.querySelector(".you").hidden = this.store.you !== seatIndex;
      el.classList.toggle("to-move", state.status === "active" && state.to_move === seatIndex);
    }
  }

  drawSeatBanner(state) {
    const free = state.seats.find((seat) => seat.kind === "human" && !seat.taken);
    const show = Boolean(free) && !this.store.isPlayer && state.status === "active";
    const invited = Boolean(state.opponent?.open || this.store.invite);
    $("seat-banner").hidden = !show;
    $("take-seat").hidden = !invited;
    if (show) {
      $("take-seat").textContent = `Join as ${state.players[free.seat]}`;
      $("seat-text").textContent = invited
        ? `The ${state.players[free.seat]} seat is free: join to play, or just watch.`
        : `The ${state.players[free.seat]} seat is kept for the player invited with the game's link. You can watch.`;
    }
  }

  drawControls(state) {
    const { store } = this;
    const player = store.isPlayer;
    const you = store.you;
    $("resign").hidden = !(player && state.status === "active");
    $("stop-game").hidden = !(state.status === "active" && this.stopCode(state.id));
    const directing = state.status === "active" && Boolean(this.stopCode(state.id));
    $("pause-game").hidden = !directing;
    $("pause-game").textContent = state.options?.paused_by_creator ? "Resume" : "Pause";
    $("pace-row").hidden = !directing;
    if (directing) showPace(state.pace);
    $("rematch").hidden = !(player && state.status === "finished");
    // A game's end is final: no take-back once it is over, however it ended.
    $("takeback").hidden = !(player && state.status === "active" && state.options?.takeback
      && state.seats.some((seat) => seat.kind === "engine") && state.ply > 0);
    const twoPlayers = state.seats.every((seat) => seat.kind === "human" && seat.taken);
    const pendingOffers = state.offers ?? {};
    $("offer-draw").hidden = !(player && twoPlayers && state.status === "active" && pendingOffers.draw === null);
    $("ask-takeback").hidden = !(player && twoPlayers && state.status === "active" && pendingOffers.takeback === null
      && (state.history ?? []).some((move) => move.by === you));
    $("abort").hidden = !(player && state.status === "active" && state.ply < 3);
    $("resign").hidden = !(player && state.status === "active" && state.ply >= 3);
    $("rematch").textContent = twoPlayers && !state.rematch_id
      ? (pendingOffers.rematch === you ? "Rematch offered…" : pendingOffers.rematch !== null ? "Accept rematch"
        : "Offer rematch")
      : "Rematch";
    $("rematch").disabled = twoPlayers && !state.rematch_id && pendingOffers.rematch === you;
    this.widgets.offers.draw(state, you);
    this.drawHintsToggle(state, player);
    $("back-live").hidden = store.isLive;
    $("back-live").classList.toggle("primary", !store.isLive);
    $("board-wrap").classList.toggle("review", !store.isLive);
  }

  /** The players' hints button: on or off alone against the engine; between two people on once both asked. */
  drawHintsToggle(state, player) {
    const button = $("hints-toggle");
    button.hidden = !(player && state.status === "active");
    if (button.hidden) return;
    const you = this.store.you;
    const on = Boolean(state.options?.hints);
    const asked = state.options?.hints_asked_by;
    const alone = state.seats.filter((seat) => seat.kind === "human").length === 1;
    button.dataset.on = String(!on);
    button.textContent = on ? "Hints off" : alone ? "Hints on"
      : asked === you ? "Hints asked…" : asked !== null && asked !== undefined ? "Accept hints" : "Ask for hints";
    button.disabled = !on && asked === you;
    button.title = alone || on ? "Show every move's value on the board (for spectators too)"
      : "Hints come on once both players ask for them";
  }

  drawBoard() {
    const { store } = this;
    const state = store.state;
    if (!state || !this.board) return;
    const live = store.isLive;
    const lastMove = live ? (state.history?.at(-1)?.move ?? null) : store.past.last;
    const thinking = live && state.status === "active" && state.seats[state.to_move]?.kind === "engine";
    const focused = $("board").contains(document.activeElement);
    this.board.render(store.shownView, {
      interactive: store.canMove(), flipped: Boolean(store.flipped), lastMove, hint: thinking ? store.hint : null,
      hints: this.currentHints(),
    });
    this.drawHints();
    // A move redraws the board: keyboard focus stays on it rather than falling back to the page.
    if (focused && !$("board").contains(document.activeElement)) $("board").focus();
  }

  /** The hints of the live position, when the game has hints on and they have arrived. */
  currentHints() {
    const { state, moveHints } = this.store;
    return this.store.isLive && state?.status === "active" && moveHints?.ply === state.ply ? moveHints : null;
  }

  /** The line under the board: where the hints come from, their legend, and every move's value (a list the page
   * shows for boards that do not draw hints, and that screen readers read for all). */
  drawHints() {
    const state = this.store.state;
    const hints = this.currentHints();
    const active = state?.status === "active";
    const on = Boolean(state?.options?.hints) && active;
    const asked = state?.options?.hints_asked_by;
    const asking = !on && active && asked !== null && asked !== undefined;
    $("hints-bar").hidden = !on && !asking;
    if (asking) {
      $("hints-source").textContent = `: ${state.players[asked]} asks to turn them on; they come on once both players agree`;
      $("hints-legend").textContent = "";
      $("hints-list").replaceChildren();
      return;
    }
    if (!on) return;
    $("hints-source").textContent = hints
      ? `for ${state.players[hints.seat]}: ${hints.source}`
      : this.store.isLive ? "are being worked out…" : "show on the live position";
    $("hints-legend").textContent = hints ? hintLegend(hints.how) : "";
    const list = $("hints-list");
    list.classList.toggle("visually-hidden", BOARD_HINTS.has(state.game));
    list.replaceChildren(...(hints ? hintItems(hints) : []));
  }

  /** Chess only: the opening of the position shown, the PGN button and the typed-move form. */
  drawChess(state) {
    const chess = state.game === "chess";
    const opening = chess ? this.store.shownView?.opening : null;
    $("opening").hidden = !opening;
    if (opening) {
      $("opening-eco").textContent = opening.eco;
      $("opening-name").textContent = opening.name;
    }
    $("download-pgn").hidden = !chess;
    $("move-entry").hidden = !(chess && this.store.isPlayer && state.status === "active");
  }

  /** The sound button: what it does for the visitor's role (a player's or a spectator's choice). */
  drawSoundToggle() {
    const button = $("sound-toggle");
    const on = this.widgets.sound.on;
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound on" : "Sound off";
    button.title = `${on ? "Turn off" : "Turn on"} the sounds of moves, checks, captures, the end and low time`
      + `${this.store.isPlayer ? "" : " while watching"}`;
  }
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
