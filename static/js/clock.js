// The game clocks as the server last sent them (docs/protocol.md, "Clocks"): the running one counts down in the
// page from the moment its state arrived, and every new state sets both again. The server alone decides a flag.

const LOW_MS = 10_000;
const TICK_MS = 100;

/** "4:05", "0:09.4" below ten seconds, "1:02:03" from an hour. */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  const tenths = Math.floor(clamped / 100) % 10;
  const totalSeconds = Math.floor(clamped / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor(totalSeconds / 60) % 60;
  const seconds = String(totalSeconds % 60).padStart(2, "0");
  if (hours) return `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
  return clamped < LOW_MS ? `${minutes}:${seconds}.${tenths}` : `${minutes}:${seconds}`;
}

/** Spoken form for screen readers: "2 minutes 5 seconds left". */
function spoken(ms) {
  const seconds = Math.ceil(Math.max(0, ms) / 1000);
  const minutes = Math.floor(seconds / 60);
  const parts = [];
  if (minutes) parts.push(`${minutes} ${minutes === 1 ? "minute" : "minutes"}`);
  if (seconds % 60 || !minutes) parts.push(`${seconds % 60} ${seconds % 60 === 1 ? "second" : "seconds"}`);
  return `${parts.join(" ")} left`;
}

export class Clocks {
  /** `elements[seat]` is the element showing that seat's clock; `onLow(seat)`, if given, is called once when a
   * running clock falls under ten seconds. */
  constructor(elements, onLow = null) {
    this.elements = elements;
    this.onLow = onLow;
    this.low = new Set(); // the seats already told of: under ten seconds since
    this.clock = null;
    this.receivedAt = 0;
    this.timer = null;
  }

  /** Take the server's clocks of a new state (null: the game has no clock). */
  update(clock, names) {
    this.clock = clock;
    this.names = names;
    this.receivedAt = performance.now();
    for (const element of this.elements) element.hidden = !clock;
    clearInterval(this.timer);
    this.timer = null;
    if (!clock) return;
    this.draw(true);
    if (clock.running !== null) this.timer = setInterval(() => this.draw(false), TICK_MS);
  }

  /** Each seat's time left now, as far as the page can tell. */
  leftNow() {
    const left = [...this.clock.left_ms];
    if (this.clock.running !== null) left[this.clock.running] -= performance.now() - this.receivedAt;
    return left.map((ms) => Math.max(0, ms));
  }

  draw(labels) {
    const left = this.leftNow();
    left.forEach((ms, seat) => {
      if (ms >= LOW_MS) this.low.delete(seat);
      else if (this.clock.running === seat && !this.low.has(seat)) {
        this.low.add(seat);
        this.onLow?.(seat);
      }
    });
    this.elements.forEach((element, seat) => {
      element.textContent = formatClock(left[seat]);
      element.classList.toggle("running", this.clock.running === seat);
      element.classList.toggle("low", left[seat] < LOW_MS);
      if (labels) element.setAttribute("aria-label", `${this.names[seat]}'s clock: ${spoken(left[seat])}`);
    });
  }
}
