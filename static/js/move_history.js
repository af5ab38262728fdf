// The page of a link that moves another browser's games here: nothing moves until its button is pressed.
import { acceptMove } from "./api.js";

const button = document.getElementById("move-accept");
const status = document.getElementById("move-status");
button.addEventListener("click", async () => {
  button.disabled = true;
  try {
    const answer = await acceptMove(button.dataset.token);
    status.textContent = `Moved ${answer.moved} ${answer.moved === 1 ? "game" : "games"} to this browser.`;
  } catch (error) {
    status.textContent = error.message;
    button.disabled = false;
  }
});
