// The engine panel: what the engine is doing right now, for everyone in the game's room.
// Events may arrive faster than the screen refreshes; they are folded into one redraw per animation frame.
import { drawEvaluation, drawNodesPerDepth } from "./charts.js";
import { moveLabels } from "./movelist.js";
import { truthMark } from "./truth.js";
import { escapeHtml, formatCount, formatMillis, formatPercent, isDecided, scoreClass, scoreFor } from "./format.js";

const COUNT_UP_MS = 160;
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");

const STATE_TEXT = {
  idle: "idle",
  starting: "starting",
  paused: "paused",
  queued: "queued",
  thinking: "thinking",
  book: "opening book",
  table: "solved",
  solver: "solved",
  solving: "solving",
  done: "done",
  cancelled: "cancelled",
  failed: "failed",
  record: "stored search",
};

/** A root move's score is exact, or only a bound the search proved: "≥" (at least) or "≤" (at most). */
const BOUND_MARK = { lower: "≥ ", upper: "≤ " };
const BOUND_TITLE = { lower: " (a lower bound: at least this)", upper: " (an upper bound: at most this)" };

/** Where a score comes from, after whose it is: a table with its size, the solver with its book's share. */
function sourceText(info) {
  if (info.table_size) return SOURCE_TEXT.tableSized(info.table_size);
  if (info.source === "solver" && info.book_hits) return SOURCE_TEXT.solverBook(info.book_hits);
  return SOURCE_TEXT[info.source] ?? "";
}

/** While the solver proves a position's moves one by one: how many it has proven (each then shows its exact value
 * among the candidates); "" for any other event. */
function proving(info) {
  if (info?.source !== "solver" || info.final) return "";
  const proven = (info.root_moves ?? []).filter((rm) => rm.bound === "exact").length;
  return `the solver is proving each move to the end of the game: ${proven} of ${(info.root_moves ?? []).length} so far`;
}

/** The least time between two announcements of the engine's depth while it thinks, in ms. */
const ANNOUNCE_MS = 5000;

/** Moves that come from no search: the opening book, a solved table, the exact solver. */
const ORACLES = new Set(["book", "table", "solver"]);
const SOLVED = new Set(["table", "solver"]);

/** The nodes-per-depth chart of a move that comes from no iterative search. */
const ORACLE_DEPTHS = {
  book: "a move of the opening book: not searched",
  table: "every move's exact value read from the solved table",
  solver: "the solver searched to the end of the game at once: no iterations",
};

const SOURCE_TEXT = {
  book: " · a move of the opening book, not searched",
  table: " · the exact value, read from the solved table",
  tableSized: (size) => ` · the exact value, read from the solved table of ${formatCount(size)} positions`,
  solver: " · the exact value, found by the solver",
  solverBook: (hits) => ` · the exact value, found by the solver (${formatCount(hits)} of its positions read from `
    + "its opening book)",
};

/** Width (0-100) of each candidate's bar: decided wins full, losses nearly empty, heuristics spread between. */
function barWidths(rows, useVisits) {
  if (useVisits) {
    const most = Math.max(1, ...rows.map((r) => r.visits ?? 0));
    return rows.map((r) => (100 * (r.visits ?? 0)) / most);
  }
  const heuristic = rows.filter((r) => Number.isFinite(r.score) && !isDecided(r.score)).map((r) => r.score);
  const low = Math.min(...heuristic);
  const high = Math.max(...heuristic);
  return rows.map((r) => {
    if (!Number.isFinite(r.score)) return 2;
    if (isDecided(r.score)) return r.score > 0 ? 100 : 4;
    return high === low ? 60 : 20 + (70 * (r.score - low)) / (high - low);
  });
}

/** Whether a candidate's score proves its result: an exact decided score, a win as a lower bound or a loss as an
 * upper bound (a bound on the other side says nothing about how good or bad the move is). */
function provesResult(rm) {
  if (!isDecided(rm.score)) return false;
  return rm.bound === "exact" || (rm.score > 0 ? rm.bound === "lower" : rm.bound === "upper");
}

export class EnginePanel {
  /**
   * `root` holds the panel's elements (ids p-*); `names` are the display names of seat 0 and seat 1; `strip`, if
   * given, gets a one-line summary (shown beside the board on a phone); `showTree(tree, last)`, if given, is told
   * the tree of the iteration the slider picks (`last`: the iteration whose move was played); `askEveryMove(ply)`,
   * if given, asks the server to score every move of the search behind ply `ply` (a promise of its first answer;
   * the rest arrives through `onEveryMove`); `stepsHref(movePly, depth)`, if given, is the search stepper's link to a
   * search like the one behind ply `movePly`, to `depth` (null when there is none).
   */
  constructor(root, names, strip = null, showTree = null, askEveryMove = null, stepsHref = null) {
    this.root = root;
    this.askEveryMove = askEveryMove;
    this.stepsHref = stepsHref;
    this.everyMove = new Map(); // move ply -> the latest every_move answer about its search
    this.livePly = null; // the ply the live search's move makes
    this.strip = strip;
    this.engineGame = false;
    this.showTree = showTree;
    this.names = names;
    this.$ = (id) => root.querySelector(`#${id}`);
    this.info = null;
    this.seat = null;
    this.sideText = "the engine's side";
    this.analysing = false;
    this.lines = 1;
    this.state = "idle";
    this.queuePosition = null;
    this.evals = [];
    this.totalPlies = 0;
    this.record = null;
    this.recordPly = null;
    this.frame = 0;
    this.dirty = { info: false, evals: false };
    this.$("p-iteration").addEventListener("input", () => this.drawIteration());
    this.$("p-every-move").addEventListener("click", () => this.scoreEveryMove());
    window.addEventListener("resize", () => {
      this.dirty.info = true;
      this.schedule();
    });
  }

  /** A `search` event from the server: {ply, seat, info}. */
  onSearch({ ply, seat, info }) {
    this.seat = seat;
    this.livePly = ply + 1;
    if (info.kind === "queued") {
      this.state = "queued";
      this.queuePosition = info.position ?? null;
      this.info = null;
    } else if (info.kind === "started") {
      this.state = "thinking";
      this.info = null;
      this.engineText = info.engine_label ?? "";
    } else if (info.kind === "cancelled" || info.kind === "failed") {
      this.state = info.kind;
    } else {
      this.info = info;
      if (info.engine_label) this.engineText = info.engine_label; // a late joiner missed "started"
      if (ORACLES.has(info.source)) this.state = info.final ? info.source : "solving";
      else this.state = info.final ? "done" : "thinking";
    }
    this.dirty.info = true;
    this.schedule();
  }

  /**
   * Shows the stored search of the engine move that made ply `movePly` (`record`: its final `search` event as the
   * room received it, or null when none was kept) instead of the live one, until `showLive`.
   */
  showRecord(record, movePly) {
    this.record = record ?? { seat: null, info: null };
    this.recordPly = movePly;
    this.dirty.info = true;
    this.schedule();
  }

  /** An `every_move` answer (or the first answer of asking): the exact scores of a search's every move. */
  onEveryMove(payload) {
    this.everyMove.set(payload.ply, payload);
    this.dirty.info = true;
    this.schedule();
  }

  /** Asks for the exact score of every move of the search shown. */
  async scoreEveryMove() {
    const ply = this.record ? this.recordPly : this.livePly;
    if (!this.askEveryMove || !ply) return;
    this.onEveryMove({ ply, status: "running" });
    try {
      const answer = await this.askEveryMove(ply);
      if (this.everyMove.get(ply)?.status !== "done") this.onEveryMove(answer);
    } catch (error) {
      this.onEveryMove({ ply, status: "failed", message: error.message });
    }
  }

  /** Back to the live search after `showRecord`. */
  showLive() {
    if (!this.record) return;
    this.record = null;
    this.dirty.info = true;
    this.schedule();
  }

  /** The game's state: its seat-0 evaluation points, its length, and whether the engine is queued or thinking
   * (or about to be: its turn has come and no search event has arrived yet). */
  onState(state) {
    this.engineGame = state.seats.some((seat) => seat.kind === "engine");
    this.evals = state.evals ?? [];
    this.totalPlies = state.ply ?? 0;
    this.startPly = moveLabels(state).startPly ?? 0;
    this.gameOver = state.status !== "active";
    this.scoreUnit = state.score_unit ?? "";
    this.scoreAxis = state.score_axis;
    const engineTurn = state.status === "active" && state.seats[state.to_move]?.kind === "engine";
    const busy = (s) => s === "thinking" || s === "queued" || s === "starting";
    if (state.search_state === "paused") {
      this.state = "paused"; // nobody watched, or its creator paused it: no search runs
    } else if (state.search_state === "queued" || state.search_state === "thinking") {
      if (!busy(this.state) || this.state === "starting") this.state = state.search_state;
    } else if (engineTurn) {
      if (!busy(this.state)) this.state = "starting";
    } else if (busy(this.state)) {
      this.state = this.info?.final ? "done" : "idle";
    }
    this.dirty.evals = true;
    this.dirty.info = true;
    this.schedule();
  }

  /** A position searched outside any game (the analysis board): its ply, side to move and score unit; the panel is
   * cleared until that position's search events arrive. */
  onPosition({ ply, toMove, scoreUnit, scoreAxis, lines = 1 }) {
    this.lines = lines;
    this.seat = toMove;
    this.livePly = ply + 1;
    this.totalPlies = ply;
    this.scoreUnit = scoreUnit;
    this.scoreAxis = scoreAxis;
    this.info = null;
    this.state = "idle";
    this.engineText = "";
    this.sideText = "the side to move";
    this.analysing = true; // no move of the search is played
    this.engineGame = true; // the phone strip sums the search up
    this.dirty.info = true;
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  draw() {
    this.frame = 0;
    if (this.dirty.info) this.drawInfo();
    if (this.dirty.evals || this.dirty.info) this.drawEvals();
    this.dirty = { info: false, evals: false };
  }

  drawEvals() {
    if (!this.$("p-eval-chart")) return; // a page without the game's evaluation chart (the analysis board)
    const points = this.evals.map((p) => ({ ply: p.ply, score: p.score, score_text: p.score_text }));
    const live = this.info;
    if (live && !live.final && Number.isFinite(live.score) && this.seat !== null) {
      const score = scoreFor(0, live.score, this.seat);
      points.push({ ply: this.totalPlies + 1, score, score_text: `${live.score_text} (thinking)` });
    }
    drawEvaluation(this.$("p-eval-chart"), points, {
      plies: this.totalPlies + (this.gameOver ? 0 : 1), names: this.names, axis: this.scoreAxis, startPly: this.startPly,
    });
  }

  drawInfo() {
    const view = this.record
      ? {
        state: "record", info: this.record.info, seat: this.record.seat,
        engineText: [`move ${this.recordPly}`, this.record.info?.engine_label].filter(Boolean).join(" · "),
      }
      : { state: this.state, info: this.info, seat: this.seat, engineText: this.engineText };
    const building = view.info?.building ?? null;
    const pill = this.$("panel-state");
    let stateText = building ? "preparing" : STATE_TEXT[view.state] ?? view.state;
    if (view.state === "queued" && this.queuePosition) stateText = `queued · #${this.queuePosition}`;
    if (view.state === "record" && !view.info) stateText = "no stored search";
    pill.dataset.state = view.state;
    pill.textContent = stateText;
    this.$("p-engine").textContent = view.engineText ?? "";

    const info = building ? null : view.info;
    const seat = view.seat;
    const preparing = this.$("p-building");
    preparing.hidden = !building;
    if (building) {
      const count = building.total
        ? `${formatCount(building.done)} of ${formatCount(building.total)} positions`
        : `${formatCount(building.done)} positions so far`;
      preparing.textContent = `Building ${building.what} before the first move from it (once; then every move is `
        + `read from it): ${building.stage}, ${count}.`;
    }
    const score = this.$("p-score");
    score.textContent = info?.score_text || "–";
    score.className = `score-big ${scoreClass(info?.score_text)}${(info?.score_text ?? "").length > 12 ? " long" : ""}`;
    this.$("p-score-who").textContent = info && seat !== null && (info.final !== false || info.source !== "solver")
      ? `for ${this.names[seat]}, ${this.sideText}${sourceText(info)}`
      : proving(info);

    const choice = this.$("p-choice");
    const preferred = info?.search_best ? (info.root_moves ?? []).find((rm) => rm.move === info.search_best) : null;
    choice.hidden = !preferred;
    choice.textContent = preferred
      ? `This level plays a move at random among those close to the best: it played ${info.pv_text?.[0] ?? info.best}, `
        + `scored and lined out above, while its search preferred ${preferred.text ?? preferred.move} `
        + `(${preferred.score_text ?? "…"}).`
      : "";

    const yielded = this.$("p-yielded");
    yielded.hidden = !info?.yielded;
    yielded.textContent = info?.yielded
      ? `Stopped after ${formatMillis(info.time_ms)} to give the engine to other work waiting for it: what it found by `
        + `depth ${info.depth}. Search again to start it anew.` : "";

    const unit = this.$("p-score-unit");
    unit.hidden = !info || !Number.isFinite(info.score) || isDecided(info.score) || ORACLES.has(info.source)
      || !this.scoreUnit;
    unit.textContent = unit.hidden ? "" : `Unit: ${this.scoreUnit}.`;

    const pv = info?.pv_text ?? info?.pv ?? [];
    this.$("p-pv").innerHTML = pv.length
      ? pv.map((move, i) => `<span class="p${(seat + i) % 2}">${escapeHtml(move)}</span>`).join("")
      : `<span class="muted">${view.state === "queued" ? "waiting for a free worker…" : "–"}</span>`;

    // A move of the book or a table had no search: only the time it took. The solver searched to the end of the
    // game: its depth, nodes and speed are its own (it counts no cutoffs, pruning or TT hits for the panel).
    const searched = info && !ORACLES.has(info.source) ? info : null;
    const solved = info?.source === "solver" ? info : null;
    this.$("p-depth").innerHTML = searched ? `${searched.depth}<small>/${searched.seldepth}</small>`
      : solved?.final ? `${solved.depth}<small> to the end</small>` : solved ? "<small>proving</small>" : "–";
    this.countUp("p-nodes", searched?.nodes ?? solved?.nodes);
    this.$("p-pruned").innerHTML = searched
      ? `${formatCount(searched.pruned)} <small>${formatPercent(searched.pruned, searched.generated)}</small>` : "–";
    this.countUp("p-cutoffs", searched?.cutoffs);
    this.$("p-tt").innerHTML = searched
      ? `${formatPercent(searched.tt_hits, searched.tt_probes)} <small>${formatCount(searched.tt_hits)}</small>` : "–";
    this.$("p-nps").textContent = searched || solved ? formatCount((searched ?? solved).nps) : "–";
    this.$("p-time").textContent = info ? formatMillis(info.time_ms) : "–";
    // The branching of one depth is only the number of moves: shown from the second depth on.
    this.$("p-ebf").textContent = searched && searched.depth >= 2 && Number.isFinite(searched.ebf)
      ? searched.ebf.toFixed(2) : "–";

    const progress = this.$("p-progress-note");
    progress.hidden = !searched || searched.final || searched.kind !== "progress" || !searched.depth;
    progress.textContent = progress.hidden ? "" : `Score, line, candidates and branching: depth ${searched.depth}, `
      + `the last completed. Nodes, pruned, cutoffs, TT hits, speed and time: so far, with depth ${searched.depth + 1} `
      + "in progress.";

    this.drawStrip(stateText, info, seat);
    this.announce(view.state, stateText, info);
    this.drawLines(info);
    this.drawIterations(info);
    this.drawRootMoves(info, this.record ? this.recordPly : this.livePly);
    let noDepths = info?.algorithm === "mcts" ? "tree search by playouts: no depths" : "no completed depth yet";
    if (info?.source in ORACLE_DEPTHS) noDepths = ORACLE_DEPTHS[info.source];
    drawNodesPerDepth(this.$("p-depth-chart"), info?.nodes_per_depth ?? [], noDepths);
  }

  /** The best `lines` root moves that came with a line of their own (the analysis board's multi-PV), best first,
   * each with its exact score and line; hidden when fewer than two lines are asked for. */
  drawLines(info) {
    const block = this.$("p-lines-block");
    const rows = (info?.root_moves ?? []).filter((rm) => rm.pv && rm.bound === "exact" && Number.isFinite(rm.score));
    block.hidden = this.lines < 2 || rows.length === 0;
    if (block.hidden) {
      this.$("p-lines").replaceChildren(); // no line of an earlier search stays behind, even unseen
      return;
    }
    rows.sort((a, b) => b.score - a.score);
    const seat = this.seat ?? 0;
    this.$("p-lines").innerHTML = rows.slice(0, this.lines).map((rm) => {
      const moves = (rm.pv_text ?? rm.pv).map((move, i) => `<span class="p${(seat + i) % 2}">${escapeHtml(move)}</span>`);
      return `<li><span class="line-score ${scoreClass(rm.score_text)}">${escapeHtml(rm.score_text ?? "")}</span>`
        + `<span class="pv">${moves.join("")}</span></li>`;
    }).join("");
  }

  /** The one-line summary: state, score, depth, nodes, pruned share and best move. */
  /** Tells screen readers what the engine does at a polite rate: its state when it changes ("queued", "thinking",
   * "solving"), and while it thinks its depth at most every `ANNOUNCE_MS`; never a stored search. */
  announce(state, stateText, info) {
    if (state === "record") return;
    const now = performance.now();
    const depth = state === "thinking" && info?.depth ? `, depth ${info.depth}` : "";
    const text = `Engine ${stateText}${depth}`;
    const changed = state !== this.announced?.state;
    if (text === this.announced?.text || (!changed && now - (this.announced?.at ?? 0) < ANNOUNCE_MS)) return;
    this.announced = { state, text, at: now };
    this.$("p-announce").textContent = text;
  }

  drawStrip(stateText, info, seat) {
    if (!this.strip) return;
    const parts = [`<b>${escapeHtml(stateText)}</b>`];
    if (info) {
      // A book move's score says "opening book · C30 King's Gambit": the state already says "opening book".
      const prefix = `${stateText} · `;
      const scoreText = info.score_text?.startsWith(prefix) ? info.score_text.slice(prefix.length) : info.score_text;
      if (scoreText && scoreText !== stateText) {
        const whose = seat !== null && seat !== undefined ? ` for ${this.names[seat]}` : "";
        parts.push(`${escapeHtml(scoreText)}${escapeHtml(whose)}`);
      }
      if (!ORACLES.has(info.source)) {
        parts.push(`depth ${info.depth}/${info.seldepth}`, `${formatCount(info.nodes)} nodes`);
        if (info.generated) parts.push(`${formatPercent(info.pruned, info.generated)} pruned`);
      }
      const best = (info.pv_text ?? info.pv ?? [])[0] ?? info.best;
      if (best) parts.push(`best ${escapeHtml(best)}`);
    }
    this.strip.innerHTML = parts.join(" · ");
    this.strip.hidden = !this.engineGame; // a game between two people has no engine to sum up
  }

  /** The "score every move" button and what it brought: offered under a finished alpha-beta search that left
   * bounds, then running, failed, or the depth, nodes and time of the answer shown in `rows`. */
  drawEveryMove(info, rows, scored) {
    const button = this.$("p-every-move");
    const note = this.$("p-every-move-note");
    const bounds = rows.some((rm) => (rm.claim ?? rm).bound === "upper" || (rm.claim ?? rm).bound === "lower");
    const offered = Boolean(this.askEveryMove && info?.final && info.algorithm === "alphabeta"
      && !ORACLES.has(info.source) && bounds);
    button.hidden = !offered || scored?.status === "done";
    button.disabled = scored?.status === "running";
    button.textContent = scored?.status === "running"
      ? "Scoring every move…" : `Score every move exactly at depth ${info?.depth ?? "–"}`;
    note.hidden = !offered || !scored || scored.status === "running";
    if (scored?.status === "failed") {
      note.textContent = `Scoring every move failed: ${scored.message ?? "no answer"}.`;
    } else if (scored?.status === "done") {
      const depth = scored.depth < scored.asked_depth
        ? `depth ${scored.depth} (depth ${scored.asked_depth} did not finish in time)` : `depth ${scored.depth}`;
      note.textContent = `Every move searched again with a full window at ${depth}: ${formatCount(scored.nodes)} `
        + `nodes in ${formatMillis(scored.time_ms)}, against ${formatCount(info.nodes)} for the search with its `
        + "cut-offs. Each row shows its exact score, and under it what the search had proved (≤, ≥).";
    }
  }

  /** "Step through a search like this one": under a finished alpha-beta search (not the book, a table or the solver),
   * to the depth it completed. */
  drawStepsLink(info, movePly) {
    const link = this.$("p-steps");
    const href = this.stepsHref && info?.final && info.algorithm === "alphabeta" && !ORACLES.has(info.source)
      && info.depth > 0 ? this.stepsHref(movePly, info.depth) : null;
    link.hidden = !href;
    if (href) link.href = href;
  }

  /** The slider over a finished search's iterations (depth 1 to N), set to the last one. */
  drawIterations(info) {
    const iterations = info?.final ? info.iterations ?? [] : [];
    const slider = this.$("p-iteration");
    this.$("p-iterations").hidden = iterations.length < 2;
    if (iterations === this.iterations) return; // the same search drawn again: the slider stays where it is
    this.iterations = iterations;
    this.iterationsInfo = info;
    if (iterations.length < 2) return;
    slider.max = String(iterations.length);
    slider.value = String(iterations.length);
    this.drawIteration();
  }

  /** What the chosen iteration found: its best move, score, line and cost. */
  drawIteration() {
    const index = Number(this.$("p-iteration").value) - 1;
    const step = this.iterations?.[index];
    if (!step) return;
    const line = (step.pv_text ?? step.pv ?? []).join(" ");
    const isLast = index === this.iterations.length - 1;
    const last = isLast ? (this.analysing ? " (the last)" : " (the last, whose move is played)") : "";
    const tree = isLast ? this.iterationsInfo?.tree : step.tree;
    if (tree) this.showTree?.(tree, isLast);
    const best = step.pv_text && step.pv?.[0] === step.best ? step.pv_text[0] : step.best; // SAN where the game has it
    this.$("p-iteration-text").innerHTML = `Depth ${step.depth}${last}: best <strong>${escapeHtml(best ?? "–")}</strong>, `
      + `score ${escapeHtml(step.score_text ?? "–")}, ${formatCount(step.nodes)} nodes in total so far, `
      + `${formatMillis(step.time_ms)}; line <span class="pv-inline">${escapeHtml(line || "–")}</span>`;
  }

  /** Shows a growing counter by counting up to `target` over a few frames; anything else is shown at once. */
  countUp(id, target) {
    const node = this.$(id);
    const from = Number(node.dataset.value);
    node.dataset.value = String(target);
    if (!Number.isFinite(target)) {
      node.textContent = "–";
      return;
    }
    if (!Number.isFinite(from) || from >= target || REDUCED_MOTION.matches) {
      node.textContent = formatCount(target);
      return;
    }
    const start = performance.now();
    const step = (now) => {
      if (node.dataset.value !== String(target)) return;
      const t = Math.min(1, (now - start) / COUNT_UP_MS);
      node.textContent = formatCount(Math.round(from + (target - from) * t));
      if (t < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  /** The candidate list of `info`, the search behind the move that makes ply `movePly`, with each move's exact score
   * beside its bound once every move has been scored. */
  drawRootMoves(info, movePly) {
    const host = this.$("p-root-moves");
    const searched = (info?.root_moves ?? []).slice();
    const scored = info?.final ? this.everyMove.get(movePly) : null;
    const exactOf = new Map(scored?.status === "done" ? scored.moves.map((m) => [m.move, m]) : []);
    // Once scored, each row is drawn from its exact score; `claim` keeps what the search itself proved.
    const rows = searched.map((rm) => (exactOf.has(rm.move)
      ? { ...rm, score: exactOf.get(rm.move).score, score_text: exactOf.get(rm.move).score_text, bound: "exact",
        claim: rm }
      : rm));
    this.drawEveryMove(info, rows, scored);
    this.drawStepsLink(info, movePly);
    if (rows.length === 0) {
      host.innerHTML = '<span class="muted">–</span>';
      return;
    }
    const useVisits = info.algorithm === "mcts" || info.source === "book";
    // Best first; among equal scores the search's best, then exact scores before bounds (a refuted move's "≤ x"
    // often equals the best's x, and must not push the best out of the rows shown).
    const rank = (rm) => (rm.move === info.best ? 0 : rm.bound === "exact" ? 1 : 2);
    rows.sort((a, b) => (useVisits ? (b.visits ?? 0) - (a.visits ?? 0)
      : ((b.score ?? -Infinity) - (a.score ?? -Infinity)) || rank(a) - rank(b)));
    const solved = SOLVED.has(info.source);
    const shown = solved ? rows : rows.slice(0, 8);
    const widths = barWidths(shown, useVisits);
    // A table's or the solver's move already shows each move's exact value: no truth column beside it.
    const truth = solved ? null : info.truth ?? null;
    host.classList.toggle("with-truth", Boolean(truth));
    this.$("p-truth-note").hidden = !truth;
    const existing = new Map([...host.querySelectorAll(".rm-row")].map((row) => [row.dataset.move, row]));
    const ordered = shown.map((rm, i) => {
      let row = existing.get(rm.move);
      if (!row) {
        row = document.createElement("div");
        row.className = "rm-row";
        row.dataset.move = rm.move;
        row.innerHTML = '<span class="rm-move"></span><span class="rm-bar"><i></i></span><span class="rm-score"></span>'
          + '<span class="rm-truth"></span>';
      }
      const exact = truth?.[rm.move];
      const searchedRow = rm.claim ?? rm;
      const claim = `${BOUND_MARK[searchedRow.bound] ?? ""}${searchedRow.score_text ?? ""}`;
      const mark = exact && !solved ? truthMark(exact, claim, info.depth) : null; // judges the search's own claim
      const truthCell = row.querySelector(".rm-truth");
      truthCell.hidden = !truth;
      truthCell.textContent = mark ? mark.text : (exact?.text ?? "");
      truthCell.title = mark ? mark.title : (exact ? `The exact value of this move: ${exact.text}.` : "");
      for (const verdict of ["consistent", "undecided", "horizon"]) {
        row.classList.toggle(verdict, (mark?.verdict === "error" ? "horizon" : mark?.verdict) === verdict);
      }
      row.querySelector(".rm-move").textContent = rm.text ?? rm.move;
      // An exact score is a point on the scale; a bound a one-sided range, dashed from its score: leftwards for ≤,
      // rightwards for ≥. Counts (MCTS visits, book lines) stay bars.
      const bar = row.querySelector(".rm-bar i");
      const bound = !useVisits && (rm.bound === "upper" || rm.bound === "lower") ? rm.bound : null;
      row.classList.toggle("upper", bound === "upper");
      row.classList.toggle("lower", bound === "lower");
      row.classList.toggle("point", !useVisits && !bound && Number.isFinite(rm.score));
      bar.style.marginLeft = bound === "lower" ? `${widths[i].toFixed(1)}%` : "0";
      bar.style.width = `${(bound === "lower" ? 100 - widths[i] : widths[i]).toFixed(1)}%`;
      const scoreCell = row.querySelector(".rm-score");
      scoreCell.textContent = info.source === "book"
        ? `${formatCount(rm.visits ?? 0)} lines`
        : useVisits ? `${formatCount(rm.visits ?? 0)} · ${Number.isFinite(rm.value) ? rm.value.toFixed(2) : "…"}`
        : `${BOUND_MARK[rm.bound] ?? ""}${solved && rm.score === 0 ? "draw" : (rm.score_text ?? "…")}`;
      if (rm.claim && rm.claim.bound !== "exact") {
        const was = document.createElement("small");
        was.className = "rm-claim";
        was.textContent = `search ${claim}`;
        scoreCell.append(was);
      }
      row.classList.toggle("best", rm.move === info.best);
      row.classList.toggle("pos", !useVisits && rm.move !== info.best && provesResult(rm) && rm.score > 0);
      row.classList.toggle("neg", !useVisits && rm.move !== info.best && provesResult(rm) && rm.score < 0);
      row.title = info.source === "book" ? `${rm.text ?? rm.move}: ${formatCount(rm.visits ?? 0)} lines of the book`
        : `${rm.text ?? rm.move}: ${formatCount(rm.nodes)} nodes${BOUND_TITLE[rm.bound] ?? ""}`;
      return row;
    });
    host.replaceChildren(...ordered);
    this.$("p-bound-note").hidden = useVisits
      || !shown.some((rm) => (rm.claim ?? rm).bound === "upper" || (rm.claim ?? rm).bound === "lower");
    if (rows.length > shown.length) {
      const more = document.createElement("div");
      more.className = "hint";
      more.textContent = `and ${rows.length - shown.length} more`;
      host.append(more);
    }
  }
}
