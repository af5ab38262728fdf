// Your games (/me/games): the games this browser played, a page at a time, filtered by game; export, a link that
// moves them to another browser, and forgetting them.
import { forgetYourGames, listYourGames, makeMoveLink } from "./api.js";
import { escapeHtml } from "./format.js";

const $ = (id) => document.getElementById(id);
const RESULTS = { won: "Won", lost: "Lost", drawn: "Drawn" };
const REVIEWS = { none: "not asked for", running: "running", cancelled: "cancelled", failed: "failed" };
let after = null;
let requests = 0; // the number of the last list asked for: an answer to an earlier one (another filter) is dropped

/** A date as the reader's locale writes it, with the time. */
const shown = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });

/** The review cell: the side's accuracy when the review is done ("accuracy 86.4 %"), else its status. */
function reviewCell(game) {
  const { review } = game;
  if (review.status !== "done") return `<a href="${game.url}#review-card">${escapeHtml(REVIEWS[review.status] ?? review.status)}</a>`;
  const figure = review.accuracy === null ? "done" : `accuracy ${review.accuracy} %`;
  return `<a href="${game.url}#review-card">${escapeHtml(figure)}</a>`;
}

function row(game) {
  const item = document.createElement("tr");
  const result = game.result ? RESULTS[game.result] : "Playing";
  const reason = game.reason ? ` <span class="hint">(${escapeHtml(game.reason)})</span>` : "";
  const analyse = game.analyse_url
    ? ` <a class="btn small" href="${escapeHtml(game.analyse_url)}" aria-label="Analyse the last position of this ${escapeHtml(game.title)} game">Analyse</a>`
    : "";
  item.innerHTML = `<td>${escapeHtml(shown(game.created_at))}</td><td>${escapeHtml(game.title)}</td>`
    + `<td>${escapeHtml(game.side)}</td><td>${escapeHtml(game.opponent)}</td>`
    + `<td class="result ${game.result ?? "playing"}">${escapeHtml(result)}${reason}</td>`
    + `<td>${Math.ceil(game.plies / 2)}</td><td>${reviewCell(game)}</td>`
    + `<td><a class="btn small" href="${game.url}" aria-label="Open this ${escapeHtml(game.title)} game">Open</a>${analyse}</td>`;
  return item;
}

async function load(more = false) {
  const filter = $("games-filter").value;
  const params = filter ? { game: filter } : {};
  if (more && after) params.after = after;
  $("games-status").textContent = "Loading your games…";
  requests += 1;
  const request = requests;
  try {
    const page = await listYourGames(params);
    if (request !== requests) return; // the filter changed meanwhile: a later answer draws the list
    if (!more) $("games-rows").replaceChildren();
    $("games-rows").append(...page.games.map(row));
    after = page.after;
    const count = $("games-rows").children.length;
    $("games-table").hidden = count === 0;
    $("games-more").hidden = !after;
    $("games-status").textContent = count === 0
      ? (filter ? "No game of this kind yet." : "No game yet: games you play in this browser are listed here.")
      : `${count} ${count === 1 ? "game" : "games"} shown${after ? "; older ones below" : ""}.`;
  } catch (error) {
    if (request === requests) $("games-status").textContent = error.message;
  }
}

$("games-filter").addEventListener("change", () => {
  const filter = $("games-filter").value;
  $("games-export").href = `/api/me/games/export${filter ? `?game=${encodeURIComponent(filter)}` : ""}`;
  load();
});
$("games-more").addEventListener("click", () => load(true));
$("games-move-link").addEventListener("click", async () => {
  try {
    const link = await makeMoveLink();
    $("move-link").hidden = false;
    $("move-link-url").value = new URL(link.url, window.location.href).href;
    $("move-link-url").select();
    $("tools-status").textContent = "The link is ready below.";
  } catch (error) {
    $("tools-status").textContent = error.message;
  }
});
$("games-forget").addEventListener("click", async () => {
  // A confirmation the browser draws: forgetting cannot be undone.
  if (!window.confirm("Forget every game of this browser? The games stay for their other players; this list empties.")) return;
  try {
    const answer = await forgetYourGames();
    $("tools-status").textContent = `Forgot ${answer.forgotten} ${answer.forgotten === 1 ? "game" : "games"}.`;
    load();
  } catch (error) {
    $("tools-status").textContent = error.message;
  }
});
load();
