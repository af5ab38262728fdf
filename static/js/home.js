// The home page: choose a game, its options, an opponent and a side; "Play" creates the game and opens it.
// Below, the games being played now, refreshed every few seconds.
import { STOP_KEY_PREFIX, createGame, listGames } from "./api.js";
import { escapeHtml } from "./format.js";

const form = document.getElementById("new-game");
const cards = [...document.querySelectorAll(".game-card")];
const errorBox = document.getElementById("form-error");
const REFRESH_MS = 5000;
const CHOICE_KEY = "arena.home.choice";

const selectedGame = () => cards.find((card) => card.getAttribute("aria-pressed") === "true")?.dataset.game;
const value = (name) => form.elements[name].value;

function selectGame(name) {
  for (const card of cards) card.setAttribute("aria-pressed", String(card.dataset.game === name));
  const card = cards.find((c) => c.dataset.game === name);
  const players = JSON.parse(card?.dataset.players ?? '["First", "Second"]');
  for (const el of document.querySelectorAll("[data-player-name]")) el.textContent = players[Number(el.dataset.playerName)];
  for (const row of document.querySelectorAll("[data-options-for]")) row.hidden = row.dataset.optionsFor !== name;
  errorBox.textContent = "";
  describeLevel();
  showStyle();
}

/** The engine's style (chess personalities) is offered whenever an engine plays chess. */
function showStyle() {
  document.getElementById("style-row").hidden = selectedGame() !== "chess" || value("opponent") === "friend";
}

/** The chosen personality for the opponent object, if the game has them. A custom engine other than alpha-beta
 * gets none unless one other than the default was asked for (the server then says why it cannot). */
function style(algorithm = "alphabeta") {
  if (selectedGame() !== "chess") return {};
  const personality = value("personality");
  return algorithm === "alphabeta" || personality !== "balanced" ? { personality } : {};
}

/** What a level does in the selected game, from the level table on its card. */
function describeLevel() {
  const card = cards.find((c) => c.getAttribute("aria-pressed") === "true");
  const levels = JSON.parse(card?.dataset.levels ?? "[]");
  const level = levels[Number(value("level")) - 1];
  const hint = document.getElementById("level-hint");
  if (!level) return;
  const reach = level.depth ? `searches ${level.depth} ${level.depth === 1 ? "ply" : "plies"} deep` : "searches as deep as it can";
  const time = level.time ? `, at most ${level.time} s a move` : "";
  const choice = level.margin ? "sometimes picks a slightly weaker move" : "always plays the best move it finds";
  if (level.oracle?.endsWith("no search")) hint.textContent = `The engine ${level.oracle}.`;
  else if (level.oracle) hint.textContent = `The engine ${level.oracle}. When it searches, it ${reach}${time}; it ${choice}.`;
  else hint.textContent = `The engine ${reach}${time}; it ${choice}.`;
}

function showOpponent() {
  const kind = value("opponent");
  for (const el of document.querySelectorAll("[data-opponent]")) el.hidden = el.dataset.opponent !== kind;
  document.querySelector("[data-side-row]").hidden = kind === "engines";
  document.querySelector("[data-takeback]").hidden = !(kind === "engine" || kind === "custom");
  document.querySelector("[data-clock-row]").hidden = kind === "engines"; // engines are paced, not timed
  showStyle();
}

/** The game's own options from the form, or throws an Error whose message says what is wrong. */
function gameOptions(game) {
  if (game === "wolves") return { rabbit: value("rabbit") };
  if (game !== "nim") return {};
  const piles = value("piles").split(",").map((p) => p.trim()).filter(Boolean);
  if (piles.length === 0 || piles.length > 8 || !piles.every((p) => /^\d{1,2}$/.test(p) && Number(p) > 0)) {
    throw new Error("Piles: write 1 to 8 pile sizes from 1 to 99, separated by commas, such as 3,4,5.");
  }
  const maxTake = value("max_take").trim();
  if (maxTake && !(/^\d{1,2}$/.test(maxTake) && Number(maxTake) >= 1)) {
    throw new Error("Most per take: leave it empty for no limit, or write a number from 1 to 99.");
  }
  return { piles: piles.map(Number), max_take: maxTake ? Number(maxTake) : null, misere: form.elements.misere.checked };
}

function opponent() {
  switch (value("opponent")) {
    case "engine":
      return { type: "engine", level: Number(value("level")), ...style() };
    case "custom": {
      const depth = Number(value("depth"));
      const time = Number(value("time"));
      const deepest = Number(form.elements.depth.max); // the server's limit, from its API description
      if (!Number.isInteger(depth) || depth < 1 || depth > deepest) {
        throw new Error(`Depth: a whole number from 1 to ${deepest}.`);
      }
      if (!(time >= 0.05 && time <= 60)) throw new Error("Time: from 0.05 to 60 seconds.");
      return { type: "engine", depth, time, algorithm: value("algorithm"), ...style(value("algorithm")) };
    }
    case "engines": {
      const { personality } = style();
      const both = personality ? { personalities: [personality, personality] } : {};
      return { type: "engines", levels: [Number(value("level0")), Number(value("level1"))], ...both };
    }
    default:
      return { type: "friend", open: form.elements.open.checked };
  }
}

/** The chosen time control for the request's `clock`: null, or {minutes, increment} (custom values checked). */
function clock() {
  const choice = form.elements.clock.value;
  if (!choice) return null;
  if (choice !== "custom") {
    const [minutes, increment] = choice.split("+").map(Number);
    return { minutes, increment };
  }
  const minutes = Number(form.elements.clock_minutes.value);
  const increment = Number(form.elements.clock_increment.value);
  if (!(minutes >= 0.25 && minutes <= 180)) throw new Error("Clock minutes must be from 0.25 to 180.");
  if (!(Number.isInteger(increment) && increment >= 0 && increment <= 60)) {
    throw new Error("The clock increment must be a whole number of seconds from 0 to 60.");
  }
  return { minutes, increment };
}

async function play(event) {
  event.preventDefault();
  errorBox.textContent = "";
  const button = document.getElementById("play");
  let payload;
  try {
    const game = selectedGame();
    const side = value("side");
    const options = gameOptions(game);
    const against = opponent();
    if (against.type === "engine") options.takeback = form.elements.takeback.checked;
    if (form.elements.hints.checked) options.hints = true;
    payload = { game, options, opponent: against, side: side === "random" ? "random" : Number(side) };
    const setup = game === "chess" ? form.elements.setup.value.trim() : "";
    if (setup) payload.setup = setup;
    const timeControl = against.type === "engines" ? null : clock();
    if (timeControl) payload.clock = timeControl;
  } catch (error) {
    errorBox.textContent = error.message;
    return;
  }
  button.disabled = true;
  button.textContent = "Creating…";
  try {
    const created = await createGame(payload);
    try {
      localStorage.setItem(CHOICE_KEY, JSON.stringify({ game: payload.game, opponent: value("opponent") }));
      if (created.stop_code) localStorage.setItem(`${STOP_KEY_PREFIX}${created.id}`, created.stop_code);
    } catch { /* storage refused: nothing to remember */ }
    window.location.assign(created.url);
  } catch (error) {
    errorBox.textContent = error.message;
    button.disabled = false;
    button.textContent = "Play";
  }
}

function describeOpponent(summary) {
  const opp = summary.opponent ?? {};
  if (opp.type === "engines") return `engine ${opp.levels?.[0]} vs engine ${opp.levels?.[1]}`;
  if (opp.type === "friend") return summary.free_seat ? "open seat: anyone may join" : "between friends";
  const styled = opp.personality ? `, ${opp.personality}` : "";
  if (opp.level) return `against engine level ${opp.level}${styled}`;
  const limits = [opp.depth ? `depth ${opp.depth}` : null, opp.time ? `${opp.time} s` : null].filter(Boolean);
  if (opp.personality) limits.push(opp.personality);
  return `against ${opp.algorithm ?? "alphabeta"} engine${limits.length ? ` (${limits.join(", ")})` : ""}`;
}

async function refreshLive() {
  const list = document.getElementById("live-list");
  try {
    const { games } = await listGames();
    if (games.length === 0) {
      list.innerHTML = '<p class="empty">No game is being played right now. Start one above.</p>';
    } else {
      list.innerHTML = games.map((g) => {
        const thumb = document.querySelector(`#thumbs`).content.querySelector(`[data-thumb="${CSS.escape(g.game)}"]`);
        return `<a class="card live-item" href="${escapeHtml(g.url)}">${thumb ? thumb.innerHTML : ""}
          <span class="meta"><strong>${escapeHtml(g.title)}</strong>
          <span class="muted">${escapeHtml(describeOpponent(g))}</span>
          <span class="hint">move ${g.ply + 1} · ${g.watchers} watching${g.free_seat ? " · seat free" : ""}</span></span></a>`;
      }).join("");
    }
    document.getElementById("live-updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    list.innerHTML = `<p class="empty">Could not load the games being played: ${escapeHtml(error.message)}</p>`;
  }
}

for (const card of cards) card.addEventListener("click", () => selectGame(card.dataset.game));
for (const radio of form.elements.opponent) radio.addEventListener("change", showOpponent);
form.elements.clock.addEventListener("change", () => {
  document.querySelector("[data-clock-custom]").hidden = form.elements.clock.value !== "custom";
});
for (const output of document.querySelectorAll("output[data-for]")) {
  const input = form.elements[output.dataset.for];
  input.addEventListener("input", () => {
    output.textContent = input.value;
    describeLevel();
  });
}
form.addEventListener("submit", play);

let remembered = null;
try {
  remembered = JSON.parse(localStorage.getItem(CHOICE_KEY) ?? "null");
} catch { /* nothing remembered */ }
const initial = cards.find((c) => c.dataset.game === remembered?.game)?.dataset.game ?? cards[0]?.dataset.game;
if (remembered?.opponent && form.querySelector(`input[name="opponent"][value="${CSS.escape(remembered.opponent)}"]`)) {
  form.querySelector(`input[name="opponent"][value="${CSS.escape(remembered.opponent)}"]`).checked = true;
}
if (initial) selectGame(initial);
showOpponent();
refreshLive();
window.setInterval(() => {
  if (!document.hidden) refreshLive();
}, REFRESH_MS);

