// The 8x8 grid shared by the chess and Wolves & Rabbit boards: square geometry and the checkered, labelled board.
import { el } from "./svg.js";

export const SQ = 50;
export const SIZE = 8 * SQ;
export const FILES = "abcdefgh";

/** Top-left corner [x, y] of `square` ("e4"); rank 8 is at the top unless `flipped`. */
export function squareXY(square, flipped) {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square[1]) - 1;
  return flipped ? [(7 - file) * SQ, rank * SQ] : [file * SQ, (7 - rank) * SQ];
}

/**
 * The 64 squares as cells of a grid (`grid.js`), rows in the order drawn (rank 8 first unless `flipped`), each with
 * its `data-square` and what `describe(square)` gives: `{name, action}`.
 */
export function squareCells(flipped, describe) {
  return Array.from({ length: 8 }, (_, row) => Array.from({ length: 8 }, (_, col) => {
    const square = `${FILES[flipped ? 7 - col : col]}${flipped ? row + 1 : 8 - row}`;
    const [x, y] = squareXY(square, flipped);
    return { x, y, width: SQ, height: SQ, ...describe(square), attrs: { "data-square": square } };
  }));
}

/** The rows' names of an 8x8 grid, as drawn: "Rank 8" first unless `flipped`. */
export function rankNames(flipped) {
  return Array.from({ length: 8 }, (_, row) => `Rank ${flipped ? row + 1 : 8 - row}`);
}

/** Draws the 64 squares (a1 dark) in `lightFill` / `darkFill` and the file and rank labels into `svg`. */
export function drawGrid(svg, flipped, lightFill, darkFill) {
  for (let file = 0; file < 8; file += 1) {
    for (let rank = 0; rank < 8; rank += 1) {
      const [x, y] = squareXY(`${FILES[file]}${rank + 1}`, flipped);
      const light = (file + rank) % 2 === 1;
      svg.append(el("rect", { x, y, width: SQ, height: SQ, style: `fill: ${light ? lightFill : darkFill}` }));
    }
  }
  const style = "font: 600 9px sans-serif; fill: rgba(0,0,0,0.55); pointer-events: none";
  for (let i = 0; i < 8; i += 1) {
    const fileLabel = flipped ? FILES[7 - i] : FILES[i];
    const rankLabel = flipped ? i + 1 : 8 - i;
    svg.append(el("text", { x: i * SQ + SQ - 7, y: SIZE - 3, style }, [document.createTextNode(fileLabel)]));
    svg.append(el("text", { x: 2, y: i * SQ + 10, style }, [document.createTextNode(String(rankLabel))]));
  }
}

/**
 * Draws hints as arrows from square to square with the value's label at the target (`../hintmarks.js`), the best
 * `limit` moves by score (all when null). `squares(move)` gives a move's [from, to]. Labels of moves to the same
 * square stack upwards.
 */
export function drawHintArrows(svg, hints, flipped, squares, hintMark, limit = null) {
  const entries = Object.entries(hints.moves).sort(([, a], [, b]) => (b.score ?? 0) - (a.score ?? 0));
  const shown = limit === null ? entries : entries.slice(0, limit);
  const stacked = new Map();
  for (const [move, hint] of shown) {
    const [from, to] = squares(move);
    const mark = hintMark(hint, hints.how);
    const [x1, y1] = squareXY(from, flipped);
    const [x2, y2] = squareXY(to, flipped);
    svg.append(el("line", {
      class: `hint-arrow ${mark.kind}`, x1: x1 + SQ / 2, y1: y1 + SQ / 2, x2: x2 + SQ / 2, y2: y2 + SQ / 2,
    }));
    const level = stacked.get(to) ?? 0;
    stacked.set(to, level + 1);
    const width = Math.max(30, mark.label.length * 9 + 8);
    const top = y2 + SQ - 21 - level * 20;
    svg.append(el("rect", { class: `hint-chip ${mark.kind}`, x: x2 + SQ / 2 - width / 2, y: top, width, height: 19, rx: 4 },
      [el("title", {}, [document.createTextNode(`${hint.shown}: ${mark.title}`)])]));
    svg.append(el("text", { class: "hint-label small", x: x2 + SQ / 2, y: top + 14, "text-anchor": "middle" },
      [document.createTextNode(mark.label)]));
  }
}
