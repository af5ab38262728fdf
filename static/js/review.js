// The review card of a finished game: ask for the review, follow its progress, then show each side's verdicts, the
// value of every position on a chart with the errors marked, and, for each error, the better move.
import { analysePosition, cancelReview, getReview, startReview } from "./api.js";
import { drawEvaluation } from "./charts.js";
import { escapeHtml, scoreFor } from "./format.js";
import { moveLabels } from "./movelist.js";
import { showToast } from "./toast.js";

/** Verdicts worth a mark: kind (shape and colour class), symbol (text mark, never colour alone), in words. */
const ERRORS = {
  "threw away a win": { kind: "major", symbol: "??", plural: "times threw away a win" },
  "threw away a draw": { kind: "major", symbol: "??", plural: "times threw away a draw" },
  blunder: { kind: "major", symbol: "??", plural: "blunders" },
  mistake: { kind: "middle", symbol: "?", plural: "mistakes" },
  inaccuracy: { kind: "minor", symbol: "?!", plural: "inaccuracies" },
};
/** How a move that kept its result but gave away much of its distance is marked (it makes an exercise). */
const SLOW = { kind: "minor", symbol: "?!" };

/** The move that makes ply `ply` as the move list numbers it: "5." for the first player's, "5…" for the second's;
 * `startPly` half-moves came before the game's first (a set-up position's move number). */
const moveNumber = (ply, startPly = 0) => `${Math.floor((startPly + ply - 1) / 2) + 1}${(startPly + ply) % 2 ? "." : "…"}`;
const EXACT = "the exact value of every move (solved table, endgame table, solver or theory)";

/** Where the verdicts come from, in move ranges when a game has both kinds: "From the exact value of every move
 * (…): 5., 6.–11…. From a search of 0.5 s (up to depth 64): 1.–4…, 5…." */
function aboutVerdicts(verdicts, settings, startPly) {
  if (verdicts.every((verdict) => verdict.exact)) return `Verdicts from ${EXACT}.`;
  if (!verdicts.some((verdict) => verdict.exact)) {
    return `Verdicts from ${settings.text} of every position; ${settings.grading}.`;
  }
  const runs = [];
  for (const verdict of verdicts) {
    const last = runs[runs.length - 1];
    if (last && last.exact === verdict.exact) last.to = verdict.ply;
    else runs.push({ exact: verdict.exact, from: verdict.ply, to: verdict.ply });
  }
  const ranges = (exact) => runs.filter((run) => run.exact === exact)
    .map((run) => (run.from === run.to ? moveNumber(run.from, startPly)
      : `${moveNumber(run.from, startPly)}–${moveNumber(run.to, startPly)}`))
    .join(", ");
  const capitalised = EXACT.charAt(0).toUpperCase() + EXACT.slice(1);
  return `${capitalised}: ${ranges(true)}. From ${settings.text}: ${ranges(false)}.`;
}

/** A move's values before and after it, with the mover's win chances where the review has them (chess):
 * "−2.98 → −8.87; win chance 25 % → 3.7 %". */
function values(verdict) {
  const change = `${verdict.before} → ${verdict.after}`;
  if (verdict.win_before === null || verdict.win_after === null) return change;
  return `${change}; win chance ${verdict.win_before} % → ${verdict.win_after} %`;
}

/** One player's figures (a review's `summaries` entry): "accuracy 85.8 % (win chance, 21 moves) · average loss 2.3
 * win-chance points", or "" when there are none. */
function describeSummary(summary, lossUnit) {
  const parts = [];
  if (summary.accuracy !== null) {
    const basis = summary.method === "win chance"
      ? `Lichess's formula on win chances, ${summary.counted} ${summary.counted === 1 ? "move" : "moves"}`
      : `kept the best result in ${summary.kept} of ${summary.counted} exactly judged ${summary.counted === 1 ? "move" : "moves"}`;
    parts.push(`accuracy ${summary.accuracy} % (${basis})`);
  }
  if (summary.plies_given) parts.push(`${summary.plies_given} ${summary.plies_given === 1 ? "ply" : "plies"} of distance given away`);
  if (summary.average_loss !== null) parts.push(`average loss ${summary.average_loss} ${lossUnit} (searched moves)`);
  return parts.join(" · ");
}

export class GameReview {
  /** `root` is the review card; `onSelect(ply)` shows the position after `ply` moves; `viewedPly()` is the ply of
   * the position the board shows; `analyseLink(ply)` the analysis board's link to the position after `ply` moves
   * (or null). */
  constructor(root, gameId, onSelect, viewedPly, analyseLink) {
    this.root = root;
    this.analyseLink = analyseLink;
    this.gameId = gameId;
    this.onSelect = onSelect;
    this.viewedPly = viewedPly;
    this.$ = (id) => root.querySelector(`#${id}`);
    this.state = null;
    this.review = null;
    this.loaded = false;
    this.$("review-start").addEventListener("click", () => this.start());
    this.$("review-cancel").addEventListener("click", () => this.cancel());
    this.$("analyse-position").addEventListener("click", () => this.analyse());
  }

  /** "What would the engine do here?" for the position on the board. */
  async analyse() {
    const ply = this.viewedPly();
    this.say(`Looking at the position after ${ply} ${ply === 1 ? "move" : "moves"}…`);
    try {
      await analysePosition(this.gameId, ply);
    } catch (error) {
      this.say(error.message);
    }
  }

  /** An `analysis` event: what the engine would play in an analysed position. */
  onAnalysis(answer) {
    if (answer.game_id !== this.gameId) return;
    if (answer.status !== "done") {
      this.say(`The analysis failed${answer.message ? `: ${answer.message}` : ""}.`);
      return;
    }
    const where = answer.ply === 0 ? "the start position" : `the position after ${answer.ply} ${answer.ply === 1 ? "move" : "moves"}`;
    const how = answer.how === "exact" ? "exact value" : answer.how;
    this.say(`In ${where} the engine would play ${answer.best_shown ?? "—"}: ${answer.value ?? "?"} (${how}).`);
  }

  say(text) {
    this.$("review-focus").hidden = false;
    this.$("review-focus").textContent = text;
  }

  /** A new game state: the card shows once the game is over (with the stored review, if there is one). */
  onState(state) {
    this.state = state;
    this.root.hidden = state.status !== "finished";
    if (this.root.hidden || this.loaded) return;
    this.loaded = true;
    getReview(this.gameId).then((review) => this.onReview(review)).catch((error) => showToast(error.message, true));
  }

  /** A `review` event or answer: progress, the finished review, or its end without one. */
  onReview(review) {
    if (review.game_id !== this.gameId) return;
    this.review = review;
    const running = review.status === "running";
    this.$("review-start").hidden = running || review.status === "done";
    this.$("review-cancel").hidden = !running || review.done === undefined;
    this.$("review-progress").hidden = !running;
    if (running && review.total) {
      this.$("review-progress").max = review.total;
      this.$("review-progress").value = review.done;
    }
    this.$("review-status").textContent = {
      none: "Ask the engine for a verdict on every move of both sides.",
      running: review.total ? `Looking at position ${review.done} of ${review.total}…` : "The review is running…",
      cancelled: "The review was cancelled; ask again to run it.",
      failed: `The review failed${review.message ? `: ${review.message}` : ""}; ask again to run it.`,
      done: "",
    }[review.status] ?? "";
    this.$("review-result").hidden = review.status !== "done";
    if (review.status === "done") this.draw();
  }

  async start() {
    try {
      this.onReview(await startReview(this.gameId));
    } catch (error) {
      showToast(error.message, true);
    }
  }

  async cancel() {
    try {
      this.onReview(await cancelReview(this.gameId));
    } catch (error) {
      showToast(error.message, true);
    }
  }

  /** Redraw the finished review (after a resize too). */
  draw() {
    if (this.review?.status !== "done" || !this.state) return;
    const { verdicts, summaries, settings } = this.review;
    const exercises = new Map((this.review.exercises ?? []).map((exercise) => [exercise.ply, exercise]));
    const markOf = (verdict) => ERRORS[verdict.verdict] ?? SLOW;
    const names = this.state.players;
    const points = [];
    for (const verdict of verdicts) {
      if (verdict.after_score === null) continue;
      points.push({ ply: verdict.ply, score: scoreFor(0, verdict.after_score, verdict.by),
        score_text: `${names[verdict.by]}: ${verdict.after}` });
    }
    const errors = verdicts.filter((verdict) => ERRORS[verdict.verdict] || exercises.has(verdict.ply));
    const marks = errors.map((verdict) => ({
      ply: verdict.ply, ...markOf(verdict), label: this.describe(verdict), onSelect: () => this.focus(verdict),
    }));
    drawEvaluation(this.$("review-chart"), points, {
      plies: this.state.ply, names, axis: this.state.score_axis, marks, startPly: moveLabels(this.state).startPly ?? 0,
    });
    this.$("review-summary").innerHTML = [0, 1].map((seat) => {
      const mine = verdicts.filter((verdict) => verdict.by === seat);
      const counts = Object.keys(ERRORS).map((name) => [name, mine.filter((v) => v.verdict === name).length])
        .filter(([, count]) => count > 0).map(([name, count]) => `${count} ${count === 1 ? name : ERRORS[name].plural}`);
      const best = mine.filter((verdict) => verdict.verdict === "best").length;
      const figures = describeSummary(summaries[seat], settings.loss_unit);
      return `<b>${escapeHtml(names[seat])}</b>: ${best} best of ${mine.length}${counts.length ? `, ${escapeHtml(counts.join(", "))}` : ""}${figures ? ` · ${escapeHtml(figures)}` : ""}`;
    }).join("<br>");
    const list = this.$("review-list");
    list.replaceChildren(...errors.map((verdict) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = `review-error ${markOf(verdict).kind}`;
      const symbol = document.createElement("span");
      symbol.className = "symbol";
      symbol.setAttribute("aria-hidden", "true");
      symbol.textContent = markOf(verdict).symbol;
      button.append(symbol, this.describe(verdict));
      button.addEventListener("click", () => this.focus(verdict));
      item.append(button);
      const href = this.analyseLink(verdict.ply - 1);
      if (href) {
        const link = document.createElement("a");
        link.className = "btn small review-analyse";
        link.href = href;
        link.textContent = "Analyse";
        link.setAttribute("aria-label", `Analyse the position before ${moveNumber(verdict.ply, moveLabels(this.state).startPly ?? 0)} ${verdict.move_shown}`);
        item.append(link);
        if (exercises.has(verdict.ply)) item.append(this.practiseLink(href, verdict, exercises.get(verdict.ply)));
      }
      return item;
    }));
    if (errors.length === 0) list.innerHTML = '<li class="hint">No error on either side.</li>';
    this.$("review-about").textContent = aboutVerdicts(verdicts, settings, moveLabels(this.state).startPly ?? 0);
  }

  /** The exercise a mistake makes (`exercise`, a review's `exercises` entry): the analysis board at `href` (the
   * position before it), asked to find a better move than the one played. */
  practiseLink(href, verdict, exercise) {
    const url = new URL(href, window.location.origin);
    url.searchParams.set("exercise", exercise.played);
    for (const name of ["better", "within", "value"]) {
      if (exercise[name] !== null) url.searchParams.set(name, String(exercise[name]));
    }
    const link = document.createElement("a");
    link.className = "btn small review-practise";
    link.href = `${url.pathname}${url.search}`;
    link.textContent = "Practise";
    link.setAttribute("aria-label", `Practise: find a better move than ${moveNumber(verdict.ply, moveLabels(this.state).startPly ?? 0)} ${verdict.move_shown}`);
    return link;
  }

  /** "12… Nf6: blunder (+0.30 → loss in 1); better g6", with "· searched" for a searched verdict of a review that
   * also has exact ones. */
  describe(verdict) {
    const better = verdict.best_shown ? `; better ${verdict.best_shown}` : "";
    const mixed = this.review.verdicts.some((v) => v.exact) && !verdict.exact ? " · searched" : "";
    return `${moveNumber(verdict.ply, moveLabels(this.state).startPly ?? 0)} ${verdict.move_shown}: ${verdict.verdict} (${values(verdict)})${better}${mixed}`;
  }

  /** Go to the position where the error was made and say what was better there. */
  focus(verdict) {
    this.onSelect(verdict.ply - 1);
    this.say(`Position before ${moveNumber(verdict.ply, moveLabels(this.state).startPly ?? 0)} ${verdict.move_shown}: `
      + `${this.state.players[verdict.by]} played ${verdict.move_shown} (${verdict.verdict}, ${values(verdict)}). `
      + `Better here: ${verdict.best_shown ?? "—"}.`);
  }
}
