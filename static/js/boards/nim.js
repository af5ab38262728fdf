// Nim board: piles of counters side by side; click a counter to take it and every counter above it.
// The move text is "PILE:COUNT" with a 1-based pile. Interface: see README.md in this folder.
import { hintMark } from "../hintmarks.js";
import { el, makeButton, rootSvg } from "./svg.js";

const PILE_WIDTH = 76;
const GAP = 14;
const ROW = 30;
const TOP = 34;
const BOTTOM = 58;
const MAX_ROWS = 12;
const MIN_WIDTH = 380;

export function createBoard(container, { onMove }) {
  let svg = null;

  function layout(piles) {
    const largest = Math.max(1, ...piles);
    const rows = Math.min(largest, MAX_ROWS);
    const perRow = Math.ceil(largest / rows);
    const radius = Math.min(12, (PILE_WIDTH - 10) / perRow / 2 - 1);
    return { rows, perRow, radius };
  }

  function render(view, { interactive = false, flipped = false, hint = null, hints = null } = {}) {
    const piles = view.piles;
    const { rows, perRow, radius } = layout(piles);
    const contentWidth = piles.length * PILE_WIDTH + (piles.length + 1) * GAP;
    const width = Math.max(contentWidth, MIN_WIDTH);
    const offset = (width - contentWidth) / 2;
    const height = TOP + rows * ROW + BOTTOM;
    svg?.remove();
    svg = rootSvg(width, height, "Nim piles");
    container.append(svg);
    const legal = new Set(interactive ? view.legal : []);
    const [lastPile, lastCount] = view.last ? view.last.split(":").map(Number) : [null, 0];
    const order = piles.map((_, index) => index);
    if (flipped) order.reverse();

    order.forEach((pileIndex, slot) => {
      const size = piles[pileIndex];
      const x0 = offset + GAP + slot * (PILE_WIDTH + GAP);
      const floor = TOP + rows * ROW;
      svg.append(el("rect", { class: "nim-pile-bg", x: x0, y: TOP - 8, width: PILE_WIDTH, height: rows * ROW + 16, rx: 12 }));
      const spot = (k) => {
        const row = Math.floor(k / perRow);
        const col = k % perRow;
        const span = perRow * radius * 2 + (perRow - 1) * 3;
        const cx = x0 + (PILE_WIDTH - span) / 2 + radius + col * (radius * 2 + 3);
        return [cx, floor - ROW / 2 - row * ROW];
      };
      if (lastPile === pileIndex + 1) {
        for (let k = size; k < size + lastCount && k < rows * perRow; k += 1) {
          const [cx, cy] = spot(k);
          svg.append(el("circle", { class: "nim-counter gone", cx, cy, r: radius }));
        }
      }
      const counters = [];
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
        if (legal.has(move)) {
          counter.classList.add("legal");
          const mark = (on) => counters.slice(k).forEach((c) => c.classList.toggle("take", on));
          counter.addEventListener("pointerenter", () => mark(true));
          counter.addEventListener("pointerleave", () => mark(false));
          counter.addEventListener("focus", () => mark(true));
          counter.addEventListener("blur", () => mark(false));
          makeButton(counter, `Take ${take} from pile ${pileIndex + 1}`, () => onMove(move));
        }
      }
      svg.append(el("text", { class: "nim-count", x: x0 + PILE_WIDTH / 2, y: floor + 28, "text-anchor": "middle" }, [
        document.createTextNode(String(size)),
      ]));
      svg.append(el("text", { class: "nim-label", x: x0 + PILE_WIDTH / 2, y: TOP - 14, "text-anchor": "middle" }, [
        document.createTextNode(`Pile ${pileIndex + 1}`),
      ]));
    });
    const rules = [view.max_take ? `take 1 to ${view.max_take} from one pile` : "take any number from one pile",
      view.misere ? "last counter loses" : "last counter wins"].join(" · ");
    svg.append(el("text", { class: "nim-rule", x: width / 2, y: height - 8, "text-anchor": "middle" }, [
      document.createTextNode(rules),
    ]));
  }

  return {
    render,
    destroy() {
      svg?.remove();
    },
  };
}
