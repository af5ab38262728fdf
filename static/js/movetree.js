// The analysis board's tree of moves: every line the person played from the root, each move a node. A node's first
// child continues its main line; the others are variations. The tree holds no rules: moves and their texts come
// from the server (`analysis_node`).

export class MoveTree {
  constructor() {
    this.nextId = 0;
    this.byId = new Map();
    this.root = this.make(null, null, null);
  }

  make(parent, move, shown) {
    const node = { id: this.nextId, move, shown, parent, children: [] };
    this.nextId += 1;
    this.byId.set(node.id, node);
    return node;
  }

  /** The node of id `id` (a number, or its text), or undefined. */
  get(id) {
    return this.byId.get(Number(id));
  }

  /** The child of `node` reached by `move`, made (as the last variation) if it is new. */
  play(node, move, shown) {
    const known = node.children.find((child) => child.move === move);
    if (known) return known;
    const child = this.make(node, move, shown);
    node.children.push(child);
    return child;
  }

  /** The node reached from the root by `moves` (with `shown` their texts), made where missing. */
  follow(moves, shown) {
    let node = this.root;
    moves.forEach((move, i) => {
      node = this.play(node, move, shown[i] ?? move);
    });
    return node;
  }

  /** The nodes from the root's first move to `node`, in order. */
  line(node) {
    const nodes = [];
    for (let walk = node; walk.parent; walk = walk.parent) nodes.push(walk);
    return nodes.reverse();
  }

  /** The moves from the root to `node`. */
  path(node) {
    return this.line(node).map((step) => step.move);
  }

  /** How many moves `node` is from the root. */
  depth(node) {
    let depth = 0;
    for (let walk = node; walk.parent; walk = walk.parent) depth += 1;
    return depth;
  }

  /** Whether `node` is on the main line (every move the first child of its parent). */
  isMain(node) {
    for (let walk = node; walk.parent; walk = walk.parent) if (walk.parent.children[0] !== walk) return false;
    return true;
  }

  /** The last node of the line `node` is on, following first children. */
  end(node) {
    let walk = node;
    while (walk.children.length) [walk] = walk.children;
    return walk;
  }

  /** The variation beside `node` at its parent, `step` away (-1 the one before, 1 the one after), or null. */
  sibling(node, step) {
    if (!node.parent) return null;
    const siblings = node.parent.children;
    return siblings[siblings.indexOf(node) + step] ?? null;
  }

  /** Makes the variation `node` is in one step more important: the move where it leaves its parent's line moves
   * one place forward among its siblings (from the second place to the first, it becomes the line's continuation). */
  promote(node) {
    for (let walk = node; walk.parent; walk = walk.parent) {
      const siblings = walk.parent.children;
      const index = siblings.indexOf(walk);
      if (index > 0) {
        siblings.splice(index, 1);
        siblings.splice(index - 1, 0, walk);
        return true;
      }
    }
    return false;
  }

  /** Removes `node` and every move after it; returns its parent (null for the root, which stays). */
  remove(node) {
    if (!node.parent) return null;
    const siblings = node.parent.children;
    siblings.splice(siblings.indexOf(node), 1);
    const forget = (gone) => {
      this.byId.delete(gone.id);
      gone.children.forEach(forget);
    };
    forget(node);
    return node.parent;
  }

  /** A JSON-able copy of the tree: `[move, shown, children]` per node under the root. */
  save() {
    const pack = (node) => node.children.map((child) => [child.move, child.shown, pack(child)]);
    return pack(this.root);
  }

  /** A tree made from what `save` gave (anything else gives an empty tree). */
  static load(saved) {
    const tree = new MoveTree();
    const unpack = (node, children) => {
      if (!Array.isArray(children)) return;
      for (const entry of children) {
        if (!Array.isArray(entry) || typeof entry[0] !== "string" || typeof entry[1] !== "string") continue;
        unpack(tree.play(node, entry[0], entry[1]), entry[2]);
      }
    };
    unpack(tree.root, saved);
    return tree;
  }

  /**
   * The moves under the root in reading order, numbered from `startPly` (half-moves before the root: odd when the
   * second player moves first): `{number: "3."}` or `{number: "3..."}` before a first player's move and before a
   * second player's that opens a line or follows a variation, `{node, ply}` for each move, and `{open: true}` /
   * `{close: true}` around each variation, which follows the move it replaces.
   */
  tokens(startPly = 0) {
    const tokens = [];
    const number = (ply) => `${Math.floor(ply / 2) + 1}${ply % 2 === 0 ? "." : "..."}`;
    const write = (node, ply, forceNumber) => {
      // The line from `node` on: its first child, the variations beside that child, then the rest of the line.
      let walk = node;
      let current = ply;
      let needNumber = forceNumber;
      while (walk.children.length) {
        const [main, ...others] = walk.children;
        if (current % 2 === 0 || needNumber) tokens.push({ number: number(current) });
        tokens.push({ node: main, ply: current });
        for (const other of others) {
          tokens.push({ open: true }, { number: number(current) }, { node: other, ply: current });
          write(other, current + 1, false);
          tokens.push({ close: true });
        }
        needNumber = others.length > 0;
        walk = main;
        current += 1;
      }
    };
    write(this.root, startPly, true);
    return tokens;
  }

  /** The moves under the root as a PGN movetext (`tokens`): variations in parentheses. */
  movetext(startPly = 0) {
    const parts = this.tokens(startPly).map((token) => token.number ?? token.node?.shown ?? (token.open ? "(" : ")"));
    return parts.join(" ").replaceAll("( ", "(").replaceAll(" )", ")");
  }
}
