// The client side of docs/protocol.md: JSON API calls and the Socket.IO connection to one game's room.
import { io } from "./socketio.js";

/** localStorage key prefix of the stop code of an engine-against-engine game this browser created (+ game id). */
export const STOP_KEY_PREFIX = "arena-stop:";

/** An error answered by the server: `code` is the protocol's error code, `message` a human sentence. */
export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function request(method, url, body) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError("network", "The server cannot be reached. Check your connection and try again.", 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new ApiError(data?.error ?? "http", data?.message ?? `The server answered ${response.status}.`, response.status);
  }
  return data;
}

/** POST /api/games: creates a game; resolves to {id, url, seat, token}. */
export const createGame = (payload) => request("POST", "/api/games", payload);
/** POST /api/games/<id>/stop: its creator stops an engine-against-engine game; resolves to the final state. */
export const stopGame = (id, stopCode) =>
  request("POST", `/api/games/${encodeURIComponent(id)}/stop`, { stop_code: stopCode });
/** GET /api/games: resolves to {games: [summary, ...]}. */
export const listGames = () => request("GET", "/api/games");
/** GET /api/games/<id>: resolves to the game state. */
export const getGame = (id) => request("GET", `/api/games/${encodeURIComponent(id)}`);
/** GET /api/games/<id>/positions/<ply>: resolves to {ply, setup, view, move, by}. */
export const getPosition = (id, ply) => request("GET", `/api/games/${encodeURIComponent(id)}/positions/${ply}`);
/** GET /api/games/<id>/pgn: a chess game's PGN text, with the engine's evaluations as `[%eval ...]` comments. */
export async function getPgn(id) {
  const response = await fetch(`/api/games/${encodeURIComponent(id)}/pgn`, { credentials: "same-origin" });
  if (!response.ok) throw new ApiError("http", `The server answered ${response.status}.`, response.status);
  return response.text();
}
/** GET /api/games/<id>/searches/<ply>: the stored final `search` event of the engine move that made ply `ply`. */
/** The game's review (docs/protocol.md): GET its status, POST to start it, POST …/cancel to stop it. */
export const getReview = (id) => request("GET", `/api/games/${encodeURIComponent(id)}/review`);
export const startReview = (id) => request("POST", `/api/games/${encodeURIComponent(id)}/review`, {});
export const cancelReview = (id) => request("POST", `/api/games/${encodeURIComponent(id)}/review/cancel`, {});
export const analysePosition = (id, ply) =>
  request("POST", `/api/games/${encodeURIComponent(id)}/positions/${ply}/analysis`, {});
/** POST …/searches/<ply>/every-move: every move of the engine search behind ply `ply` scored exactly; the answer
 * ("running", or "done" when already known; the rest comes as `every_move`). */
export const scoreEveryMove = (id, ply) =>
  request("POST", `/api/games/${encodeURIComponent(id)}/searches/${ply}/every-move`, {});

/** POST …/hints: turn the game's hints on or off (between two people: on once both asked); the new state. */
export const setHints = (id, on, token) =>
  request("POST", `/api/games/${encodeURIComponent(id)}/hints`, token ? { on, token } : { on });

/** POST …/engines: the creator pauses, resumes or paces an engine-against-engine game; the new state. */
export const directEngines = (id, stopCode, change) =>
  request("POST", `/api/games/${encodeURIComponent(id)}/engines`, { stop_code: stopCode, ...change });

export const getSearch = (id, ply) => request("GET", `/api/games/${encodeURIComponent(id)}/searches/${ply}`);
/**
 * POST /api/games/<id>/seats: restores the seat of `token`, or takes the free seat with the share link's `invite`
 * code (none needed in a game open to anyone); resolves to {seat, token, invite, invite_url}.
 */
export const takeSeat = (id, { token, invite } = {}) =>
  request("POST", `/api/games/${encodeURIComponent(id)}/seats`, token ? { token } : invite ? { invite } : {});

/**
 * Connects to the server and joins the room of game `gameId`, re-joining after every reconnect.
 * `handlers` maps server event names (state, moved, search, watchers, rematch, error) to callbacks.
 * Returns {socket, emit(event, extra)}, where emit adds the game id to the payload.
 */
export function connectGame(gameId, token, handlers) {
  // WebSocket first (no long-polling round trips), long-polling if it fails.
  const socket = io({ auth: token ? { token } : {}, transports: ["websocket", "polling"], tryAllTransports: true });
  socket.on("connect", () => socket.emit("join", { game_id: gameId }));
  for (const [event, handler] of Object.entries(handlers)) {
    if (event === "connect_error" || event === "disconnect") socket.on(event, handler);
    else socket.on(event, (payload) => {
      if (payload && payload.game_id !== undefined && payload.game_id !== gameId && event !== "error") return;
      handler(payload);
    });
  }
  return {
    socket,
    emit(event, extra = {}) {
      socket.emit(event, { game_id: gameId, ...extra });
    },
  };
}
/** Your games (docs/protocol.md): GET a page of this browser's games, forget them, make a link that moves them to
 * another browser, take the games of such a link. */
export const listYourGames = (params) => request("GET", `/api/me/games?${new URLSearchParams(params)}`);
export const forgetYourGames = () => request("POST", "/api/me/forget", {});
export const makeMoveLink = () => request("POST", "/api/me/move-link", {});
export const acceptMove = (token) => request("POST", "/api/me/move", { token });
/** The training queue (docs/protocol.md): GET it; POST an answer to one of its exercises. */
export const getTraining = () => request("GET", "/api/me/training");
export const recordTraining = (gameId, ply, right) =>
  request("POST", "/api/me/training/result", { game_id: gameId, ply, right });
