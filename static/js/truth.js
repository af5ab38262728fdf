// The truth beside the search: a move's exact value (the `truth` of a final search event, docs/protocol.md) and
// whether the search's verdict on it disagrees.
import { isDecided } from "./format.js";

/** What a searched score proves: "win" (a decided win, exact or a lower bound), "loss" (a decided loss, exact or
 * an upper bound), else "open" (a heuristic value, or a bound that leaves the result open). */
function provenResult(score, bound) {
  if (isDecided(score) && score > 0 && bound !== "upper") return "win";
  if (isDecided(score) && score < 0 && bound !== "lower") return "loss";
  return "open";
}

/**
 * Whether a candidate's search verdict disagrees with its exact value `truth`: the search proved another result,
 * or proved none (a heuristic score, "it holds") where the move in truth wins or loses: a horizon error. Returns
 * the reason in words, or null (also without a truth or a score, as for MCTS).
 */
export function horizonError(rm, truth, depth) {
  if (!truth || rm.score === null || rm.score === undefined) return null;
  const searched = provenResult(rm.score, rm.bound);
  if (searched === "open" ? truth.result === "draw" : searched === truth.result) return null;
  const saw = searched === "open" ? "proved no result" : `proved a ${searched}`;
  const really = truth.result === "draw" ? "a draw" : truth.text;
  return `At depth ${depth} the search ${saw}, but in truth this move is ${really}: a horizon error.`;
}
