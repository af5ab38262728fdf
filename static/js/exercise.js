// An exercise on the analysis board (?exercise=<move played>&better=<the review's better move>&within=<plies>
// &value=<the review's value>&train=<game>:<ply>, the last for an exercise of the training queue, which hears its
// first answer): the position before a mistake of a reviewed game, "find a better move". The answer is judged by
// the position's exact values where they are known (any move that keeps the best result is right, with `within`
// only one at most that many plies from the quickest; its distance shown), else by the server as the review would
// judge it (`exercise_check`: a search after the answer, right when graded "best" or "good"), else by the review's
// choice. Until the answer is right or shown, the exact values and the engine stay hidden.

/** The result a value stands for: "win", "draw" or "loss" (its score's sign, or its text's first word). */
function resultOf(value) {
  if (value.score !== null && value.score !== undefined) return value.score > 0 ? "win" : value.score < 0 ? "loss" : "draw";
  return value.value.split(" ")[0];
}

const ORDER = { loss: 0, draw: 1, win: 2 };

/** Plies `value` is from `best` (both of the same result): how much slower a win or sooner a loss; 0 when a
 * distance is unknown. */
function pliesFrom(value, best) {
  return value.score === null || best.score === null ? 0 : best.score - value.score;
}

/** Judges `answer` (a move text) in a position whose exact values are `moves` (`analysis_truth.moves`, or null
 * where unknown): `{right, text}` where `text` says why, with the values by the names players read (`shown`).
 * `task` is the exercise's `{played, better, within}`: the game's move, the review's better move (or null) and the
 * plies an answer may be from the quickest (null: any move keeping the best result). Without exact values only
 * the review's better move is known right (`right` null when nothing is known). */
export function judgeAnswer(answer, shown, moves, task) {
  if (answer === task.played) return { right: false, text: `${shown} is the move played in the game. Try another.` };
  if (moves && moves[answer]) {
    const values = Object.values(moves);
    const best = values.reduce((top, value) => (ORDER[resultOf(value)] > ORDER[resultOf(top)]
      || (resultOf(value) === resultOf(top) && pliesFrom(value, top) < 0) ? value : top));
    const mine = moves[answer];
    if (resultOf(mine) !== resultOf(best)) {
      return { right: false, text: `Not this: after ${shown} it is ${mine.value}, where ${best.value} was there. Try again.` };
    }
    if (task.within !== null && pliesFrom(mine, best) > task.within) {
      return { right: false, text: `Not quick enough: after ${shown} it is ${mine.value}, where ${best.value} was there. Try again.` };
    }
    const distance = mine.value === best.value ? "" : ` (the quickest: ${best.value})`;
    return { right: true, text: `Right: ${shown} keeps the best result, ${mine.value}${distance}.` };
  }
  if (task.better) {
    return answer === task.better
      ? { right: true, text: `Right: ${shown} is the move the review's search preferred.` }
      : { right: false, text: `Not the review's choice: ${shown}. Try again, or show the answer.` };
  }
  return { right: null, text: "This position's values are not known here." };
}

/** What the server's verdict on an answer (`exercise_verdict`) says, for the answer `shown`. */
export function describeCheck(payload, shown) {
  if (payload.right === null) return `The answer could not be checked (${payload.message}). Try again.`;
  const { verdict } = payload;
  if (verdict.verdict === "best") return `Right: ${shown} is the move the review's search preferred.`;
  const chances = `your win chance is ${verdict.win_after} %, where ${verdict.win_before} % was there`;
  return payload.right
    ? `Right: after ${shown} ${chances} (${payload.searched}).`
    : `Not this: after ${shown} ${chances}, a ${verdict.verdict} (${payload.searched}). Try again.`;
}

export class Exercise {
  /** `root`: the node of the position; `task`: `{played, better, within, value}` as in the URL (null where
   * absent); `say(text)` shows a result; `report(right)`, when given, hears the first answer judged (a training
   * queue's exercise); `check(move)`, when given, asks the server to judge `move` where no exact value is known and
   * the review's `value` is (its verdict comes to `checked`). */
  constructor(root, task, say, report = null, check = null) {
    this.root = root;
    this.task = task;
    this.say = say;
    this.report = report;
    this.check = check;
    this.done = false; // answered right, or the answer shown: values and engine may show
    this.pending = null; // an answer waiting for the position's exact values
    this.checking = null; // an answer the server is judging
  }

  /** Whether the node `node` must keep its exact values and the engine hidden. */
  hides(node) {
    return !this.done && (node === this.root || node.parent === this.root);
  }

  /** Whether an answer played from `node` must wait for its exact values, `truth` (the node's `analysis_truth`,
   * undefined until it has come): the exercise's position, not yet answered, its values not yet known. */
  awaitsTruth(node, truth) {
    return node === this.root && !this.done && truth === undefined;
  }

  /** The person played `move` (shown as `shown`) from `node`; `truth` is the root's `analysis_truth` or undefined
   * while it is being worked out. */
  answer(node, move, shown, truth) {
    if (node !== this.root || this.done) return;
    this.pending = { move, shown };
    this.checking = null;
    this.judge(truth);
  }

  /** Judges the waiting answer once the root's exact values (or the news that there are none) have come. */
  judge(truth) {
    if (!this.pending) return;
    if (truth === undefined) {
      this.say("Checking the answer…");
      return;
    }
    const { move, shown } = this.pending;
    this.pending = null;
    const moves = truth.how === "exact" ? truth.moves : null;
    if (!moves && move !== this.task.played && this.task.value !== null && this.check) {
      this.checking = { move, shown };
      this.check(move);
      this.say(`The engine is checking ${shown} as the review would…`);
      return;
    }
    this.settle(judgeAnswer(move, shown, moves, this.task));
  }

  /** The server's verdict (`exercise_verdict`) on an answer; one no longer waited for is dropped. */
  checked(payload) {
    if (!this.checking || payload.answer !== this.checking.move) return;
    const { shown } = this.checking;
    this.checking = null;
    this.settle({ right: payload.right, text: describeCheck(payload, shown) });
  }

  /** An answer's `{right, text}` is known: say it, and report the first one judged (right or wrong). */
  settle(verdict) {
    this.done = verdict.right === true;
    if (this.report && verdict.right !== null) {
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
    this.checking = null;
  }
}
