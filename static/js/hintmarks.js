// Hints as boards draw them (docs/protocol.md, `hints`): a short label and a kind for each move's value, so a board
// can write "W7" over a column in the colour-blind-safe colour of its kind. The label's letter or sign says the
// kind too: colour is never the only mark.

/** {label, kind, title} of one move's hint: kind "win" | "draw" | "loss" for exact values, "better" | "even" |
 * "worse" for searched ones (against zero, the side to move's point of view). */
export function hintMark(hint, how) {
  const value = hint.value ?? "";
  if (how === "exact") {
    const moves = value.match(/\d+/)?.[0] ?? "";
    if (value.startsWith("win")) return { label: `W${moves}`, kind: "win", title: value };
    if (value.startsWith("loss")) return { label: `L${moves}`, kind: "loss", title: value };
    return { label: "D", kind: "draw", title: "draw" };
  }
  const kind = hint.score > 0 ? "better" : hint.score < 0 ? "worse" : "even";
  return { label: value, kind, title: `${value} (search)` };
}

/** The legend of the labels, for the text under the board. */
export function hintLegend(how) {
  return how === "exact"
    ? "W7: wins in 7 moves of the side to move, L3: loses in 3, D: draw (exact, with perfect play from both sides)."
    : "Search scores for the side to move: above 0 better, below 0 worse.";
}

/** The list items of every move's hint in `hints` ({how, moves}), best first: "Nf3 W7", titled with the value in
 * words, classed by its kind. */
export function hintItems(hints) {
  const entries = Object.entries(hints.moves).sort(([, a], [, b]) => (b.score ?? 0) - (a.score ?? 0));
  return entries.map(([, hint]) => {
    const mark = hintMark(hint, hints.how);
    const item = document.createElement("li");
    item.className = mark.kind;
    item.textContent = `${hint.shown} ${mark.label}`;
    item.title = `${hint.shown}: ${mark.title}`;
    return item;
  });
}
