// Fallback board for a game that has no board module yet: the position as text and the legal moves as buttons.
// Interface: see README.md in this folder.

export function createBoard(container, { onMove }) {
  const root = document.createElement("div");
  root.className = "generic-board";
  container.append(root);

  function render(view, { interactive = false } = {}) {
    const position = document.createElement("pre");
    position.className = "mono generic-position";
    position.textContent = view.text ?? view.fen ?? Object.entries(view)
      .filter(([key]) => !["legal", "targets", "to_move"].includes(key))
      .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
      .join("\n");
    const moves = document.createElement("div");
    moves.className = "generic-moves";
    if (interactive) {
      for (const move of view.legal ?? []) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "btn small mono";
        button.textContent = move;
        button.addEventListener("click", () => onMove(move));
        moves.append(button);
      }
    }
    root.replaceChildren(position, moves);
  }

  return {
    render,
    destroy() {
      root.remove();
    },
  };
}
