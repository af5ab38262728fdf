// The move list: the game's moves in pairs; clicking one shows the position after it (read-only).
import { escapeHtml } from "./format.js";

/**
 * Chess: the SAN of each history entry and the number of half-moves before the first one (the start position's
 * move number and side, plus the moves of an imported game, which are in `view.san` but not in `history`).
 */
export function moveLabels(state) {
  const san = state.view?.san;
  const history = state.history ?? [];
  if (!Array.isArray(san) || san.length < history.length) return {};
  const before = san.length - history.length;
  const [, side = "w", , , , fullmove = "1"] = (state.view.start_fen ?? "").split(" ");
  const startPly = (Number(fullmove) - 1) * 2 + (side === "b" ? 1 : 0) + before;
  return { labels: san.slice(before), startPly };
}

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

  /**
   * Draws `history` ([{ply, move, by, score_text}]) with `current` (a ply, or the last one when live) marked.
   * `labels` (optional) are the texts shown for the moves, one per history entry (chess: SAN; default: the
   * moves themselves); `startPly` (optional) is how many half-moves were played before the first entry, so the
   * numbering goes on from a set-up position (odd: the first entry is the second player's, shown as "N. …").
   */
  render(history, current, names, { labels = null, startPly = 0 } = {}) {
    if (history.length === 0) {
      this.host.innerHTML = '<span class="none">No moves yet.</span>';
      this.count = 0;
      return;
    }
    const cells = [];
    for (let i = -(startPly % 2); i < history.length; i += 2) {
      cells.push(`<span class="no" aria-hidden="true">${(startPly + i) / 2 + 1}.</span>`);
      for (let j = i; j < i + 2; j += 1) {
        if (j < 0) cells.push('<span class="skip" aria-hidden="true">…</span>');
        else if (j < history.length) {
          const number = Math.floor((startPly + i) / 2) + 1;
          cells.push(this.cell(history[j], labels?.[j] ?? history[j].move, current, names, number));
        }
        else cells.push("<span></span>");
      }
    }
    this.host.innerHTML = cells.join("");
    if (history.length !== this.count) {
      this.host.scrollTop = this.host.scrollHeight;
      this.count = history.length;
    }
  }

  /** A move's button: `number` is its move number as the list shows it, said with its player. */
  cell(entry, label, current, names, number) {
    const engineNote = entry.score_text ? ` (engine: ${entry.score_text})` : "";
    const who = names[entry.by] ?? "";
    return `<button type="button" data-ply="${entry.ply}" aria-current="${entry.ply === current}"`
      + ` title="${escapeHtml(`${who} ${label}${engineNote}`)}"`
      + ` aria-label="Move ${number}, ${escapeHtml(who)}: ${escapeHtml(label)}, show this position">${escapeHtml(label)}</button>`;
  }
}
