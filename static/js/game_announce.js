// What the game page says of a new move: its words for screen readers ("White played Qxf7#: captures,
// checkmate. White wins: checkmate") and its sound.
import { moveLabels } from "./movelist.js";

/** What a chess move in SAN does, in words: "captures, check" ("" for a quiet move). */
export function sanEffect(san) {
  const effects = [];
  if (san.startsWith("O-O")) effects.push(san.startsWith("O-O-O") ? "castles queenside" : "castles kingside");
  if (san.includes("x")) effects.push("captures");
  if (san.includes("=")) effects.push("promotes");
  if (san.endsWith("#")) effects.push("checkmate");
  else if (san.endsWith("+")) effects.push("check");
  return effects.join(", ");
}

/** The sound of the move `last` of `state` (`effect`: what a chess move did, in words): the end, a check, a
 * capture, the engine's move, or a move. */
function moveSound(state, last, effect) {
  if (state.result) return "end";
  if (/check/.test(effect)) return "check";
  if (/captures/.test(effect)) return "capture";
  return state.seats?.[last.by]?.kind === "engine" ? "engine" : "move";
}

/** The latest move of `state` as `{ text, sound }`: the words that tell it, with what it did and the result, and
 * its sound, or null before any move. */
export function lastMoveNews(state) {
  const last = state.history?.at(-1);
  if (!last) return null;
  const { labels } = moveLabels(state);
  const label = labels?.at(-1) ?? last.move;
  const effect = labels ? sanEffect(label) : "";
  const { winner = null, reason = "" } = state.result ?? {};
  const result = state.result
    ? ` ${winner === null ? "Draw" : `${state.players[winner]} wins`}${reason ? `: ${reason}` : ""}.` : "";
  return {
    text: `${state.players[last.by]} played ${label}${effect ? `: ${effect}` : ""}.${result}`,
    sound: moveSound(state, last, effect),
  };
}
