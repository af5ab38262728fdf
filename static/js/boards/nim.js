// Nim board: piles of counters side by side; click a counter to take it and every counter above it.
// The move text is "PILE:COUNT" with a 1-based pile. Interface: see README.md in this folder.
import { hintMark } from "../hintmarks.js";
import { TOUCH_SCREEN } from "../touch.js";
import { drawGridCells, hasGridFocus } from "./grid.js";
import { el, rootSvg } from "./svg.js";

const GAP = 14;
const TOP = 34;
const BOTTOM = 58;
const MIN_WIDTH = 380;
const POINTER = { pileWidth: 76, row: 30, cell: 0, maxRows: 12 };
const TOUCH = { pileWidth: 50, row: 50, cell: 50, maxRows: 11 };
// Sizes in board units (about a CSS pixel on a phone): on touch screens every counter's target (its whole cell of
// the pile) is `cell` wide and `row` tall, and piles grow upwards first: 44 px or more on a 390 x 844 screen for
// up to five piles of up to 11 counters (larger boards are scaled down to fit the screen).

export function createBoard(container, { onMove }) {
  let svg = null;
  const active = {}; // the grid's active cell, kept between redraws

  function layout(piles) {
    const sizes = TOUCH_SCREEN.matches ? TOUCH : POINTER;
    const largest = Math.max(1, ...piles);
    const perRow = Math.ceil(largest / sizes.maxRows);
    const rows = Math.ceil(largest / perRow);
    const pileWidth = Math.max(sizes.pileWidth, perRow * sizes.cell);
    const radius = Math.min(12, (pileWidth - 10) / perRow / 2 - 1, (sizes.row - 6) / 2);
    return { rows, perRow, radius, pileWidth, row: sizes.row };
  }

  function render(view, { interactive = false, flipped = false, hint = null, hints = null } = {}) {
    const refocus = hasGridFocus(svg);
    const piles = view.piles;
    const { rows, perRow, radius, pileWidth, row: rowHeight } = layout(piles);
    const contentWidth = piles.length * pileWidth + (piles.length + 1) * GAP;
    const width = Math.max(contentWidth, MIN_WIDTH);
    const offset = (width - contentWidth) / 2;
    const height = TOP + rows * rowHeight + BOTTOM;
    svg?.remove();
    svg = rootSvg(width, height, "Nim piles");
    container.append(svg);
    const legal = new Set(interactive ? view.legal : []);
    const [lastPile, lastCount] = view.last ? view.last.split(":").map(Number) : [null, 0];
    const order = piles.map((_, index) => index);
    if (flipped) order.reverse();
    const gridRows = []; // one row per pile, as drawn: its takes, 1 counter first
    const marks = []; // per row: what hovering or focusing each cell marks

    order.forEach((pileIndex, slot) => {
      const size = piles[pileIndex];
      const x0 = offset + GAP + slot * (pileWidth + GAP);
      const floor = TOP + rows * rowHeight;
      svg.append(el("rect", { class: "nim-pile-bg", x: x0, y: TOP - 8, width: pileWidth, height: rows * rowHeight + 16, rx: 12 }));
      const cellWidth = pileWidth / perRow;
      const spot = (k) => [x0 + (k % perRow + 0.5) * cellWidth, floor - rowHeight / 2 - Math.floor(k / perRow) * rowHeight];
      if (lastPile === pileIndex + 1) {
        for (let k = size; k < size + lastCount && k < rows * perRow; k += 1) {
          const [cx, cy] = spot(k);
          svg.append(el("circle", { class: "nim-counter gone", cx, cy, r: radius }));
        }
      }
      const counters = [];
      const cells = [];
      const cellMarks = [];
      for (let k = 0; k < size; k += 1) {
        const [cx, cy] = spot(k);
        const take = size - k;
        const move = `${pileIndex + 1}:${take}`;
        const counter = el("circle", { class: "nim-counter", cx, cy, r: radius });
        counters.push(counter);
        svg.append(counter);
        if (interactive && !legal.has(move)) counter.classList.add("out-of-reach");
        const [hintPile, hintCount] = hint ? hint.split(":").map(Number) : [0, 0];
        if (hintPile === pileIndex + 1 && take <= hintCount) counter.classList.add("hinted");
        const given = hints?.moves[move];
        if (given) { // on the counter whose click makes this take
          const mark = hintMark(given, hints.how);
          counter.classList.add("hint-counter", mark.kind);
          svg.append(el("text", { class: "hint-label nim-hint", x: cx, y: cy + 4, "text-anchor": "middle" },
            [document.createTextNode(mark.label.slice(0, 3))]));
        }
        if (legal.has(move)) counter.classList.add("legal");
        const value = given ? `; ${hintMark(given, hints.how).title}` : "";
        cells.unshift({ // the grid's row runs from taking 1 (the top counter) to taking the whole pile
          x: x0 + (k % perRow) * cellWidth, y: cy - rowHeight / 2, width: cellWidth, height: rowHeight,
          name: `Take ${take} from pile ${pileIndex + 1} of ${size}${value}`,
          action: legal.has(move) ? () => onMove(move) : null, attrs: { "data-move": move, rx: 6 },
        });
        cellMarks.unshift((on) => counters.slice(k).forEach((c) => c.classList.toggle("take", on && legal.has(move))));
      }
      if (!size) {
        cells.push({ x: x0, y: TOP - 8, width: pileWidth, height: rows * rowHeight + 16, name: `Pile ${pileIndex + 1}: empty`,
          action: null });
        cellMarks.push(() => {});
      }
      gridRows.push(cells);
      marks.push(cellMarks);
      svg.append(el("text", { class: "nim-count", x: x0 + pileWidth / 2, y: floor + 28, "text-anchor": "middle" }, [
        document.createTextNode(String(size)),
      ]));
      svg.append(el("text", { class: "nim-label", x: x0 + pileWidth / 2, y: TOP - 14, "text-anchor": "middle" }, [
        document.createTextNode(`Pile ${pileIndex + 1}`),
      ]));
    });
    const rules = [view.max_take ? `take 1 to ${view.max_take} from one pile` : "take any number from one pile",
      view.misere ? "last counter loses" : "last counter wins"].join(" · ");
    svg.append(el("text", { class: "nim-rule", x: width / 2, y: height - 8, "text-anchor": "middle" }, [
      document.createTextNode(rules),
    ]));
    const cells = drawGridCells(svg, gridRows, active, {
      label: `Nim piles, ${rules}`, rowNames: order.map((pile) => `Pile ${pile + 1}, ${piles[pile]} counters`), refocus,
      columns: true,
    });
    cells.forEach((row, r) => row.forEach((cell, c) => {
      cell.classList.add("nim-target");
      const mark = marks[r][c];
      cell.addEventListener("pointerenter", () => mark(true));
      cell.addEventListener("pointerleave", () => mark(false));
      cell.addEventListener("focus", () => mark(true));
      cell.addEventListener("blur", () => mark(false));
    }));
  }

  return {
    render,
    destroy() {
      svg?.remove();
    },
  };
}
