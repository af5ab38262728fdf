// Chess board: an 8x8 SVG with piece images from the server (/chess/pieces/wK.svg, drawn by python-chess).
// Move by clicking (or Enter/Space on a focused square) a piece and then a destination, or by dragging.
// Legal moves come only from view.legal (UCI); a promotion opens a chooser. Interface: see README.md.
import { hintMark } from "../hintmarks.js";
import { drawGridCells, hasGridFocus } from "./grid.js";
import { drawGrid, drawHintArrows, FILES, rankNames, SIZE, SQ, squareCells, squareXY } from "./grid8.js";
import { el, makeButton, rootSvg } from "./svg.js";

const PROMOTIONS = ["q", "r", "b", "n"];
const PIECE_NAMES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };

function pieceUrl(symbol) {
  const colour = symbol === symbol.toUpperCase() ? "w" : "b";
  return `/chess/pieces/${colour}${symbol.toUpperCase()}.svg`;
}

function squareAt(x, y, flipped) {
  const col = Math.floor(x / SQ);
  const row = Math.floor(y / SQ);
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  const file = flipped ? 7 - col : col;
  const rank = flipped ? row : 7 - row;
  return `${FILES[file]}${rank + 1}`;
}

/** "white knight", "black pawn"; "empty" for no piece. */
function pieceName(symbol) {
  if (!symbol) return "empty";
  return `${symbol === symbol.toUpperCase() ? "white" : "black"} ${PIECE_NAMES[symbol.toLowerCase()]}`;
}

export function createBoard(container, { onMove }) {
  const svg = rootSvg(SIZE, SIZE, "Chess board");
  svg.style.touchAction = "none";
  svg.style.userSelect = "none";
  container.append(svg);
  let view = null;
  let opts = {};
  let selected = null;
  let drag = null;
  let chooser = null;
  const active = {}; // the grid's active square, kept between redraws

  function movesFrom(square) {
    return (view?.legal ?? []).filter((m) => m.startsWith(square));
  }

  function play(from, to) {
    const candidates = movesFrom(from).filter((m) => m.slice(2, 4) === to);
    selected = null;
    if (candidates.length === 0) return draw();
    if (candidates.length === 1) return onMove(candidates[0]);
    chooser = { from, to };
    return draw();
  }

  function pointIn(event) {
    const matrix = svg.getScreenCTM();
    if (!matrix) return [0, 0];
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return [point.x, point.y];
  }

  function drawSquares(flipped) {
    drawGrid(svg, flipped, "var(--chess-light, #eedbbb)", "var(--chess-dark, #b08962)");
  }

  function highlight(square, colour, flipped) {
    const [x, y] = squareXY(square, flipped);
    svg.append(el("rect", { x, y, width: SQ, height: SQ, style: `fill: ${colour}; pointer-events: none` }));
  }

  function drawArrow(move, flipped) {
    const [x1, y1] = squareXY(move.slice(0, 2), flipped);
    const [x2, y2] = squareXY(move.slice(2, 4), flipped);
    const style = "stroke: var(--chess-arrow, rgba(30, 120, 220, 0.75)); stroke-width: 8; stroke-linecap: round;"
      + " pointer-events: none";
    const line = el("line", { class: "chess-arrow", "data-move": move, x1: x1 + SQ / 2, y1: y1 + SQ / 2, x2: x2 + SQ / 2, y2: y2 + SQ / 2, style });
    svg.append(line);
    svg.append(el("circle", { cx: x2 + SQ / 2, cy: y2 + SQ / 2, r: 9, style: "fill: var(--chess-arrow, rgba(30, 120, 220, 0.75)); pointer-events: none" }));
  }

  function drawChooser(flipped) {
    const { from, to } = chooser;
    const white = view.pieces[from] === "P";
    const [x, y0] = squareXY(to, flipped);
    const down = y0 === 0;
    svg.append(el("rect", { x: 0, y: 0, width: SIZE, height: SIZE, style: "fill: rgba(0,0,0,0.35)" }));
    const cancel = svg.lastChild;
    cancel.addEventListener("click", () => { chooser = null; draw(); });
    const buttons = PROMOTIONS.map((letter, index) => {
      const y = down ? index * SQ : SIZE - (index + 1) * SQ;
      const symbol = white ? letter.toUpperCase() : letter;
      const button = el("rect", { x, y, width: SQ, height: SQ, rx: 6, style: "fill: #f4f4f4; stroke: #333" });
      svg.append(button);
      svg.append(el("image", { href: pieceUrl(symbol), x, y, width: SQ, height: SQ, "pointer-events": "none" }));
      makeButton(button, `Promote to ${PIECE_NAMES[letter]}`, () => {
        chooser = null;
        onMove(`${from}${to}${letter}`);
      });
      return button;
    });
    buttons[0].focus(); // the queen, the usual choice
  }

  function draw() {
    const refocus = hasGridFocus(svg) && !chooser;
    svg.replaceChildren();
    if (!view) return;
    const flipped = Boolean(opts.flipped);
    const interactive = Boolean(opts.interactive);
    drawSquares(flipped);
    const last = opts.lastMove ?? view.last_move ?? null;
    if (last && last.length >= 4) {
      highlight(last.slice(0, 2), "rgba(255, 214, 10, 0.38)", flipped);
      highlight(last.slice(2, 4), "rgba(255, 214, 10, 0.5)", flipped);
    }
    if (view.check) highlight(view.check, "rgba(230, 40, 40, 0.55)", flipped);
    if (selected) highlight(selected, "rgba(20, 160, 90, 0.45)", flipped);
    for (const [square, symbol] of Object.entries(view.pieces ?? {})) {
      if (drag?.moved && drag.from === square) continue; // a press lifts the piece only once it moves
      const [x, y] = squareXY(square, flipped);
      svg.append(el("image", { href: pieceUrl(symbol), x, y, width: SQ, height: SQ, "pointer-events": "none" }));
    }
    const arrow = opts.arrow ?? opts.hint ?? null;
    if (arrow) drawArrow(arrow, flipped);
    if (opts.hints) { // the best three moves as arrows with their scores
      drawHintArrows(svg, opts.hints, flipped, (move) => [move.slice(0, 2), move.slice(2, 4)], hintMark, 3);
    }
    if (interactive) drawTargets(flipped);
    drawSquareCells(flipped, interactive, refocus);
    if (drag?.moved) {
      drag.image = el("image", { href: pieceUrl(view.pieces[drag.from]), x: drag.x - SQ / 2, y: drag.y - SQ / 2, width: SQ, height: SQ, "pointer-events": "none" });
      svg.append(drag.image);
    }
    if (chooser) drawChooser(flipped);
  }

  /** The selected piece's destinations, marked on the board. */
  function drawTargets(flipped) {
    for (const move of selected ? movesFrom(selected) : []) {
      const square = move.slice(2, 4);
      const [x, y] = squareXY(square, flipped);
      const style = view.pieces[square]
        ? "fill: none; stroke: rgba(20, 100, 60, 0.6); stroke-width: 4; pointer-events: none"
        : "fill: rgba(20, 100, 60, 0.45); pointer-events: none";
      svg.append(el("circle", { cx: x + SQ / 2, cy: y + SQ / 2, r: view.pieces[square] ? SQ / 2 - 3 : 8, style }));
    }
  }

  /** Every square as a cell of the board's grid: named by its piece, and while the person may move, what Enter or a
   * click does there (select a piece that can move, move the selected one there); a movable piece can be dragged. */
  function drawSquareCells(flipped, interactive, refocus) {
    const destinations = new Set(selected ? movesFrom(selected).map((m) => m.slice(2, 4)) : []);
    const movable = new Set(interactive ? (view.legal ?? []).map((m) => m.slice(0, 2)) : []);
    const rows = squareCells(flipped, (square) => {
      const name = `${square}: ${pieceName(view.pieces[square])}`;
      if (destinations.has(square)) return { name: `${name}, move ${selected} here`, action: () => play(selected, square) };
      if (!movable.has(square)) return { name, action: null };
      return {
        name: `${name}${square === selected ? ", selected" : ", can move"}`,
        action: () => {
          selected = selected === square ? null : square;
          draw();
        },
      };
    });
    const cells = drawGridCells(svg, rows, active, {
      label: "Chess board", rowNames: rankNames(flipped), refocus,
      onEscape: () => {
        if (!selected) return false;
        selected = null;
        draw();
        return true;
      },
    });
    for (const cell of cells.flat()) {
      const square = cell.dataset.square;
      if (!movable.has(square)) continue;
      cell.addEventListener("pointerdown", (event) => {
        if (event.button !== 0) return;
        event.preventDefault();
        const [px, py] = pointIn(event);
        drag = { from: square, x: px, y: py, moved: false, pointer: event.pointerId };
      });
    }
  }

  function onPointerMove(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const [x, y] = pointIn(event);
    if (!drag.moved && Math.hypot(x - drag.x, y - drag.y) < 4) return;
    if (!drag.moved) {
      drag.moved = true;
      selected = drag.from;
      drag.x = x;
      drag.y = y;
      draw();
      return;
    }
    drag.x = x;
    drag.y = y;
    drag.image?.setAttribute("x", String(x - SQ / 2));
    drag.image?.setAttribute("y", String(y - SQ / 2));
  }

  function onPointerUp(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const { from, moved } = drag;
    drag = null;
    if (!moved) return;
    const [x, y] = pointIn(event);
    const to = squareAt(x, y, Boolean(opts.flipped));
    if (to && to !== from) {
      play(from, to);
      return;
    }
    selected = null;
    draw();
  }

  function onPointerCancel() {
    if (!drag) return;
    drag = null;
    draw();
  }

  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerCancel);

  function render(nextView, options = {}) {
    // A redraw of the same position (a new hint, new values) keeps the person's half-made move.
    const samePosition = view?.fen === nextView.fen && Boolean(opts.interactive) === Boolean(options.interactive);
    view = nextView;
    opts = options;
    if (!samePosition) {
      selected = null;
      chooser = null;
      drag = null;
    }
    draw();
  }

  return {
    render,
    destroy() {
      window.removeEventListener("pointermove", onPointerMove);
      window.removeEventListener("pointerup", onPointerUp);
      window.removeEventListener("pointercancel", onPointerCancel);
      svg.remove();
    },
  };
}
