// Wolves & Rabbit board: an 8x8 board played on the dark squares; the wolves start on rank 8, the rabbit on rank 1.
// Move by clicking (or Enter/Space on) a piece that can move, then one of its highlighted target squares; the
// rabbit, the only piece of its side, is selected at once. Moves are "FROM-TO" ("c1-d2"), taken only from
// view.legal. Interface: see README.md in this folder.
import { hintMark } from "../hintmarks.js";
import { drawGridCells, hasGridFocus } from "./grid.js";
import { drawGrid, drawHintArrows, rankNames, SIZE, SQ, squareCells, squareXY } from "./grid8.js";
import { el, rootSvg } from "./svg.js";

function movesByPiece(legal) {
  const moves = new Map();
  for (const text of legal) {
    const [from, to] = text.split("-");
    if (!moves.has(from)) moves.set(from, []);
    moves.get(from).push(to);
  }
  return moves;
}

function drawRabbit(x, y, fresh) {
  const cx = x + SQ / 2;
  const cy = y + SQ / 2 + 4;
  const fill = "fill: var(--p0); stroke: rgba(0,0,0,0.35); stroke-width: 1.5";
  return el("g", { class: `wolves-rabbit${fresh ? " piece-in" : ""}`, "pointer-events": "none" }, [
    el("ellipse", { cx: cx - 6, cy: cy - 15, rx: 4, ry: 10, style: fill }),
    el("ellipse", { cx: cx + 6, cy: cy - 15, rx: 4, ry: 10, style: fill }),
    el("circle", { cx, cy, r: 13, style: fill }),
    el("circle", { cx: cx - 4.5, cy: cy - 2, r: 1.8, style: "fill: rgba(0,0,0,0.7)" }),
    el("circle", { cx: cx + 4.5, cy: cy - 2, r: 1.8, style: "fill: rgba(0,0,0,0.7)" }),
  ]);
}

/** A wolf's head: pointed ears, a broad brow narrowing to a long muzzle, slanted eyes and a dark nose. */
function drawWolf(x, y, fresh) {
  const cx = x + SQ / 2;
  const cy = y + SQ / 2;
  const fill = "fill: var(--p1); stroke: rgba(0,0,0,0.45); stroke-width: 1.5; stroke-linejoin: round";
  const dark = "fill: rgba(0,0,0,0.75)";
  return el("g", { class: `wolves-wolf${fresh ? " piece-in" : ""}`, "pointer-events": "none" }, [
    el("path", { d: `M${cx - 14} ${cy - 7}L${cx - 12} ${cy - 22}L${cx - 4} ${cy - 12}Z`, style: fill }),
    el("path", { d: `M${cx + 14} ${cy - 7}L${cx + 12} ${cy - 22}L${cx + 4} ${cy - 12}Z`, style: fill }),
    el("path", {
      d: `M${cx - 16} ${cy - 8}Q${cx} ${cy - 18} ${cx + 16} ${cy - 8}L${cx + 12} ${cy + 3}L${cx + 5} ${cy + 16}`
        + `Q${cx} ${cy + 20} ${cx - 5} ${cy + 16}L${cx - 12} ${cy + 3}Z`,
      style: fill,
    }),
    el("path", { d: `M${cx - 9} ${cy - 5}L${cx - 3} ${cy - 2}L${cx - 9} ${cy - 1}Z`, style: dark }),
    el("path", { d: `M${cx + 9} ${cy - 5}L${cx + 3} ${cy - 2}L${cx + 9} ${cy - 1}Z`, style: dark }),
    el("ellipse", { cx, cy: cy + 14, rx: 3.5, ry: 2.5, style: dark }),
    el("path", { d: `M${cx} ${cy + 4}L${cx} ${cy + 11}`, style: "stroke: rgba(0,0,0,0.35); stroke-width: 1.2" }),
  ]);
}

export function createBoard(container, { onMove, players = ["Rabbit", "Wolves"] }) {
  const svg = rootSvg(SIZE, SIZE, "Wolves and Rabbit board");
  svg.style.userSelect = "none";
  container.append(svg);
  let view = null;
  let opts = {};
  let selected = null;
  let fresh = new Set();
  const active = {}; // the grid's active square, kept between redraws

  function highlight(square, style, flipped) {
    const [x, y] = squareXY(square, flipped);
    svg.append(el("rect", { x, y, width: SQ, height: SQ, style: `${style}; pointer-events: none` }));
  }

  function drawSquares(flipped) {
    drawGrid(svg, flipped, "var(--wolves-light, #e9e4d3)", "var(--wolves-dark, #6b7a5a)");
    const goalY = flipped ? 7 * SQ : 0;
    svg.append(el("rect", {
      x: 1, y: goalY + 1, width: SIZE - 2, height: SQ - 2,
      style: "fill: none; stroke: var(--p0); stroke-width: 2; stroke-dasharray: 6 5; opacity: 0.7; pointer-events: none",
    }));
  }

  function lastMove() {
    const text = opts.lastMove ?? null;
    if (text && text.includes("-")) {
      const [from, to] = text.split("-");
      return { from, to };
    }
    return view.last ?? null;
  }

  function drawResult(flipped) {
    if ((view.legal ?? []).length > 0 || !view.rabbit) return;
    const escaped = view.rabbit[1] === "8";
    const rabbitWins = escaped || view.to_move === 1;
    const [x, y] = squareXY(view.rabbit, flipped);
    svg.append(el("circle", {
      class: "piece-in", cx: x + SQ / 2, cy: y + SQ / 2, r: SQ / 2 - 2,
      style: `fill: none; stroke: var(${rabbitWins ? "--p0" : "--p1"}); stroke-width: 4; pointer-events: none`,
    }));
  }

  function drawHint(flipped) {
    const hint = opts.hint ?? null;
    if (!hint || !(view.legal ?? []).includes(hint)) return;
    const [from, to] = hint.split("-");
    const [x1, y1] = squareXY(from, flipped);
    const [x2, y2] = squareXY(to, flipped);
    const ghost = view.pieces[from] === "rabbit" ? drawRabbit(x2, y2, false) : drawWolf(x2, y2, false);
    ghost.setAttribute("class", "wolves-hint");
    ghost.setAttribute("opacity", "0.35");
    svg.append(el("line", {
      x1: x1 + SQ / 2, y1: y1 + SQ / 2, x2: x2 + SQ / 2, y2: y2 + SQ / 2,
      style: "stroke: var(--accent, #3d86ff); stroke-width: 4; stroke-linecap: round; opacity: 0.35; pointer-events: none",
    }), ghost);
  }

  function draw() {
    const refocus = hasGridFocus(svg);
    svg.replaceChildren();
    if (!view) return;
    const flipped = Boolean(opts.flipped);
    const interactive = Boolean(opts.interactive);
    drawSquares(flipped);
    const last = lastMove();
    if (last) {
      highlight(last.from, "fill: rgba(255, 214, 10, 0.3)", flipped);
      highlight(last.to, "fill: rgba(255, 214, 10, 0.45)", flipped);
    }
    const moves = interactive ? movesByPiece(view.legal ?? []) : new Map();
    if (selected && !moves.has(selected)) selected = null;
    if (!selected && moves.size === 1) [selected] = moves.keys();
    if (selected) highlight(selected, "fill: rgba(20, 160, 90, 0.45)", flipped);
    drawHint(flipped);
    if (opts.hints) drawHintArrows(svg, opts.hints, flipped, (move) => move.split("-"), hintMark);
    for (const [square, piece] of Object.entries(view.pieces ?? {})) {
      const [x, y] = squareXY(square, flipped);
      const isNew = fresh.has(square);
      svg.append(piece === "rabbit" ? drawRabbit(x, y, isNew) : drawWolf(x, y, isNew));
    }
    drawResult(flipped);
    const destinations = new Set(moves.get(selected) ?? []);
    for (const to of destinations) {
      const [x, y] = squareXY(to, flipped);
      svg.append(el("circle", {
        class: "wolves-target", cx: x + SQ / 2, cy: y + SQ / 2, r: 8, style: "fill: rgba(20, 160, 90, 0.8); pointer-events: none",
      }));
    }
    const from = selected;
    const rows = squareCells(flipped, (square) => {
      const piece = view.pieces[square];
      const name = `${square}: ${piece === "rabbit" ? players[0].toLowerCase() : piece ? "wolf" : "empty"}`;
      if (destinations.has(square)) {
        return { name: `${name}, move ${from} here`, action: () => {
          selected = null;
          onMove(`${from}-${square}`);
        } };
      }
      const targets = moves.get(square);
      if (!targets) return { name, action: null };
      return {
        name: `${name}, ${square === selected ? "selected" : `${targets.length} move${targets.length === 1 ? "" : "s"}`}`,
        action: () => {
          selected = selected === square && moves.size > 1 ? null : square;
          draw();
        },
      };
    });
    drawGridCells(svg, rows, active, {
      label: "Wolves and Rabbit board", rowNames: rankNames(flipped), refocus,
      onEscape: () => {
        if (!selected || moves.size === 1) return false;
        selected = null;
        draw();
        return true;
      },
    });
  }

  function render(nextView, options = {}) {
    const before = view?.pieces ?? null;
    fresh = new Set(before ? Object.keys(nextView.pieces ?? {}).filter((sq) => before[sq] !== nextView.pieces[sq]) : []);
    view = nextView;
    opts = options;
    draw();
    fresh = new Set();
  }

  return {
    render,
    destroy() {
      svg.remove();
    },
  };
}
