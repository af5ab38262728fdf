// Small helpers shared by the board modules, the charts and the tree view: building SVG elements.

export const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Creates an SVG element with attributes (`class` allowed) and optional children; null attributes are skipped.
 * `style` is applied through the CSSOM (`node.style`), which the pages' Content-Security-Policy allows, where a
 * style attribute would be refused.
 */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "style") node.style.cssText = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** Creates a root <svg> with a viewBox of `width` x `height` and an accessible label. */
export function rootSvg(width, height, label) {
  return el("svg", { viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": label });
}

/** Makes `node` a keyboard-operable button that calls `action` on click, Enter or Space. */
export function makeButton(node, label, action) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node.addEventListener("click", action);
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      action(event);
    }
  });
}
