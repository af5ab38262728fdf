// The address of the search stepper (/steps/<game>) for a position and a search's settings: the analysis board,
// the lab, a game's engine search and the stepper itself link to it.

/** `/steps/<game>?setup=&moves=&preset=&depth=[&step=]`; `moves` an array of move texts. */
export function stepsUrl({ game, setup = "", moves = [], preset = "everything", depth, step = null }) {
  const query = new URLSearchParams();
  if (setup) query.set("setup", setup);
  if (moves.length) query.set("moves", moves.join(" "));
  query.set("preset", preset);
  query.set("depth", String(Math.max(1, depth)));
  if (step !== null) query.set("step", String(step));
  return `/steps/${game}?${query}`;
}
