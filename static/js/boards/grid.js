// A board as a WAI-ARIA grid (https://www.w3.org/WAI/ARIA/apg/patterns/grid/): the board is one Tab stop, the arrow
// keys move between its cells (Home and End to the ends of a row, Ctrl+Home and Ctrl+End to the corners), Enter or
// Space acts on the cell (plays, selects, drops), Escape cancels what the board has begun. Each cell is named by
// what is on it, so a screen reader reads the position cell by cell; the board keeps the active cell across redraws.
import { el } from "./svg.js";

/**
 * The whole position as a screen reader should hear it, from the grid's cells: each row's name, then what is on its
 * cells (empty cells left out when a row has pieces), "; " between rows. Empty when `svg` holds no grid.
 */
export function readGrid(svg) {
  return [...(svg?.querySelectorAll("[role=row]") ?? [])].map((row) => {
    const names = [...row.querySelectorAll("[role=gridcell]")].map((cell) => cell.getAttribute("aria-label"));
    const filled = names.filter((name) => !/: empty\b/.test(name));
    return `${row.getAttribute("aria-label")}: ${(filled.length ? filled : ["empty"]).join(", ")}`;
  }).join("; ");
}

/** Whether the keyboard focus is on one of `svg`'s cells: call before clearing the board, pass to `drawGridCells`. */
export function hasGridFocus(svg) {
  return Boolean(svg) && svg.contains(document.activeElement);
}

/**
 * Makes `svg` a grid named `label` and draws its cells on top of everything drawn so far: `cells` is rows of
 * `{x, y, width, height, name, action, attrs}` (`action` null where the cell does nothing now; `attrs` extra
 * attributes such as `data-square`). `state` (`{row, col}`, kept by the board between redraws) is the active cell (and the cell a press began on);
 * `rowNames` name the rows (default "Row 1", "Row 2"...); `columns`: the rows are drawn as columns side by side
 * (Nim's piles), so the left and right arrows go between rows and up and down along one; `refocus` focuses the active cell again after a redraw that
 * took the focus away; `onEscape` is called on Escape and returns
 * whether it cancelled something (else the key goes on to the page). Returns the cell elements, rows of them.
 */
export function drawGridCells(svg, cells, state, {
  label, rowNames = null, refocus = false, onEscape = null, columns = false,
}) {
  svg.setAttribute("role", "grid");
  svg.setAttribute("aria-label", label);
  const rows = cells.length;
  const cols = Math.max(...cells.map((row) => row.length));
  if (state.row === undefined || state.row >= rows || state.col >= cells[state.row].length) {
    const playable = cells.flatMap((row, r) => row.map((cell, c) => [cell, r, c])).find(([cell]) => cell.action);
    [state.row, state.col] = playable ? [playable[1], playable[2]] : [0, 0];
  }
  for (const drawn of svg.children) drawn.setAttribute("aria-hidden", "true"); // the cells say what it shows
  const elements = cells.map((row, r) => {
    const group = el("g", { role: "row", "aria-label": rowNames?.[r] ?? `Row ${r + 1}` });
    const made = row.map((cell, c) => {
      const node = el("rect", {
        class: `grid-cell${cell.action ? " actionable" : ""}`, x: cell.x, y: cell.y, width: cell.width,
        height: cell.height, role: "gridcell", "aria-label": cell.name,
        tabindex: r === state.row && c === state.col ? "0" : "-1", ...(cell.attrs ?? {}),
      });
      if (cell.action) node.addEventListener("click", () => act(r, c));
      // A redraw between a press and its release (the server's answers arrive at any moment) leaves the press on a
      // cell no longer drawn: the browser sends no click then, so the release on the same cell's new drawing acts.
      node.addEventListener("pointerdown", (event) => {
        state.pressed = event.button === 0 && cell.action ? { row: r, col: c, node } : null;
      });
      node.addEventListener("pointerup", () => {
        const { pressed } = state;
        state.pressed = null;
        if (cell.action && pressed?.row === r && pressed.col === c && !pressed.node.isConnected) act(r, c);
      });
      // A click plays without taking the keyboard focus: the page's keys (the move list's arrows) stay the page's
      // until the person tabs into the board.
      node.addEventListener("mousedown", (event) => event.preventDefault());
      node.addEventListener("focus", () => {
        [state.row, state.col] = [r, c];
        for (const line of elements) for (const other of line) other.setAttribute("tabindex", other === node ? "0" : "-1");
      });
      node.addEventListener("keydown", (event) => onKey(event, r, c));
      group.append(node);
      return node;
    });
    svg.append(group);
    return made;
  });

  function act(row, col) {
    [state.row, state.col] = [row, col];
    cells[row][col].action();
  }

  function move(row, col) {
    const r = Math.max(0, Math.min(rows - 1, row));
    const c = Math.max(0, Math.min(elements[r].length - 1, col));
    elements[r][c].focus();
  }

  function onKey(event, r, c) {
    // The browser's own shortcuts (Ctrl+R, Alt+arrows...) stay the browser's; Ctrl+Home and Ctrl+End are the grid's.
    if (event.altKey || event.metaKey || (event.ctrlKey && event.key !== "Home" && event.key !== "End")) return;
    const [right, down] = columns ? [[1, 0], [0, 1]] : [[0, 1], [1, 0]]; // a step right and a step down: [row, col]
    const keys = {
      ArrowRight: () => move(r + right[0], c + right[1]), ArrowLeft: () => move(r - right[0], c - right[1]),
      ArrowDown: () => move(r + down[0], c + down[1]), ArrowUp: () => move(r - down[0], c - down[1]),
      Home: () => (event.ctrlKey ? move(0, 0) : move(r, 0)),
      End: () => (event.ctrlKey ? move(rows - 1, cols - 1) : move(r, cols - 1)),
      Enter: () => cells[r][c].action?.(), " ": () => cells[r][c].action?.(),
      // R reads the whole position: the page says it (its live region) on the board's "board-read" event.
      r: () => svg.dispatchEvent(new CustomEvent("board-read", { bubbles: true, detail: readGrid(svg) })),
    };
    if (event.key === "Escape" && onEscape?.()) {
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation(); // the page's own keys (the move list's arrows) are not the board's
    action();
  }

  if (refocus) elements[state.row][state.col].focus();
  return elements;
}
