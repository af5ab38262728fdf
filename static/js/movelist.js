// The move list: the game's moves in pairs; clicking one shows the position after it (read-only).
import { escapeHtml } from "./format.js";

export class MoveList {
  /** `host` is the list element; `onSelect(ply)` is called with the ply chosen (1 = after the first move). */
  constructor(host, onSelect) {
    this.host = host;
    this.onSelect = onSelect;
    this.count = -1;
    host.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-ply]");
      if (button) this.onSelect(Number(button.dataset.ply));
    });
  }

  /** Draws `history` ([{ply, move, by, score_text}]) with `current` (a ply, or the last one when live) marked. */
  render(history, current, names) {
    if (history.length === 0) {
      this.host.innerHTML = '<span class="none">No moves yet.</span>';
      this.count = 0;
      return;
    }
    const cells = [];
    for (let i = 0; i < history.length; i += 2) {
      cells.push(`<span class="no" aria-hidden="true">${i / 2 + 1}.</span>`);
      for (const entry of history.slice(i, i + 2)) {
        const engineNote = entry.score_text ? ` (engine: ${entry.score_text})` : "";
        cells.push(`<button type="button" data-ply="${entry.ply}" aria-current="${entry.ply === current}"`
          + ` title="${escapeHtml(`${names[entry.by] ?? ""} ${entry.move}${engineNote}`)}"`
          + ` aria-label="Move ${entry.ply}: ${escapeHtml(entry.move)}, show this position">${escapeHtml(entry.move)}</button>`);
      }
      if (i + 1 >= history.length) cells.push("<span></span>");
    }
    this.host.innerHTML = cells.join("");
    if (history.length !== this.count) {
      this.host.scrollTop = this.host.scrollHeight;
      this.count = history.length;
    }
  }
}
