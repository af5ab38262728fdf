// Tic-tac-toe board: 3x3 cells numbered 1-9 from the top left; the move text is the cell number.
// Interface: see README.md in this folder.
import { hintMark } from "../hintmarks.js";
import { drawGridCells, hasGridFocus } from "./grid.js";
import { el, rootSvg } from "./svg.js";

const SIZE = 300;
const CELL = 100;

function cellOrigin(index, flipped) {
  const shown = flipped ? 8 - index : index;
  return [(shown % 3) * CELL, Math.floor(shown / 3) * CELL];
}

function drawMark(mark, x, y, fresh) {
  const cls = fresh ? "piece-in" : null;
  if (mark === "X") {
    return el("path", { class: `ttt-x ${cls ?? ""}`, d: `M${x + 27} ${y + 27}L${x + 73} ${y + 73}M${x + 73} ${y + 27}L${x + 27} ${y + 73}` });
  }
  return el("circle", { class: `ttt-o ${cls ?? ""}`, cx: x + 50, cy: y + 50, r: 25 });
}

export function createBoard(container, { onMove }) {
  const svg = rootSvg(SIZE, SIZE, "Tic-tac-toe board");
  container.append(svg);
  let previous = null;
  const active = {}; // the grid's active cell, kept between redraws

  function render(view, { interactive = false, flipped = false, hint = null, hints = null } = {}) {
    const refocus = hasGridFocus(svg);
    svg.replaceChildren();
    const legal = new Set(interactive ? view.legal : []);
    const last = view.last ?? null;
    for (let index = 0; index < 9; index += 1) {
      const [x, y] = cellOrigin(index, flipped);
      if (last === index + 1) svg.append(el("rect", { class: "ttt-last", x: x + 6, y: y + 6, width: 88, height: 88, rx: 10 }));
    }
    svg.append(el("path", { class: "ttt-grid", d: "M100 12V288M200 12V288M12 100H288M12 200H288" }));
    view.cells.forEach((mark, index) => {
      const [x, y] = cellOrigin(index, flipped);
      const text = String(index + 1);
      svg.append(el("text", { class: "ttt-number", x: x + 12, y: y + 24 }, [document.createTextNode(text)]));
      if (mark) {
        svg.append(drawMark(mark, x, y, previous !== null && !previous[index]));
        return;
      }
      if (hint === text) svg.append(el("g", { class: "ttt-hint-move" }, [drawMark(view.to_move === 0 ? "X" : "O", x, y, false)]));
      svg.append(el("rect", { class: `ttt-cell${legal.has(text) ? " legal" : ""}`, x: x + 4, y: y + 4, width: 92, height: 92, rx: 10 }));
      const given = hints?.moves[text];
      if (given) { // in the cell itself
        const mark = hintMark(given, hints.how);
        svg.append(el("rect", { class: `hint-chip ${mark.kind}`, x: x + 22, y: y + 36, width: 56, height: 30, rx: 7 }, [
          el("title", {}, [document.createTextNode(`Cell ${text}: ${mark.title}`)])]));
        svg.append(el("text", { class: "hint-label", x: x + 50, y: y + 58, "text-anchor": "middle" }, [document.createTextNode(mark.label)]));
      } else if (legal.has(text)) {
        svg.append(el("circle", { class: "ttt-hint", cx: x + 50, cy: y + 50, r: 6, "pointer-events": "none" }));
      }
    });
    if (view.winning_line) {
      const [a, , c] = view.winning_line.map((cell) => cellOrigin(cell - 1, flipped));
      svg.append(el("line", { class: "win-line piece-in", x1: a[0] + 50, y1: a[1] + 50, x2: c[0] + 50, y2: c[1] + 50 }));
    }
    const rows = [0, 1, 2].map((row) => [0, 1, 2].map((col) => {
      const index = flipped ? 8 - (3 * row + col) : 3 * row + col;
      const text = String(index + 1);
      const [x, y] = cellOrigin(index, flipped);
      const given = hints?.moves[text];
      const value = given ? `, ${hintMark(given, hints.how).title}` : "";
      return {
        x: x + 4, y: y + 4, width: 92, height: 92, name: `Cell ${text}: ${view.cells[index] || "empty"}${value}`,
        action: legal.has(text) ? () => onMove(text) : null, attrs: { "data-cell": text },
      };
    }));
    const corner = flipped ? "bottom right" : "top left";
    drawGridCells(svg, rows, active, { label: `Tic-tac-toe board, cells 1 to 9 from the ${corner}`, refocus });
    previous = view.cells.slice();
  }

  return {
    render,
    destroy() {
      svg.remove();
    },
  };
}
