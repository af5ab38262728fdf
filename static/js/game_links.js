// The game page's links out of a game: the analysis board at a position, the search stepper at an engine move,
// and the PGN file's headers, all made from the page's store (game_store.js).
import { stepsUrl } from "./steplink.js";

const ANALYSE_LINK_MOVES = 2000; // characters of moves an "Analyse" link carries at most (a URL's request line: 4 KB)

/** The analysis board's link to the position after `ply` moves (default: the one shown): the game's start and the
 * moves to it; for a path longer than a URL comfortably holds, or a start longer than the board takes
 * (`setupLimit`: a chess game set up from a long PGN), the position's own FEN, which only the position shown has at
 * hand (another position's link, or one that needs a FEN outside chess, is then null). */
export function analyseHref(store, setupLimit, ply = store.shownPly) {
  const state = store.state;
  const moves = state.moves.slice(0, ply).join(" ");
  const query = new URLSearchParams();
  if (moves.length > ANALYSE_LINK_MOVES || state.start_setup.length > setupLimit) {
    if (ply !== store.shownPly || state.game !== "chess") return null;
    query.set("setup", store.shownView.fen);
  } else {
    if (state.start_setup) query.set("setup", state.start_setup);
    if (moves) query.set("moves", moves);
  }
  const text = query.toString();
  return `/analyse/${encodeURIComponent(state.game)}${text ? `?${text}` : ""}`;
}

/** The search stepper's link to a search of the position before ply `movePly` to `depth`, with every technique
 * (the engine's own settings); null where the analysis board has no link to that position. */
export function stepsHref(store, setupLimit, movePly, depth) {
  const href = store.state ? analyseHref(store, setupLimit, movePly - 1) : null;
  if (!href) return null;
  const query = new URL(href, window.location.origin).searchParams;
  return stepsUrl({
    game: store.state.game, setup: query.get("setup") ?? "", moves: (query.get("moves") ?? "").split(" ").filter(Boolean),
    preset: "everything", depth,
  });
}

/** `pgn` with the unknown ("?") Event, Site, Date, White and Black headers filled in from `state`. */
export function pgnWithHeaders(pgn, state) {
  const known = {
    Event: `Alpha-Beta Arena game ${state.id}`,
    Site: `${window.location.origin}/g/${state.id}`,
    Date: (state.created_at ?? "").slice(0, 10).replaceAll("-", "."),
    White: state.seats[0]?.label,
    Black: state.seats[1]?.label,
  };
  return pgn.replace(/^\[(\w+) "\?[?.]*"\]$/gm, (header, name) => {
    const value = known[name];
    return value ? `[${name} "${value.replaceAll("\\", "").replaceAll('"', "'")}"]` : header;
  });
}
