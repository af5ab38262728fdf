// The engine panel's two small charts, drawn as SVG: nodes per completed depth, and the evaluation over the game
// (which a review draws too, with its errors marked).
import { el } from "./boards/svg.js";
import { WIN, formatCount, formatShort, isDecided } from "./format.js";
import { TOUCH_SCREEN } from "./touch.js";

const H = 90;
let clipCounter = 0;

/** Sizes the chart's coordinate system to its width on screen (so text is never stretched); returns the width. */
function fit(svg) {
  const width = Math.max(120, Math.round(svg.getBoundingClientRect().width || 240));
  svg.setAttribute("viewBox", `0 0 ${width} ${H}`);
  svg.replaceChildren();
  return width;
}

function emptyText(svg, W, text, height = H) {
  svg.append(el("text", { class: "empty-text", x: W / 2, y: height / 2 + 4, "text-anchor": "middle" }, [document.createTextNode(text)]));
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

const EVAL = {
  height: 136, // without review marks
  top: 16, // the legend row
  bottom: 16, // the move numbers
  left: 46, // the value ticks, with the unit written upwards at the far left
  right: 10, // half a review mark
  band: 22, // the band of one side's proven wins
  bandGap: 5, // between the values' range and a band or the plot's edge
  lane: 17, // a row of review marks
  markGap: 17, // centre to centre, at least, in a row of marks
  tickGap: 34, // between two move numbers, at least
  tickSpace: 13, // between two value ticks, at least
};

/** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value` (> 0). */
function niceCeil(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((step) => step >= value * (1 - 1e-9));
}

/** A value on the axis: "0", "+1.5", "−3" (a true minus sign). */
function signed(value) {
  if (value === 0) return "0";
  const text = String(Number(Math.abs(value).toFixed(2)));
  return `${value > 0 ? "+" : "−"}${text}`;
}

/** The plies until the end of a decided score (`WIN - |score|`). */
function pliesToEnd(score) {
  return WIN - Math.abs(score);
}

/** Rows for `marks` ({x}) so that two marks of a row are at least `gap` apart; returns each mark's row. */
function markRows(xs, gap) {
  const rowEnds = [];
  return xs.map((x) => {
    let row = rowEnds.findIndex((end) => x - end >= gap);
    if (row < 0) row = rowEnds.push(-Infinity) - 1;
    rowEnds[row] = x;
    return row;
  });
}

/**
 * The evaluation over the game, the same chart live in the panel and in a review. `points` are {ply, score,
 * score_text} from seat 0's point of view (positive is good for seat 0); `plies` is how long the game is so far (the
 * x-axis runs from its start to there, numbered in moves); `names` are the seats' names; `axis` is the state's
 * `score_axis` ({unit, per_unit}): heuristic scores are drawn on a linear scale ticked in that unit, proven wins in a
 * band of their own above (seat 0's) or below (seat 1's) it, the sooner the win the nearer the edge. Above the zero
 * line seat 0 is better (filled in seat 0's colour), below it seat 1. `marks` (optional) are {ply, kind, symbol,
 * label, onSelect}: buttons in rows under the plot (shape and symbol by `kind`, never colour alone), never
 * overlapping, each with a guide up to its point; on touch screens only drawn (the caller lists them as buttons).
 * `startPly`: the half-moves before the game's first (a set-up position's move number), so the axis numbers its
 * moves as the move list does.
 */
export function drawEvaluation(svg, points, {
  plies, names = ["first player", "second player"], axis, marks = [], startPly = 0,
}) {
  const usable = points.filter((p) => Number.isFinite(p.score));
  const ordered = [...marks].sort((a, b) => a.ply - b.ply);
  const span = Math.max(plies, ...usable.map((p) => p.ply), 2);
  const W = Math.max(160, Math.round(svg.getBoundingClientRect().width || 300));
  const plotLeft = EVAL.left;
  const plotWidth = W - EVAL.left - EVAL.right;
  const xOf = (ply) => plotLeft + (plotWidth * ply) / span;
  const rows = markRows(ordered.map((mark) => xOf(mark.ply)), EVAL.markGap);
  const rowCount = rows.length ? Math.max(...rows) + 1 : 0;
  const H = EVAL.height + rowCount * EVAL.lane;
  svg.style.height = `${H}px`;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", marks.length ? "group" : "img");
  svg.replaceChildren();
  if (usable.length === 0) {
    emptyText(svg, W, "no engine move yet", H);
    return;
  }
  const perUnit = axis?.per_unit ?? 1;
  const won = [usable.filter((p) => isDecided(p.score) && p.score > 0), usable.filter((p) => isDecided(p.score) && p.score < 0)];
  const heuristic = usable.filter((p) => !isDecided(p.score)).map((p) => Math.abs(p.score) / perUnit);
  const top = niceCeil(Math.max(1, ...heuristic));
  const plotTop = EVAL.top;
  const plotBottom = EVAL.height - EVAL.bottom;
  const valueTop = plotTop + EVAL.bandGap + (won[0].length ? EVAL.band : 0);
  const valueBottom = plotBottom - EVAL.bandGap - (won[1].length ? EVAL.band : 0);
  const mid = (valueTop + valueBottom) / 2;
  // Values (in axis units) on a symmetric logarithmic scale, nearly linear within one unit of zero: a game's
  // small advantages stay visible beside a large one, and the ticks say where each value lies.
  const stretch = (value) => Math.sign(value) * Math.log1p(Math.abs(value));
  const valueY = (value) => mid - (stretch(Math.max(-top, Math.min(top, value))) / stretch(top)) * (mid - valueTop);
  // Each side's proven wins: the fewest and the most plies to the end among its points.
  const ends = won.map((points) => {
    const plies = points.map((p) => pliesToEnd(p.score));
    return [Math.min(...plies), Math.max(...plies)];
  });
  const bandY = (seat, score) => {
    const [soonest, latest] = ends[seat];
    const depth = latest > soonest ? (pliesToEnd(score) - soonest) / (latest - soonest) : 0.5;
    const offset = 4 + depth * (EVAL.band - 8);
    return seat === 0 ? plotTop + offset : plotBottom - offset;
  };
  const yOf = (p) => (!isDecided(p.score) ? valueY(p.score / perUnit) : bandY(p.score > 0 ? 0 : 1, p.score));
  const text = (content, attrs) => svg.append(el("text", attrs, [document.createTextNode(content)]));

  // Bands, ticks and axes.
  won.forEach((points, seat) => {
    if (!points.length) return;
    const y = seat === 0 ? plotTop : plotBottom - EVAL.band;
    const band = el("rect", { class: `eval-band p${seat}`, x: plotLeft, y, width: plotWidth, height: EVAL.band });
    const [soonest, latest] = ends[seat];
    const range = soonest === latest ? `${soonest}` : `${soonest} to ${latest}`;
    band.append(el("title", {}, [document.createTextNode(`${names[seat]} has a proven win, the game ending ${range} `
      + `${latest === 1 ? "ply" : "plies"} after the point: the nearer the edge, the sooner`)]));
    svg.append(band);
    text("win", { class: "axis-text", x: plotLeft - 4, y: y + EVAL.band / 2 + 3.5, "text-anchor": "end" });
  });
  const ticks = [0]; // a game without heuristic (no unit) only has 0 between its proven results
  for (const value of axis?.unit ?  [top, ...[1, 2, 5].flatMap((m) => [1, 10, 100, 1000].map((p) => m * p)).sort((a, b) => b - a)] : []) {
    const lowest = ticks.length > 1 ? ticks[ticks.length - 1] : Infinity;
    if (value <= top && value < lowest && valueY(0) - valueY(value) >= EVAL.tickSpace
        && (lowest === Infinity || valueY(value) - valueY(lowest) >= EVAL.tickSpace)) ticks.push(value);
  }
  ticks.push(...ticks.slice(1).map((value) => -value));
  for (const value of ticks) {
    const y = valueY(value);
    svg.append(el("line", { class: value === 0 ? "zero" : "grid", x1: plotLeft, y1: y, x2: plotLeft + plotWidth, y2: y }));
    text(signed(value), { class: "axis-text", x: plotLeft - 4, y: y + 3.5, "text-anchor": "end" });
  }
  if (axis?.unit) {
    text(axis.unit, { class: "axis-text", x: 0, y: 0, "text-anchor": "middle", transform: `translate(9 ${mid}) rotate(-90)` });
  }
  svg.append(el("line", { class: "axis", x1: plotLeft, y1: plotBottom + 0.5, x2: plotLeft + plotWidth, y2: plotBottom + 0.5 }));
  const moves = span / 2;
  const step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500].find((s) => Math.floor(moves / s) * EVAL.tickGap <= plotWidth) ?? 1000;
  const labelY = plotBottom + EVAL.bottom - 3;
  for (let move = step; move <= moves; move += step) {
    const x = xOf(2 * move);
    svg.append(el("line", { class: "axis", x1: x, y1: plotBottom, x2: x, y2: plotBottom + 4 }));
    // the number of the move that makes this ply, as the move list numbers it (a set-up position's own number)
    text(String(Math.floor((startPly + 2 * move - 1) / 2) + 1), { class: "axis-text", x, y: labelY, "text-anchor": "middle" });
  }
  text("move", { class: "axis-text", x: plotLeft - 4, y: labelY, "text-anchor": "end" });
  const legend = [`▲ ${names[0]} better`, `▼ ${names[1]} better`];
  const short = legend.join("").length * 6.2 + 16 > plotWidth;
  text(short ? `▲ ${names[0]}` : legend[0], { class: "axis-text", x: plotLeft, y: 11 });
  text(short ? `▼ ${names[1]}` : legend[1], { class: "axis-text", x: plotLeft + plotWidth, y: 11, "text-anchor": "end" });

  // The curve, filled in the colour of the side it favours.
  const coords = usable.map((p) => [xOf(p.ply), yOf(p)]);
  const line = coords.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join("");
  const area = `${line}L${coords[coords.length - 1][0].toFixed(1)} ${mid}L${coords[0][0].toFixed(1)} ${mid}Z`;
  const id = `eval-${(clipCounter += 1)}`;
  svg.append(el("defs", {}, [
    el("clipPath", { id: `${id}-above` }, [el("rect", { x: 0, y: 0, width: W, height: mid })]),
    el("clipPath", { id: `${id}-below` }, [el("rect", { x: 0, y: mid, width: W, height: H - mid })]),
  ]));
  svg.append(el("path", { class: "eval-area p0", d: area, "clip-path": `url(#${id}-above)` }));
  svg.append(el("path", { class: "eval-area p1", d: area, "clip-path": `url(#${id}-below)` }));
  svg.append(el("path", { class: "eval-line", d: line }));
  usable.forEach((p, i) => {
    const dot = el("circle", { class: "eval-dot", cx: coords[i][0], cy: coords[i][1], r: 2.6 });
    const value = p.score_text ?? (isDecided(p.score) ? (p.score > 0 ? "won" : "lost") : signed(p.score / perUnit));
    dot.append(el("title", {}, [document.createTextNode(`after move ${Math.ceil(p.ply / 2)} (ply ${p.ply}): ${value}`)]));
    svg.append(dot);
  });

  // Review marks, in rows under the plot.
  ordered.forEach((mark, i) => {
    const x = xOf(mark.ply);
    const y = plotBottom + EVAL.bottom + rows[i] * EVAL.lane + EVAL.lane / 2;
    const point = usable.find((p) => p.ply === mark.ply);
    if (point) svg.append(el("line", { class: "eval-guide", x1: x, y1: yOf(point), x2: x, y2: y - 7 }));
    const shape = mark.kind === "minor"
      ? el("rect", { class: `eval-mark ${mark.kind}`, x: x - 6, y: y - 6, width: 12, height: 12, rx: 2 })
      : el("circle", { class: `eval-mark ${mark.kind}`, cx: x, cy: y, r: 7 });
    const symbol = el("text", { class: "eval-mark-text", x, y: y + 3.5, "text-anchor": "middle" }, [document.createTextNode(mark.symbol)]);
    if (TOUCH_SCREEN.matches) { // too close together for fingers: the list of errors beside the chart selects them
      svg.append(el("g", { class: "eval-mark-drawn", "aria-hidden": "true" }, [shape, symbol]));
      return;
    }
    const button = el("g", { class: "eval-mark-button", role: "button", tabindex: "0", "aria-label": mark.label }, [
      el("title", {}, [document.createTextNode(mark.label)]), shape, symbol,
    ]);
    button.addEventListener("click", mark.onSelect);
    button.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        mark.onSelect();
      }
    });
    svg.append(button);
  });
}
