// The truth beside the search: a move's exact value (an entry of the `truth` of a final search event,
// docs/protocol.md) and its `verdict` on the search's score (engine/truth.py, `judge`).

const MARKS = { consistent: "✓ ", undecided: "? ", error: "⚠ " };

/**
 * How to show `exact` (a truth entry) beside the search's claim `claimText` ("≤ −2", "win in 2") at `depth`:
 * `{text, title, verdict}`, `text` marked ✓ (the exact value lies within what the search proved), ? (not decided at
 * this depth: the search left the move to its evaluation) or ⚠ (a horizon error: the search proved a result the
 * truth refutes); unmarked without a verdict (a move without a score).
 */
export function truthMark(exact, claimText, depth) {
  const verdict = exact.verdict ?? null;
  const claim = claimText ? `the search's ${claimText}` : "the search's score";
  const titles = {
    consistent: `The exact value, ${exact.text}, lies within what the search proved (${claimText}).`,
    undecided: `Not decided at depth ${depth}: ${claim} is its evaluation, which proves no result; the exact value is `
      + `${exact.text}.`,
    error: `A horizon error: at depth ${depth} the search proved ${claimText}, but in truth this move is `
      + `${exact.text}.`,
  };
  return {
    verdict,
    text: `${MARKS[verdict] ?? ""}${exact.text}`,
    title: titles[verdict] ?? `The exact value of this move: ${exact.text}.`,
  };
}
