// The tree of the last search (tic-tac-toe and Nim), drawn left to right as SVG. Each recorded node is
// {move, alpha, beta, score, depth, children: [...], pruned: [move texts]}; pruned moves (never searched because
// of a cutoff) are drawn as cut branches. Click a node to open or close it; hover, focus or tap it for its window.
import { el } from "./boards/svg.js";
import { formatCount, isDecided, WIN } from "./format.js";
import { TOUCH_SCREEN } from "./touch.js";

const COL = 120;
const ROW = TOUCH_SCREEN.matches ? 48 : 26; // a node's target is 4 px less tall: 44 px on touch screens
const MARGIN = 24;
const RADIUS = 6;
const VISIBLE_AT_START = 48;

/** A bound or score as text: ±∞ beyond any result, "win in N" / "loss in N" for decided ones, else the number. */
function boundText(value) {
  if (value === null || value === undefined) return "?";
  if (value >= WIN) return "+∞";
  if (value <= -WIN) return "−∞";
  if (isDecided(value)) {
    const plies = WIN - Math.abs(value);
    if (plies === 0) return value > 0 ? "won" : "lost";
    return value > 0 ? `win in ${Math.ceil(plies / 2)}` : `loss in ${Math.floor(plies / 2)}`;
  }
  return value > 0 ? `+${value}` : String(value);
}

/** A node's score and window from the root side's point of view (the engine's): negated at odd depths. */
function rootView(node, depth) {
  const sign = depth % 2 ? -1 : 1;
  const flip = (v) => (v === null || v === undefined ? v : sign * v);
  return sign > 0
    ? { score: node.score, alpha: node.alpha, beta: node.beta }
    : { score: flip(node.score), alpha: flip(node.beta), beta: flip(node.alpha) };
}

/** What a node's score proves, from its window (root side's view): "≤ x" when it fell to or below alpha (a cutoff
 * below refuted it: at most x), "≥ x" when it reached beta (at least x), else the exact x. */
function claimText(view) {
  const text = boundText(view.score);
  if (!Number.isFinite(view.score)) return text;
  if (Number.isFinite(view.alpha) && view.score <= view.alpha) return `≤ ${text}`;
  if (Number.isFinite(view.beta) && view.score >= view.beta) return `≥ ${text}`;
  return text;
}

/** What a move searched twice at one node is, each time (principal-variation search). */
const PASS_TEXT = {
  probe: "; a null-window probe: only whether the move beats the best so far",
  "re-search": "; the re-search with the full window, after the probe found the move better",
};

/** Estimated width in SVG units of a label in the 11 px monospace font. */
const labelWidth = (text) => text.length * 6.7;

function walk(node, visit, depth = 0) {
  visit(node, depth);
  for (const child of node.children ?? []) walk(child, visit, depth + 1);
}

export class SearchTree {
  /** `host` is the scrolling box the SVG goes in; `summary` an element for the node counts. */
  constructor(host, summary) {
    this.host = host;
    this.summary = summary;
    this.tree = null;
    this.collapsed = new Set();
    this.tip = document.createElement("div");
    this.tip.className = "tree-tip";
    this.tip.hidden = true;
  }

  /** Shows a new tree, opened breadth-first as far as a screenful of rows allows; `last` says whether it is the
   * search's last iteration (else an earlier one, picked with the panel's slider). */
  show(tree, last = true) {
    this.tree = tree;
    this.collapsed = new Set();
    let nodes = 0;
    let cut = 0;
    walk(tree, (node) => {
      nodes += 1;
      cut += node.pruned?.length ?? 0;
      if (node.children?.length) this.collapsed.add(node);
    });
    const capped = tree.kept_depth !== undefined ? ` (capped: the top ${tree.kept_depth} levels kept)`
      : tree.truncated ? " (capped)" : "";
    this.summary.textContent = `${last ? "The last iteration" : "An earlier iteration"}, depth ${tree.depth}`
      + ` · ${formatCount(nodes)} nodes recorded${capped}`
      + ` · ${formatCount(cut)} ${cut === 1 ? "move" : "moves"} pruned`;
    let frontier = [tree];
    let rows = 1;
    while (frontier.length) {
      const next = [];
      for (const node of frontier) {
        const extra = (node.children?.length ?? 0) + (node.pruned?.length ?? 0) - 1;
        if (!node.children?.length || rows + extra > VISIBLE_AT_START) continue;
        this.collapsed.delete(node);
        rows += Math.max(0, extra);
        next.push(...node.children);
      }
      frontier = next;
    }
    this.draw();
  }

  expandAll() {
    this.collapsed.clear();
    this.draw();
  }

  collapseAll() {
    if (!this.tree) return;
    walk(this.tree, (node) => {
      if (node.children?.length && node !== this.tree) this.collapsed.add(node);
    });
    this.collapsed.delete(this.tree);
    this.draw();
  }

  draw() {
    if (!this.tree) return;
    let row = 0;
    let deepest = 0;
    const placed = [];
    const place = (node, depth) => {
      deepest = Math.max(deepest, depth);
      const open = !this.collapsed.has(node);
      const kids = [];
      if (open) {
        const children = node.children ?? [];
        children.forEach((child, index) => {
          const kid = place(child, depth + 1);
          // A move searched twice in a row at one node: principal-variation search first asked with a null window
          // whether it beats the best so far (the probe), and since it did, searched it again with the full window.
          if (index > 0 && children[index - 1].move === child.move) {
            const probe = kids.at(-1);
            probe.pass = "probe";
            probe.label += " probe";
            kid.pass = "re-search";
            kid.label += " re-search";
          }
          kids.push(kid);
        });
        for (const move of node.pruned ?? []) {
          kids.push({ cut: move, x: MARGIN + (depth + 1) * COL, y: MARGIN + row * ROW });
          deepest = Math.max(deepest, depth + 1);
          row += 1;
        }
      }
      let y;
      if (kids.length) y = kids[0].y;
      else {
        y = MARGIN + row * ROW;
        row += 1;
      }
      const item = { node, depth, x: MARGIN + depth * COL, y, kids, open, view: rootView(node, depth) };
      item.label = `${node.move ?? "root"}  ${claimText(item.view)}`;
      placed.push(item);
      return item;
    };
    place(this.tree, 0);
    const width = MARGIN * 2 + deepest * COL + 110;
    const height = MARGIN + row * ROW;
    const svg = el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "tree", "aria-label": "Search tree" });
    const edges = el("g");
    const bestEdges = el("g"); // drawn over the others, whose trunks they share
    const nodes = el("g");
    svg.append(edges, bestEdges, nodes);
    for (const item of placed) {
      const { node } = item;
      // The first child with the node's score, a probe's re-search rather than the probe.
      const children = node.children ?? [];
      const bestChild = children.find((c, i) => Number.isFinite(c.score) && c.score === -node.score
        && children[i + 1]?.move !== c.move);
      for (const kid of item.kids) {
        // An elbow: along from the parent's label, down a trunk shared by its children, along to the child. It
        // stays readable however far down the child is drawn (a fully opened tree).
        const start = item.x + RADIUS + 8 + labelWidth(item.label);
        const trunk = Math.min(start + 12, kid.x - 24);
        const end = kid.cut === undefined ? kid.x - RADIUS : kid.x - 20;
        const d = `M${start} ${item.y}H${trunk}V${kid.y}H${end}`;
        if (kid.cut !== undefined) {
          edges.append(el("path", { class: "tedge cut", d }));
          const label = el("g", { class: "tcut" });
          const cx = kid.x - 14;
          label.append(el("path", { class: "cut-mark", d: `M${cx - 4} ${kid.y - 4}l8 8m0 -8l-8 8` }));
          label.append(el("text", { x: kid.x - 4, y: kid.y + 4 }, [document.createTextNode(kid.cut)]));
          label.append(el("title", {}, [document.createTextNode(`${kid.cut}: pruned, never searched (a cutoff made it unnecessary)`)]));
          nodes.append(label);
        } else {
          if (kid.node === bestChild) bestEdges.append(el("path", { class: "tedge best", d }));
          else edges.append(el("path", { class: "tedge", d }));
          if (kid.node === bestChild) kid.best = true;
        }
      }
    }
    for (const item of placed) nodes.append(this.drawNode(item));
    this.host.replaceChildren(svg, this.tip);
  }

  /** Puts the tip at (x, y) of the drawing, moved left or above as needed to stay inside the visible box. */
  placeTip(x, y) {
    const box = this.host;
    const right = box.scrollLeft + box.clientWidth - 8;
    const bottom = box.scrollTop + box.clientHeight - 8;
    const left = Math.max(box.scrollLeft + 8, Math.min(x, right - this.tip.offsetWidth));
    const top = y + this.tip.offsetHeight > bottom ? y - 20 - this.tip.offsetHeight : y;
    this.tip.style.left = `${left}px`;
    this.tip.style.top = `${Math.max(box.scrollTop + 8, top)}px`;
  }

  drawNode(item) {
    const { node } = item;
    const hasKids = (node.children?.length ?? 0) > 0 || (node.pruned?.length ?? 0) > 0;
    const g = el("g", {
      class: `tnode${item.best || node === this.tree ? " best" : ""}${hasKids && !item.open ? " collapsed" : ""}`,
      tabindex: 0, role: "treeitem", "aria-expanded": hasKids ? String(item.open) : null,
      // Its name is its visible text (move, score); the window is its description.
      "aria-description": `score ${claimText(item.view)}, searched with the window`
        + ` ${boundText(item.view.alpha)} to ${boundText(item.view.beta)}${PASS_TEXT[item.pass] ?? ""}`,
    });
    g.append(el("rect", {
      class: "hit", x: item.x - RADIUS - 3, y: item.y - (ROW - 4) / 2, width: Math.max(44, labelWidth(item.label) + 2 * RADIUS + 14),
      height: ROW - 4, rx: 6,
    }));
    g.append(el("circle", { cx: item.x, cy: item.y, r: RADIUS }));
    const text = el("text", { x: item.x + RADIUS + 5, y: item.y + 4 });
    const move = el("tspan", { "font-weight": 700 }, [document.createTextNode(`${node.move ?? "root"} `)]);
    const score = el("tspan", { class: "score", dx: 2 }, [document.createTextNode(claimText(item.view))]);
    text.append(move, score);
    if (item.pass) {
      text.append(el("tspan", { class: "pass", dx: 4 }, [document.createTextNode(item.pass)]));
      g.classList.add(item.pass === "probe" ? "probe" : "research");
    }
    g.append(text);
    if (hasKids && !item.open) {
      const hidden = (node.children?.length ?? 0) + (node.pruned?.length ?? 0);
      g.append(el("text", { class: "toggle", x: item.x + RADIUS + 5, y: item.y + 16 }, [document.createTextNode(`+${hidden} hidden`)]));
    }
    const showTip = () => {
      this.tip.textContent = `${node.move ?? "root"} · ${node.depth ?? "?"} plies left · window`
        + ` [${boundText(item.view.alpha)}, ${boundText(item.view.beta)}] · score ${claimText(item.view)}`;
      this.tip.hidden = false;
      this.placeTip(item.x + 14, item.y + 10);
    };
    const hideTip = () => { this.tip.hidden = true; };
    const toggle = () => {
      if (!hasKids) return;
      if (this.collapsed.has(node)) this.collapsed.delete(node);
      else this.collapsed.add(node);
      this.draw();
    };
    g.addEventListener("pointerenter", showTip);
    g.addEventListener("pointerleave", hideTip);
    g.addEventListener("focus", showTip);
    g.addEventListener("blur", hideTip);
    g.addEventListener("click", () => { toggle(); showTip(); });
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        toggle();
      }
    });
    return g;
  }
}
