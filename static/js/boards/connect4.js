// Connect Four board: 7 columns by 6 rows, discs fall to the lowest free cell; click a column to drop a disc.
// The move text is the column number, "1" (left) to "7". Interface: see README.md in this folder.
import { hintMark } from "../hintmarks.js";
import { drawGridCells, hasGridFocus } from "./grid.js";
import { el, rootSvg } from "./svg.js";

const CELL = 60;
const PAD = 10;
const HEAD = 46;
/** Room under the frame for the column numbers. */
const FOOT = 24;

/** Seat (0 = Red, 1 = Yellow) of a cell value from the view, or null for an empty cell. */
function seatOf(value) {
  return value === 0 || value === 1 ? value : null;
}

/** [row, col] (row 0 at the top) of a cell given as {column, row} with column 1-7 and row 1 at the bottom. */
function cellIndex(cell, rows) {
  return cell ? [rows - cell.row, cell.column - 1] : null;
}

/** A column's discs from the bottom up, as a screen reader hears them: "red, yellow, 4 empty". */
function columnText(cells, col, names) {
  const parts = [];
  for (let row = cells.length - 1; row >= 0; row -= 1) {
    const seat = seatOf(cells[row][col]);
    if (seat === null) {
      parts.push(`${row + 1} empty`);
      break;
    }
    parts.push(names[seat]);
  }
  return parts.join(", ");
}

/** The discs' colours by seat, as the board names them. */
const COLOURS = ["red", "yellow"];

export function createBoard(container, { onMove }) {
  let svg = null;
  let previous = null;
  const active = {}; // the grid's active column, kept between redraws

  function render(view, { interactive = false, flipped = false, hint = null, hints = null } = {}) {
    const refocus = hasGridFocus(svg);
    const cells = view.cells;
    const rows = cells.length;
    const cols = cells[0].length;
    const width = cols * CELL + 2 * PAD;
    const height = HEAD + rows * CELL + 2 * PAD + FOOT;
    svg?.remove();
    svg = rootSvg(width, height, "Connect Four board");
    container.append(svg);
    const legal = new Set(interactive ? view.legal : []);
    const x = (col) => PAD + (flipped ? cols - 1 - col : col) * CELL + CELL / 2;
    const y = (row) => HEAD + PAD + row * CELL + CELL / 2;
    const winning = new Set((view.winning_cells ?? []).map((cell) => cellIndex(cell, rows).join(",")));
    const last = cellIndex(view.last, rows);
    const toMove = view.to_move ?? 0;

    svg.append(el("rect", { class: "c4-back", x: 4, y: HEAD + 4, width: width - 8, height: height - HEAD - FOOT - 8, rx: 12 }));
    for (let c = 0; c < cols; c += 1) { // the move notation: flipping moves the numbers with their columns
      svg.append(el("text", { class: "c4-number", x: x(c), y: height - 6, "text-anchor": "middle" },
        [document.createTextNode(String(c + 1))]));
    }
    const discs = el("g");
    cells.forEach((row, r) => row.forEach((value, c) => {
      const seat = seatOf(value);
      if (seat === null) return;
      const disc = el("circle", {
        class: `c4-disc p${seat}${winning.has(`${r},${c}`) ? " win" : ""}`, cx: x(c), cy: y(r), r: CELL * 0.4,
      });
      if (previous && seatOf(previous[r]?.[c]) === null) {
        disc.classList.add("c4-drop");
        disc.style.setProperty("--drop-from", `${-(y(r) - HEAD / 2)}px`);
      }
      discs.append(disc);
    }));
    svg.append(discs);

    const frame = el("path", { class: "c4-frame", "fill-rule": "evenodd", d: framePath(rows, cols, x, y) });
    svg.append(frame);
    if (last) {
      const fresh = previous && seatOf(previous[last[0]]?.[last[1]]) === null;
      svg.append(el("circle", { class: `c4-last${fresh ? " fresh" : ""}`, cx: x(last[1]), cy: y(last[0]), r: CELL * 0.16 }));
    }
    const line = winningLine((view.winning_cells ?? []).map((cell) => cellIndex(cell, rows)));
    if (line) {
      const [[r1, c1], [r2, c2]] = line;
      svg.append(el("line", { class: "win-line c4-win-line", x1: x(c1), y1: y(r1), x2: x(c2), y2: y(r2) }));
    }

    const ghosts = [];
    for (let c = 0; c < cols; c += 1) {
      const text = String(c + 1);
      const ghost = el("circle", { class: `c4-ghost c4-disc p${toMove}`, cx: x(c), cy: HEAD / 2, r: CELL * 0.36 });
      if (hint === text) ghost.classList.add("favourite");
      svg.append(ghost);
      ghosts.push(ghost);
      const given = hints?.moves[text];
      if (given) { // over its column, as gamesolver.org shows the value of each column
        const mark = hintMark(given, hints.how);
        svg.append(el("rect", { class: `hint-chip ${mark.kind}`, x: x(c) - 28, y: 2, width: 56, height: 29, rx: 6 }, [
          el("title", {}, [document.createTextNode(`Column ${text}: ${mark.title}`)])]));
        svg.append(el("text", { class: "hint-label", x: x(c), y: 23, "text-anchor": "middle" }, [document.createTextNode(mark.label)]));
      }
      if (legal.has(text)) {
        svg.append(el("path", { class: "c4-arrow", d: `M${x(c) - 6} ${HEAD - 14}h12l-6 8z`, "pointer-events": "none" }));
      }
    }
    // One row of seven columns, left to right as drawn (flipping moves the numbers with their columns).
    const order = Array.from({ length: cols }, (_, shown) => (flipped ? cols - 1 - shown : shown));
    const row = order.map((c) => {
      const text = String(c + 1);
      const given = hints?.moves[text];
      const value = given ? `; ${hintMark(given, hints.how).title}` : "";
      return {
        x: x(c) - CELL / 2, y: 0, width: CELL, height, name: `Column ${text}: ${columnText(cells, c, COLOURS)}${value}`,
        action: legal.has(text) ? () => onMove(text) : null, attrs: { "data-column": text, rx: 8 },
      };
    });
    const [targets] = drawGridCells(svg, [row], active, {
      label: `Connect Four board, columns 1 to ${cols} from the ${flipped ? "right" : "left"}, each read from the bottom up`,
      refocus,
      rowNames: ["Columns"],
    });
    targets.forEach((target, shown) => {
      const ghost = ghosts[order[shown]];
      if (!legal.has(String(order[shown] + 1))) return;
      target.classList.add("c4-col", "legal");
      target.addEventListener("pointerenter", () => ghost.classList.add("show"));
      target.addEventListener("pointerleave", () => ghost.classList.remove("show"));
      target.addEventListener("focus", () => ghost.classList.add("show"));
      target.addEventListener("blur", () => ghost.classList.remove("show"));
    });
    previous = cells.map((row) => row.slice());
  }

  return {
    render,
    destroy() {
      svg?.remove();
    },
  };
}

/** The two ends of the winning cells when they all lie on one straight line, else null (two crossing lines). */
function winningLine(cells) {
  if (cells.length < 4) return null;
  let ends = null;
  let longest = -1;
  for (const a of cells) {
    for (const b of cells) {
      const length = Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]));
      if (length > longest) [longest, ends] = [length, [a, b]];
    }
  }
  const [[r1, c1], [r2, c2]] = ends;
  const collinear = cells.every(([r, c]) => (r - r1) * (c2 - c1) === (c - c1) * (r2 - r1));
  return collinear ? ends : null;
}

/** The blue frame: a rounded rectangle with a hole at every cell (even-odd fill), so discs show through. */
function framePath(rows, cols, x, y) {
  const w = cols * CELL + 2 * PAD;
  const h = rows * CELL + 2 * PAD;
  const r = 14;
  const top = HEAD;
  let d = `M${r} ${top}H${w - r}Q${w} ${top} ${w} ${top + r}V${top + h - r}Q${w} ${top + h} ${w - r} ${top + h}`
    + `H${r}Q0 ${top + h} 0 ${top + h - r}V${top + r}Q0 ${top} ${r} ${top}Z`;
  const hole = CELL * 0.41;
  for (let row = 0; row < rows; row += 1) {
    for (let col = 0; col < cols; col += 1) {
      const cx = x(col);
      const cy = y(row);
      d += `M${cx - hole} ${cy}a${hole} ${hole} 0 1 0 ${2 * hole} 0a${hole} ${hole} 0 1 0 ${-2 * hole} 0Z`;
    }
  }
  return d;
}
