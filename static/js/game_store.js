// The game page's state, declared in one place: what the server last said of the game, who the visitor is, which
// position the page shows and what the visitor chose. It holds no drawing: the page changes it through its methods
// and then redraws once from it (game.js). Its fields are sealed: a field not declared here cannot be added.

export class GameStore {
  constructor({ token, invite }) {
    /** This browser's seat token in the game (null while watching). */
    this.token = token;
    /** The invitation code: a player's page has it from the server, an invited friend's from the share link. */
    this.invite = invite;
    /** The game as the server last sent it (a `state` payload; docs/protocol.md), null before the first. */
    this.state = null;
    /** The visitor's seat (0 or 1), null while watching. */
    this.you = null;
    /** Whether the board is drawn from the second seat's side; whether the visitor chose so (it then stays). */
    this.flipped = false;
    this.flipChosen = false;
    /** The past position shown instead of the live one, `{ ply, view, last }` (`last`: the move that made it),
     * or null. */
    this.past = null;
    /** A move sent and not answered yet: the board takes no other meanwhile. */
    this.pending = false;
    /** The engine's current favourite in the live position (drawn while it thinks), or null. */
    this.hint = null;
    /** The hints (every move's value) of the live position as last sent (`hints` event), or null. */
    this.moveHints = null;
    /** The live search's last tree (tic-tac-toe and Nim), shown again after a past position's. */
    this.liveTree = null;
    /** Whether the page asked its server for its seat in a rematch made through another server. */
    this.askedForRematchSeat = false;
    Object.seal(this);
  }

  /** Whether the visitor plays (holds a seat). */
  get isPlayer() {
    return this.you !== null && this.you !== undefined;
  }

  /** Whether the live position is shown (not a past one). */
  get isLive() {
    return this.past === null;
  }

  /** The number of moves before the position shown. */
  get shownPly() {
    return this.past?.ply ?? this.state?.ply ?? 0;
  }

  /** The board view of the position shown. */
  get shownView() {
    return this.isLive ? this.state?.view : this.past.view;
  }

  /** The side names (from the game, once known). */
  get names() {
    return this.state?.players ?? ["First", "Second"];
  }

  /** Whether the visitor may move now: the live position of an active game, their human seat's turn, nothing
   * pending, the opponent there. */
  canMove() {
    const state = this.state;
    return Boolean(state) && this.isLive && !this.pending && state.status === "active" && this.isPlayer
      && state.to_move === this.you && state.seats[this.you]?.kind === "human" && !state.waiting_for_opponent;
  }

  /** Takes `state` as the game's (the caller checked it is not older than the one held): the visitor's seat when
   * it says, no pending move, and no hint left from an earlier position. */
  receive(state) {
    if (state.you !== undefined) this.you = state.you;
    if (state.ply !== this.state?.ply) this.hint = null;
    this.state = state;
    this.pending = false;
    if (!this.flipChosen) this.flipped = FLIP_BY_DEFAULT.has(state.game) && this.you === 1;
  }

  /** The visitor turns the board: their choice stays, whatever seat they take. */
  flip() {
    this.flipped = !this.flipped;
    this.flipChosen = true;
  }

  /** Shows the past position after `ply` moves (`view`, made by `last`). */
  showPast(ply, view, last) {
    this.past = { ply, view, last };
  }

  /** Shows the live position again. */
  showLive() {
    this.past = null;
  }

  /** A move has been sent (`pending` true) or answered with an error (false). */
  setPending(pending) {
    this.pending = pending;
  }

  /** The engine's favourite in the live position; whether it changed. */
  setHint(move) {
    if (move === this.hint) return false;
    this.hint = move;
    return true;
  }

  /** The live position's hints, as the server sent them. */
  setMoveHints(hints) {
    this.moveHints = hints;
  }

  /** The live search's last tree. */
  setLiveTree(tree) {
    this.liveTree = tree;
  }

  /** The visitor took seat `seat` with `token`. */
  takeSeat(token, seat) {
    this.token = token;
    this.you = seat;
  }

  /** The server refused the seat token: the visitor watches. */
  dropToken() {
    this.token = null;
  }

  /** The engine's search state for the status line ("queued", "thinking"), between two states. */
  setSearchState(searchState) {
    if (this.state) this.state.search_state = searchState;
  }

  /** The number of people watching, between two states. */
  setWatchers(count) {
    if (this.state) this.state.watchers = count;
  }

  /** Notes that the page asked for its seat in the rematch; whether it had not yet. */
  askForRematchSeat() {
    if (this.askedForRematchSeat) return false;
    this.askedForRematchSeat = true;
    return true;
  }
}

/** Games whose board faces the second seat's player by default. */
const FLIP_BY_DEFAULT = new Set(["chess", "wolves"]);
