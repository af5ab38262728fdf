// An exercise on the analysis board (?exercise=<move played>&better=<the review's better move>&train=<game>:<ply>,
// the last for an exercise of the training queue, which hears its first answer): the position
// before a mistake of a reviewed game, "find a better move". The answer is judged by the position's exact values
// where they are known (any move that keeps the best result is right, its distance shown), else by the review's
// search (its choice is right). Until the answer is right or shown, the exact values and the engine stay hidden.

/** The result a value stands for: "win", "draw" or "loss" (its score's sign, or its text's first word). */
function resultOf(value) {
  if (value.score !== null && value.score !== undefined) return value.score > 0 ? "win" : value.score < 0 ? "loss" : "draw";
  return value.value.split(" ")[0];
}

const ORDER = { loss: 0, draw: 1, win: 2 };

/** Judges `answer` (a move text) in a position whose exact values are `moves` (`analysis_truth.moves`, or null
 * where unknown), the game's move being `played` and the review's better move `better` (or null): `{right, text}`
 * where `text` says why, with the values by the names players read (`shown`). */
export function judgeAnswer(answer, shown, moves, played, better) {
  if (answer === played) return { right: false, text: `${shown} is the move played in the game. Try another.` };
  if (moves && moves[answer]) {
    const values = Object.values(moves);
    const best = values.reduce((top, value) => (ORDER[resultOf(value)] > ORDER[resultOf(top)] ? value : top));
    const mine = moves[answer];
    if (resultOf(mine) === resultOf(best)) {
      const distance = mine.value === best.value ? "" : ` (the quickest: ${best.value})`;
      return { right: true, text: `Right: ${shown} keeps the best result, ${mine.value}${distance}.` };
    }
    return { right: false, text: `Not this: after ${shown} it is ${mine.value}, where ${best.value} was there. Try again.` };
  }
  if (better) {
    return answer === better
      ? { right: true, text: `Right: ${shown} is the move the review's search preferred.` }
      : { right: false, text: `Not the review's choice: ${shown}. Try again, or show the answer.` };
  }
  return { right: false, text: "This position's values are not known here." };
}

export class Exercise {
  /** `root`: the node of the position; `played` and `better` as in the URL; `say(text)` shows a result;
   * `report(right)`, when given, hears the first answer judged (a training queue's exercise). */
  constructor(root, played, better, say, report = null) {
    this.root = root;
    this.played = played;
    this.better = better;
    this.say = say;
    this.report = report;
    this.done = false; // answered right, or the answer shown: values and engine may show
    this.pending = null; // an answer waiting for the position's exact values
  }

  /** Whether the node `node` must keep its exact values and the engine hidden. */
  hides(node) {
    return !this.done && (node === this.root || node.parent === this.root);
  }

  /** The person played `move` (shown as `shown`) from `node`; `truth` is the root's `analysis_truth` or undefined
   * while it is being worked out. */
  answer(node, move, shown, truth) {
    if (node !== this.root || this.done) return;
    this.pending = { move, shown };
    this.judge(truth);
  }

  /** Judges the waiting answer once the root's exact values (or the news that there are none) have come. */
  judge(truth) {
    if (!this.pending) return;
    if (truth === undefined) {
      this.say("Checking the answer…");
      return;
    }
    const moves = truth.how === "exact" ? truth.moves : null;
    const verdict = judgeAnswer(this.pending.move, this.pending.shown, moves, this.played, this.better);
    this.pending = null;
    this.done = verdict.right;
    if (this.report) {
      this.report(verdict.right);
      this.report = null;
    }
    this.say(verdict.text);
  }

  /** Shows the answer: the values and the engine are no longer hidden. */
  reveal() {
    if (this.report) {
      this.report(false); // shown before it was solved: it comes back as failed
      this.report = null;
    }
    this.done = true;
    this.pending = null;
  }
}
