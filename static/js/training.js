// Your training (/me/training): the exercises due now (GET /api/me/training), the success rate per game, and the
// accuracy of your side over your reviewed games as a chart with its values in a table.
import { getTraining } from "./api.js";
import { escapeHtml } from "./format.js";

const $ = (id) => document.getElementById(id);
const VERDICTS = {
  "threw away a win": "threw away a win", "threw away a draw": "threw away a draw", mistake: "a mistake", blunder: "a blunder",
  "kept the result": "kept the result, far more slowly",
};

/** The move number of ply `ply` ("12." or "12…"), as the move lists number it from the start. */
const moveNumber = (ply) => `${Math.floor((ply - 1) / 2) + 1}${ply % 2 ? "." : "…"}`;

function drawDue(due, waiting) {
  const later = waiting ? ` ${waiting} ${waiting === 1 ? "comes" : "come"} back later.` : "";
  $("training-status").textContent = due.length
    ? `${due.length} ${due.length === 1 ? "exercise is" : "exercises are"} due.${later}`
    : `Nothing is due now.${later}`;
  $("due-list").replaceChildren(...due.map((item) => {
    const entry = document.createElement("li");
    const text = `${item.title}, ${moveNumber(item.ply)} ${item.move_shown}: ${VERDICTS[item.verdict] ?? item.verdict}`
      + (item.tries ? ` · solved ${item.solved} of ${item.tries}` : "");
    entry.append(text, " ");
    if (item.url) {
      const link = document.createElement("a");
      link.className = "btn small";
      link.href = item.url;
      link.textContent = "Solve";
      link.setAttribute("aria-label", `Solve: ${text}`);
      entry.append(link);
    }
    return entry;
  }));
}

function drawRates(rates) {
  $("rates-table").hidden = rates.length === 0;
  $("rates-empty").hidden = rates.length > 0;
  $("rates-rows").innerHTML = rates.map((rate) => {
    const percent = rate.tries ? `${Math.round((100 * rate.solved) / rate.tries)} %` : "–";
    return `<tr><td>${escapeHtml(rate.title)}</td><td>${rate.tries}</td><td>${rate.solved}</td><td>${percent}</td></tr>`;
  }).join("");
}

/** The accuracy chart: one point per reviewed game (oldest left), 0-100 %, with a table of the same values. */
function drawAccuracy(points) {
  const chart = $("accuracy-chart");
  if (points.length === 0) {
    chart.replaceChildren();
    $("accuracy-note").textContent = "No reviewed game yet.";
    return;
  }
  const width = 600;
  const height = 160;
  const x = (index) => (points.length === 1 ? width / 2 : 44 + (index * (width - 64)) / (points.length - 1));
  const y = (value) => 10 + ((100 - value) * (height - 30)) / 100;
  const line = points.map((point, index) => `${x(index)},${y(point.accuracy)}`).join(" ");
  const grid = [0, 50, 100].map((value) => `<line class="grid" x1="44" x2="${width - 20}" y1="${y(value)}" y2="${y(value)}"/>`
    + `<text class="axis" x="2" y="${y(value) + 4}">${value} %</text>`).join("");
  const dots = points.map((point, index) => `<circle cx="${x(index)}" cy="${y(point.accuracy)}" r="4"><title>`
    + `${escapeHtml(point.title)}, ${escapeHtml(new Date(point.created_at).toLocaleDateString())}: ${point.accuracy} %</title></circle>`).join("");
  chart.innerHTML = `<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="accuracy-title" aria-describedby="accuracy-note">`
    + `${grid}<polyline points="${line}"/>${dots}</svg>`
    + `<details><summary>The values</summary><table class="games-table"><thead><tr><th scope="col">Game</th>`
    + `<th scope="col">Date</th><th scope="col">Accuracy</th><th scope="col">How</th></tr></thead><tbody>`
    + points.map((point) => `<tr><td><a href="/g/${escapeHtml(point.game_id)}">${escapeHtml(point.title)}</a></td>`
      + `<td>${escapeHtml(new Date(point.created_at).toLocaleDateString())}</td><td>${point.accuracy} %</td>`
      + `<td>${escapeHtml(point.method)}</td></tr>`).join("")
    + "</tbody></table></details>";
  const last = points[points.length - 1];
  $("accuracy-note").textContent = `${points.length} reviewed ${points.length === 1 ? "game" : "games"}, oldest on the left;`
    + ` the last: ${last.accuracy} % (${last.method}).`;
}

async function load() {
  try {
    const queue = await getTraining();
    drawDue(queue.due, queue.waiting);
    drawRates(queue.rates);
    drawAccuracy(queue.accuracy);
  } catch (error) {
    $("training-status").textContent = error.message;
  }
}

load();
