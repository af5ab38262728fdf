// What two players of a friend game say to each other: the waiting panel before the friend arrives (the invitation
// link, copy, share, play on alone), the pending offers (draw, takeback, rematch) with Accept / Decline for the
// player they are made to, and the buttons to make them. The server decides everything (docs/protocol.md,
// "Offers between players"); this module only draws `state.offers` and sends the player's answers.

const WHAT = {
  draw: { offer: "offers a draw", mine: "Draw offered" },
  takeback: { offer: "asks to take back their last move", mine: "Takeback asked" },
  rematch: { offer: "offers a rematch", mine: "Rematch offered" },
};

export class Offers {
  /**
   * `elements`: {waiting, inviteField, copy, share, alone, banner}; `send(event, extra)` emits a Socket.IO event
   * of this game; `inviteUrl()` is the invitation link (null for a spectator); `notify(text, isError)` shows a toast.
   */
  constructor(elements, send, inviteUrl, notify) {
    this.el = elements;
    this.send = send;
    this.inviteUrl = inviteUrl;
    this.notify = notify;
    elements.copy.addEventListener("click", () => this.copy());
    elements.share.addEventListener("click", () => this.share());
    elements.alone.addEventListener("click", () => send("play_alone"));
    elements.share.hidden = typeof navigator.share !== "function";
  }

  /** Draw the waiting panel and the pending offers of `state` for `you` (a seat, or null for a spectator). */
  draw(state, you) {
    const player = you !== null && you !== undefined;
    const url = this.inviteUrl();
    this.el.waiting.hidden = !(player && state.waiting_for_opponent && url);
    if (!this.el.waiting.hidden) this.el.inviteField.value = url;
    const banner = this.el.banner;
    banner.replaceChildren();
    for (const [kind, by] of Object.entries(state.offers ?? {})) {
      if (by === null || by === undefined) continue;
      const line = document.createElement("p");
      line.className = "offer-line";
      line.dataset.kind = kind;
      const text = document.createElement("span");
      if (player && by === you) {
        text.textContent = `${WHAT[kind].mine}: waiting for ${state.players[1 - you]}.`;
        line.append(text, this.button("Withdraw", () => this.send("decline", { kind })));
      } else {
        text.textContent = `${state.players[by]} ${WHAT[kind].offer}.`;
        line.append(text);
        if (player) {
          line.append(this.button("Accept", () => this.send("offer", { kind }), "primary"),
            this.button("Decline", () => this.send("decline", { kind })));
        }
      }
      banner.append(line);
    }
    banner.hidden = banner.childElementCount === 0;
  }

  button(label, onClick, kind = "") {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `btn small ${kind}`.trim();
    button.textContent = label;
    button.addEventListener("click", onClick);
    return button;
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.el.inviteField.value);
      this.notify("Invitation link copied: send it to your friend.");
    } catch {
      this.el.inviteField.select();
      this.notify("Select the link and copy it to send it to your friend.");
    }
  }

  async share() {
    try {
      await navigator.share({ title: document.title, text: "Play a game with me", url: this.el.inviteField.value });
    } catch { /* the share sheet was closed */ }
  }
}
