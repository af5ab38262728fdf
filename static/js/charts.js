// The engine panel's two small charts, drawn as SVG: nodes per completed depth, and the evaluation over the game.
import { el } from "./boards/svg.js";
import { formatCount, formatShort, isDecided } from "./format.js";

const H = 90;
let clipCounter = 0;

/** Sizes the chart's coordinate system to its width on screen (so text is never stretched); returns the width. */
function fit(svg) {
  const width = Math.max(120, Math.round(svg.getBoundingClientRect().width || 240));
  svg.setAttribute("viewBox", `0 0 ${width} ${H}`);
  svg.replaceChildren();
  return width;
}

function emptyText(svg, W, text) {
  svg.append(el("text", { class: "empty-text", x: W / 2, y: H / 2 + 4, "text-anchor": "middle" }, [document.createTextNode(text)]));
}

/**
 * Bars of the nodes spent on each completed depth (index 0 = depth 1), on a log scale so that every depth shows;
 * each bar's exact count is in its tooltip. With no completed depth, `textWhenEmpty` says why.
 */
export function drawNodesPerDepth(svg, counts, textWhenEmpty) {
  const W = fit(svg);
  if (!counts || counts.length === 0) {
    emptyText(svg, W, textWhenEmpty);
    return;
  }
  const shown = counts.slice(-24);
  const first = counts.length - shown.length + 1;
  const top = Math.log10(Math.max(...shown, 10)) * 1.08;
  const slot = W / shown.length;
  const barWidth = Math.max(2, Math.min(26, slot * 0.72));
  const base = H - 14;
  svg.append(el("line", { class: "axis", x1: 0, y1: base + 0.5, x2: W, y2: base + 0.5 }));
  shown.forEach((count, i) => {
    const height = Math.max(1.5, (Math.log10(Math.max(count, 1)) / top) * (base - 12));
    const x = i * slot + (slot - barWidth) / 2;
    const bar = el("rect", { class: "bar", x, y: base - height, width: barWidth, height, rx: 2 });
    bar.append(el("title", {}, [document.createTextNode(`depth ${first + i}: ${formatCount(count)} nodes`)]));
    svg.append(bar);
    if (shown.length <= 14 || i % 2 === shown.length % 2) {
      svg.append(el("text", { class: "bar-label", x: x + barWidth / 2, y: H - 3, "text-anchor": "middle" },
        [document.createTextNode(String(first + i))]));
    }
  });
  const lastCount = shown[shown.length - 1];
  svg.append(el("text", { class: "bar-label", x: W - 2, y: 9, "text-anchor": "end" },
    [document.createTextNode(`${formatShort(lastCount)} at depth ${counts.length} · log scale`)]));
}

/** Maps a seat-0 score to [-1, 1]: decided results to ±1, heuristic values squashed by `scale`. */
function squash(score, scale) {
  if (isDecided(score)) return Math.sign(score);
  return Math.tanh(score / scale) * 0.85;
}

/**
 * The evaluation over the game: `points` are {ply, score} from seat 0's point of view (positive is good for seat 0),
 * `totalPlies` the length of the game so far. Above the middle line seat 0 is better (filled in seat 0's colour),
 * below it seat 1 (in seat 1's). `marks` (optional) are {ply, kind, symbol, label, onSelect}: a mark drawn on the
 * point of that ply (shape and symbol by `kind`, never colour alone), a button calling `onSelect()`.
 */
export function drawEvaluation(svg, points, totalPlies, names = ["first player", "second player"], marks = []) {
  const W = fit(svg);
  const mid = H / 2;
  const usable = points.filter((p) => Number.isFinite(p.score));
  if (usable.length === 0) {
    emptyText(svg, W, "no engine move yet");
    return;
  }
  svg.append(el("line", { class: "zero", x1: 0, y1: mid, x2: W, y2: mid }));
  const heuristic = usable.filter((p) => !isDecided(p.score)).map((p) => Math.abs(p.score));
  const scale = Math.max(1, ...heuristic) / 1.2;
  const span = Math.max(totalPlies, ...usable.map((p) => p.ply), 8);
  const xy = (p) => [4 + ((W - 8) * p.ply) / span, mid - squash(p.score, scale) * (mid - 6)];
  const coords = usable.map(xy);
  const line = coords.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join("");
  const area = `${line}L${coords[coords.length - 1][0].toFixed(1)} ${mid}L${coords[0][0].toFixed(1)} ${mid}Z`;
  const id = `eval-${(clipCounter += 1)}`;
  svg.append(el("defs", {}, [
    el("clipPath", { id: `${id}-above` }, [el("rect", { x: 0, y: 0, width: W, height: mid })]),
    el("clipPath", { id: `${id}-below` }, [el("rect", { x: 0, y: mid, width: W, height: mid })]),
  ]));
  svg.append(el("path", { class: "eval-area p0", d: area, "clip-path": `url(#${id}-above)` }));
  svg.append(el("path", { class: "eval-area p1", d: area, "clip-path": `url(#${id}-below)` }));
  svg.append(el("path", { class: "eval-line", d: line }));
  const label = (text, x, y, anchor = "start") => svg.append(
    el("text", { class: "axis-text", x, y, "text-anchor": anchor }, [document.createTextNode(text)]));
  label(`▲ ${names[0]} better`, 4, 11);
  label(`▼ ${names[1]} better`, 4, H - 4);
  label(`ply ${span}`, W - 4, H - 4, "end");
  usable.forEach((p, i) => {
    const dot = el("circle", { class: "eval-dot", cx: coords[i][0], cy: coords[i][1], r: 2.6 });
    const text = p.score_text ?? (isDecided(p.score) ? (p.score > 0 ? "won" : "lost") : String(p.score));
    dot.append(el("title", {}, [document.createTextNode(`after ply ${p.ply}: ${text}`)]));
    svg.append(dot);
  });
  for (const mark of marks) {
    const point = usable.find((p) => p.ply === mark.ply);
    const [x, y] = point ? xy(point) : xy({ ply: mark.ply, score: 0 });
    const shape = mark.kind === "minor"
      ? el("rect", { class: `eval-mark ${mark.kind}`, x: x - 6, y: y - 6, width: 12, height: 12, rx: 2 })
      : el("circle", { class: `eval-mark ${mark.kind}`, cx: x, cy: y, r: 7 });
    const button = el("g", { class: "eval-mark-button", role: "button", tabindex: "0", "aria-label": mark.label }, [
      el("title", {}, [document.createTextNode(mark.label)]), shape,
      el("text", { class: "eval-mark-text", x, y: y + 3.5, "text-anchor": "middle" }, [document.createTextNode(mark.symbol)]),
    ]);
    button.addEventListener("click", mark.onSelect);
    button.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        mark.onSelect();
      }
    });
    svg.append(button);
  }
}
