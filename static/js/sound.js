// Sounds of a game, synthesised with the Web Audio API (no sound files): a move, a capture, a check, the engine's
// move, the end of the game, low time. Off until the person turns them on; the choice is kept in this browser, one
// for the games one plays and one for the games one watches, so a spectator hears nothing unless they asked.

const KEYS = { playing: "arena.sound", watching: "arena.sound.watching" };

/** Each sound as notes: [frequency in Hz, start in s, length in s, waveform, volume]. */
const SOUNDS = {
  move: [[520, 0, 0.07, "triangle", 0.25]],
  engine: [[392, 0, 0.09, "sine", 0.22]],
  capture: [[440, 0, 0.06, "square", 0.12], [294, 0.06, 0.09, "square", 0.12]],
  check: [[880, 0, 0.08, "triangle", 0.22], [880, 0.12, 0.08, "triangle", 0.22]],
  end: [[523, 0, 0.14, "triangle", 0.22], [659, 0.14, 0.14, "triangle", 0.22], [784, 0.28, 0.28, "triangle", 0.22]],
  lowtime: [[988, 0, 0.05, "sine", 0.2], [988, 0.1, 0.05, "sine", 0.2]],
};

export class Sound {
  /** `watching()` tells whether the page shows a game its visitor does not play in (then the spectator's choice). */
  constructor(watching) {
    this.watching = watching;
    this.context = null;
    this.unsaved = {}; // the choices of a browser that keeps no storage, by key, for this page
  }

  key() {
    return this.watching() ? KEYS.watching : KEYS.playing;
  }

  /** Whether sounds are on for this page's role. */
  get on() {
    try {
      return window.localStorage.getItem(this.key()) === "on";
    } catch {
      return this.unsaved[this.key()] === true;
    }
  }

  /** Turn sounds on or off for this page's role (a click: browsers start audio only on a person's gesture). */
  set(on) {
    try {
      window.localStorage.setItem(this.key(), on ? "on" : "off");
    } catch {
      this.unsaved[this.key()] = on;
    }
    if (on) this.play("move");
  }

  /** Play `kind` (a key of SOUNDS) if sounds are on. */
  play(kind) {
    if (!this.on || !SOUNDS[kind] || typeof window.AudioContext !== "function") return;
    this.context ??= new window.AudioContext();
    // A page nobody has clicked yet starts its audio suspended (the browsers' autoplay rule): it sounds once they do.
    if (this.context.state === "suspended") this.context.resume().catch(() => {});
    const start = this.context.currentTime;
    for (const [frequency, at, length, type, volume] of SOUNDS[kind]) {
      const oscillator = this.context.createOscillator();
      const gain = this.context.createGain();
      oscillator.type = type;
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(volume, start + at);
      gain.gain.exponentialRampToValueAtTime(0.001, start + at + length);
      oscillator.connect(gain).connect(this.context.destination);
      oscillator.start(start + at);
      oscillator.stop(start + at + length + 0.02);
    }
  }
}
