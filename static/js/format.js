// Number and score formatting shared by the panel, the move list and the home page.

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A count with thousands separators ("1,234,567"); "–" for a missing value. */
export function formatCount(value) {
  return Number.isFinite(value) ? integer.format(value) : "–";
}

/** A large count in short form ("812", "45.3k", "1.2M"), for tight spots such as chart labels. */
export function formatShort(value) {
  if (!Number.isFinite(value)) return "–";
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${oneDecimal.format(value / 1e9)}G`;
  if (abs >= 1e6) return `${oneDecimal.format(value / 1e6)}M`;
  if (abs >= 1e4) return `${oneDecimal.format(value / 1e3)}k`;
  return integer.format(value);
}

/** A share as a percentage with one decimal ("37.5%"); "–" when the whole is zero. */
export function formatPercent(part, whole) {
  if (!Number.isFinite(part) || !Number.isFinite(whole) || whole <= 0) return "–";
  return `${oneDecimal.format((100 * part) / whole)}%`;
}

/** Milliseconds as "850 ms" or "2.4 s". */
export function formatMillis(ms) {
  if (!Number.isFinite(ms)) return "–";
  return ms < 1000 ? `${integer.format(ms)} ms` : `${oneDecimal.format(ms / 1000)} s`;
}

/**
 * A score said for seat `saidFor` (the engine says each score for the side to move), said for `seat` instead: the
 * other seat's score is its negation (engine/pov_score.py's `PovScore` on the server).
 */
export function scoreFor(seat, score, saidFor) {
  return seat === saidFor ? score : -score;
}

/** The score scale of engine/game.py, as the page's body gives it (webapp/display.py): a win on the spot scores
 * WIN, a win in n plies WIN - n; a score beyond WIN - MAX_PLIES in size is a decided result. */
export const WIN = Number(document.body.dataset.scoreWin);
const MAX_PLIES = Number(document.body.dataset.scoreMaxPlies);

/** True for a proven win or loss score. */
export function isDecided(score) {
  return Number.isFinite(score) && Math.abs(score) > WIN - MAX_PLIES;
}

/** The class of a score text for colouring: "win", "loss" or "". */
export function scoreClass(text) {
  if (typeof text !== "string") return "";
  if (text.startsWith("win")) return "win";
  if (text.startsWith("loss")) return "loss";
  return "";
}

/** Escapes text for use inside HTML or SVG markup. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
