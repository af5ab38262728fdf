"""The analysis board: any position of any game, both sides' moves, the engine thinking on it and its exact values.

A node of the board is a position: ``game``, ``setup`` (the root, in the game's notation, empty for the start) and
``moves`` (space-separated, in the game's notation) played from it. Nothing of it is stored: the browser keeps the
tree of variations and the URL names the node, so visiting a node creates no game row.

The Socket.IO event ``analyse`` (the API description's ``AnalyseNode``) opens a node for its connection: the
sender gets ``analysis_node`` (``Node.payload``: the board, the legal moves as players write them, the path), then
``analysis_search`` events of the engine's search on it (unless the engine settings' ``on`` is false) and one
``analysis_truth`` (each move's exact value, where it is known). A connection analyses one node at a time: opening
another, sending ``analyse_stop`` or leaving cancels the searches of the one before, so no event of an old node follows
the new node's ``analysis_node``. Both are background work of the connection's address on the shared runner
(``webapp.search.fair_queue``: after every live game's engine turn, within the address's share of the engines,
leaving a worker free for live turns; the search, open-ended, after every other background job);
exact values of Connect Four positions found once are kept for every visitor (``webapp.search.solved``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypedDict

from engine.game import GameError, IllegalMoveError, State, play_moves, score_scale
from engine.games import game_class, game_names
from engine.review import BEST, GOOD, PositionView, SearchSettings, judge_answer, shown_move
from engine.search.every_move import every_move_options
from engine.search.info import Limits, SearchOptions
from engine.truth import may_know
from webapp import schema
from webapp.arena.lab import PRESETS
from webapp.display import tree_nodes
from webapp.errors import ArenaError, ErrorCode
from webapp.search.fair_queue import BACKGROUND, EXPLORATION
from webapp.search.jobs import CEILING_SECONDS, Runner, SearchJob

TRUTH_SECONDS = 10.0
"""What the Connect Four solver gets to prove a node's moves (``engine.truth.move_values``); beyond it the node's
truth is "not known". (Within 1 s the solver proved 200 of 200 positions sampled at 12 stones and 199 of 200 at 13:
``engine.hints.HINT_TRUTH_SECONDS``.)"""
TRUTH_SOURCES = {"tictactoe": "read from the solved table", "wolves": "read from the solved table",
                 "nim": "from Nim's theory and exhaustive search", "connect4": "found by the Connect Four solver",
                 "chess": "read from our endgame tables"}
"""Where a game's exact values come from, in words (``engine.truth.move_values``)."""
NO_TRUTH = {"tictactoe": "the solved table could not be built", "wolves": "the solved table could not be built",
            "nim": "Nim's theory does not cover these piles and rules",
            "connect4": f"the solver did not prove this position within {TRUTH_SECONDS:g} s",
            "chess": "chess has exact values only in endings of up to four pieces without castling rights, from our "
                     "endgame tables (the four-piece ones where this server has built them)"}
"""Why a game's position may have no exact values, in words."""
RIGHT_ANSWERS = frozenset({BEST, GOOD})
"""The review's verdicts on an exercise's answer that count it right where no exact value is known: the review's
own choice, or a move whose fall of win chance is below an inaccuracy's."""
POSITIONS_KEPT = 2048
"""How many positions the node keeps ready (``position``): people click through the same openings."""
MAX_MOVES_TEXT: int = schema.component("AnalyseNode")["properties"]["moves"]["maxLength"]
"""The longest ``moves`` text a node may have (the API description's ``AnalyseNode.moves``)."""
MAX_SETUP_TEXT: int = schema.component("AnalyseNode")["properties"]["setup"]["maxLength"]
"""The longest ``setup`` text a node may have (the API description's ``AnalyseNode.setup``)."""


@dataclasses.dataclass(frozen=True, slots=True)
class EngineSettings:
    """How the engine searches a node: ``on`` (else no search), the lab's ``preset``, its ``limits`` and how many
    ``lines`` the page shows (above 1, every root move is searched with a full window and keeps its own line)."""

    on: bool
    preset: str
    limits: Limits
    lines: int = 1

    def options(self, game: str) -> SearchOptions:
        """The search options of these settings in ``game``: the preset's, the tree recorded where the game draws
        it, every root move exact and with its line when several lines are asked for (alpha-beta)."""
        options = dataclasses.replace(PRESETS[self.preset][2], record_tree=tree_nodes(game))
        if self.lines > 1 and options.algorithm == "alphabeta":
            options = dataclasses.replace(every_move_options(options), root_lines=True)
        return options


class LegalMove(TypedDict):
    """A legal move of a node: in the game's notation and as players read it (SAN in chess)."""

    move: str
    shown: str


class NodePayload(TypedDict):
    """The ``analysis_node`` event and the body of ``GET /api/analysis/<game>`` (docs/protocol.md)."""

    node: str
    game: str
    title: str
    players: list[str]
    setup: str
    setup_fen: str | None
    moves: list[str]
    shown: list[str]
    ply: int
    to_move: int
    position: str
    view: dict[str, Any]
    legal: list[LegalMove]
    outcome: dict[str, Any] | None
    move_notation: str
    score_unit: str
    score_axis: dict[str, Any]
    search_tree: bool


def parse_engine(settings: dict[str, Any]) -> EngineSettings:
    """Schema-checked ``engine`` settings ``{on, preset, depth?, time?, lines?}``: an unknown or MCTS preset raises
    ``ArenaError`` "bad_request". Without a depth or a time the search runs until it is stopped, its value is
    proven, or the ceiling of every search (``CEILING_SECONDS``) is reached."""
    preset = settings["preset"]
    if preset not in PRESETS or preset == "mcts":
        choices = ", ".join(name for name in PRESETS if name != "mcts")
        raise ArenaError(ErrorCode.BAD_REQUEST, f"unknown preset {preset!r}; presets: {choices}")
    depth, seconds = settings.get("depth"), settings.get("time")
    return EngineSettings(bool(settings["on"]), preset, Limits(depth=depth, time=seconds), settings.get("lines", 1))


@dataclasses.dataclass(frozen=True, slots=True)
class AnalysedPosition:
    """A position of the analysis board, the same for every visitor: its root (``start``), the ``moves`` from it,
    the position they reach (``state``) and what a client is told of it (``payload``, its ``node`` "")."""

    start: State
    moves: tuple[str, ...]
    state: State
    payload: NodePayload


@dataclasses.dataclass(frozen=True, slots=True)
class Node:
    """A node of one client's analysis board: its ``position`` and the client's name for it (``node``, echoed in
    every event about it)."""

    node: str
    position: AnalysedPosition

    def payload(self) -> NodePayload:
        """The ``analysis_node`` event of this node."""
        return {**self.position.payload, "node": self.node}


@functools.lru_cache(maxsize=POSITIONS_KEPT)
def position(game: str, setup: str, moves_text: str) -> AnalysedPosition:
    """The position of ``game`` after ``moves_text`` (moves in the game's notation, separated by spaces) from
    ``setup`` (its start when empty), kept for the next visitor (the last ``POSITIONS_KEPT``). ``ArenaError``
    "bad_game" for an unknown game, a bad setup or an illegal move (the message names it), "bad_request" for too
    long a text."""
    if game not in game_names():
        raise ArenaError(ErrorCode.BAD_GAME, f"unknown game {game!r}; games: {', '.join(game_names())}")
    if len(moves_text) > MAX_MOVES_TEXT:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"moves is {len(moves_text)} characters; at most {MAX_MOVES_TEXT}")
    if len(setup) > MAX_SETUP_TEXT:
        raise ArenaError(ErrorCode.BAD_REQUEST, f"setup is {len(setup)} characters; at most {MAX_SETUP_TEXT}")
    cls = game_class(game)
    try:
        start = cls.from_setup(setup) if setup.strip() else cls.initial()
        moves, shown, state = _replay(start, moves_text.split())
    except GameError as error:
        raise ArenaError(ErrorCode.BAD_GAME, str(error)) from None
    return AnalysedPosition(start, moves, state, _payload(start, moves, shown, state))


def _replay(start: State, texts: list[str]) -> tuple[tuple[str, ...], list[str], State]:
    """``texts`` played from ``start``: the moves as the game writes them (a chess move given in SAN comes back in
    UCI), as players read them, and the position reached. ``IllegalMoveError`` names the first bad one's number."""
    moves: list[str] = []
    shown: list[str] = []
    walk = start
    for number, text in enumerate(texts, 1):
        try:
            move = walk.parse_move(text)
        except IllegalMoveError as error:
            raise IllegalMoveError(f"move {number}: {error}") from None
        moves.append(walk.move_text(move))
        shown.append(shown_move(walk, moves[-1]))
        walk = walk.play(move)
    return tuple(moves), shown, walk


def parse_node(data: object) -> tuple[Node, EngineSettings]:
    """The node and engine settings of an ``analyse`` payload (the ``AnalyseNode`` schema); anything wrong raises
    ``ArenaError``: "bad_game" for the game or the position, else "bad_request"."""
    payload = schema.check(schema.component_ref("AnalyseNode"), data, {"game": ErrorCode.BAD_GAME})
    return (Node(payload["node"], position(payload["game"], payload["setup"], payload["moves"])),
            parse_engine(payload["engine"]))


def _payload(start: State, moves: tuple[str, ...], shown: list[str], state: State) -> NodePayload:
    """What the board needs of the position ``state`` reached by ``moves`` (``shown``: as players read them) from
    ``start``: its view, legal moves, path and the game's facts (``node`` "")."""
    outcome = state.outcome()
    legal: list[LegalMove] = [] if outcome is not None else [
        {"move": text, "shown": shown_move(state, text)} for text in map(state.move_text, state.legal_moves())]
    return {"node": "", "game": state.name, "title": state.title, "players": list(state.players),
            "setup": start.setup(), "setup_fen": start.view().get("fen"), "moves": list(moves), "shown": shown,
            "ply": len(moves),
            "to_move": state.to_move, "position": state.setup(), "view": state.view(), "legal": legal,
            "outcome": None if outcome is None else outcome.to_dict(), "move_notation": state.move_notation,
            "score_unit": state.score_unit, "score_axis": {"unit": state.score_axis, "per_unit": score_scale(state)},
            "search_tree": tree_nodes(state.name) > 0}


@dataclasses.dataclass(frozen=True, slots=True)
class AnswerCheck:
    """An exercise's answer to check (``exercise_check``): ``answer`` played at ``node``, whose value for the mover
    the game's review found to be ``value``, with ``better`` its choice."""

    node: Node
    answer: str
    value: int
    better: str | None


def parse_check(data: object) -> AnswerCheck:
    """The answer of an ``exercise_check`` payload (the ``ExerciseCheck`` schema): a chess position as
    ``parse_node`` reads one, and a legal ``answer`` (``bad_game`` otherwise); ``bad_request`` for anything else
    wrong."""
    payload = schema.check(schema.component_ref("ExerciseCheck"), data, {"game": ErrorCode.BAD_GAME})
    if payload["game"] != "chess":
        raise ArenaError(ErrorCode.BAD_GAME, "only chess answers are checked by a search; the other games' "
                                             "exercises are judged by the exact values of analysis_truth")
    node = Node(payload["node"], position(payload["game"], payload["setup"], payload["moves"]))
    state = node.position.state
    try:
        answer = state.move_text(state.parse_move(payload["answer"]))
        better = None if payload["better"] is None else state.move_text(state.parse_move(payload["better"]))
    except GameError as error:
        raise ArenaError(ErrorCode.BAD_GAME, str(error)) from None
    return AnswerCheck(node, answer, payload["value"], better)


def search_key(sid: str) -> str:
    """The runner's key of the engine's search for connection ``sid``."""
    return f"analysis:{sid}"


def truth_key(sid: str) -> str:
    """The runner's key of the exact values worked out for connection ``sid``."""
    return f"analysis-truth:{sid}"


def check_key(sid: str) -> str:
    """The runner's key of the search that checks an exercise's answer for connection ``sid``."""
    return f"exercise:{sid}"


class Analysis:
    """The analysis board's searches, one node per connection. ``emit(event, payload, to=sid)`` sends Socket.IO
    messages; ``job_ids()`` numbers the jobs."""

    def __init__(self, runner: Runner, emit: Callable[..., None], job_ids: Callable[[], int]) -> None:
        self.runner = runner
        self.emit = emit
        self._job_ids = job_ids

    def open(self, sid: str, node: Node, engine: EngineSettings, client: str) -> None:
        """Cancel what ``sid`` analysed before, send it ``analysis_node``, then start (or queue) the exact values
        of ``node`` and the engine's search on it, in that order, as background work of ``client`` (an address).
        A finished position gets neither."""
        self.leave(sid, "position changed")
        self.emit("analysis_node", node.payload(), to=sid)
        state = node.position.state
        if state.outcome() is not None:
            return
        ply = len(node.position.moves)
        if state.name not in TRUTH_SOURCES or not may_know(state):
            self.emit("analysis_truth", {"node": node.node, "how": "unknown", "moves": {},
                                         "source": NO_TRUTH.get(state.name, "no exact values are known")}, to=sid)
        else:  # the exact values first: on the client's share of the engines they come before the search
            self.runner.submit(SearchJob(id=self._job_ids(), key=truth_key(sid), ply=ply, seat=state.to_move,
                                         state=state, engine={"truth": {"seconds": TRUTH_SECONDS}}, client=client,
                                         priority=BACKGROUND),
                               functools.partial(self._on_truth, sid, node.node))
        if engine.on:
            options = engine.options(state.name)
            limits = engine.limits
            if limits.depth is None and limits.time is None:
                limits = dataclasses.replace(limits, time=CEILING_SECONDS)
            lab = {"preset": engine.preset, "options": dataclasses.asdict(options),
                   "limits": dataclasses.asdict(limits)}
            self.runner.submit(SearchJob(id=self._job_ids(), key=search_key(sid), ply=ply, seat=state.to_move,
                                         state=state, engine={"lab": lab}, client=client, priority=EXPLORATION),
                               functools.partial(self._on_search, sid, node.node))

    def check(self, sid: str, check: AnswerCheck, client: str) -> None:
        """Search the position after ``check``'s answer as a review searches a position (``engine.review.look_at``
        with ``SearchSettings()``), as background work of ``client``, and send ``sid`` the review's verdict on the
        answer (``exercise_verdict``); an answer of the connection still being checked is dropped. Opening another
        node does not stop it; leaving the page does."""
        state = check.node.position.state
        after = play_moves(state, [check.answer])
        self.runner.submit(SearchJob(id=self._job_ids(), key=check_key(sid), ply=len(check.node.position.moves) + 1,
                                     seat=after.to_move, state=after,
                                     engine={"review": dataclasses.asdict(SearchSettings())}, client=client,
                                     priority=BACKGROUND),
                           functools.partial(self._on_check, sid, check))

    def stop(self, sid: str) -> None:
        """Cancel the engine's search on ``sid``'s node (its last event ``cancelled``, reason "stopped"); its exact
        values still come."""
        self.runner.cancel(search_key(sid), "stopped")

    def leave(self, sid: str, reason: str) -> None:
        """Cancel everything ``sid``'s node still has queued or running, for ``reason``: its events stop at once."""
        self.runner.cancel(search_key(sid), reason)
        self.runner.cancel(truth_key(sid), reason)

    def close(self, sid: str) -> None:
        """The connection ``sid`` ended: cancel its node's work and the check of its answer."""
        self.leave(sid, "page left")
        self.runner.cancel(check_key(sid), "page left")

    def _on_check(self, sid: str, check: AnswerCheck, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of the search after an answer: ``exercise_verdict`` once it has ended."""
        head = {"node": check.node.node, "answer": check.answer}
        if info["kind"] == "failed":
            self.emit("exercise_verdict", {**head, "right": None, "message": info["message"]}, to=sid)
        elif info["kind"] == "final":
            verdict = judge_answer(check.node.position.state, check.answer, check.value, check.better,
                                   PositionView.from_dict(info["view"]))
            self.emit("exercise_verdict", {**head, "right": verdict.verdict in RIGHT_ANSWERS,
                                           "verdict": verdict.to_dict(), "searched": SearchSettings().describe()},
                      to=sid)

    def _on_search(self, sid: str, node: str, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of the engine's search on ``node``: ``analysis_search`` to the connection, unless a
        later node has replaced the search meanwhile (the client names each request, so it drops any that slips by)."""
        current = self.runner.current_job(search_key(sid))
        if current is not None and current.id != job.id:
            return
        self.emit("analysis_search", {"node": node, "ply": job.ply, "seat": job.seat, "info": info}, to=sid)

    def _on_truth(self, sid: str, node: str, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of the exact values of ``node``: one ``analysis_truth`` once they are known (or
        known not to be)."""
        game = job.state.name
        if info["kind"] == "final" and info["hints"] is not None:
            self.emit("analysis_truth", {"node": node, "how": "exact", "source": TRUTH_SOURCES.get(game, ""),
                                         "moves": info["hints"]["moves"]}, to=sid)
        elif info["kind"] in ("final", "failed"):
            reason = NO_TRUTH.get(game, "no exact values are known") if info["kind"] == "final" else info["message"]
            self.emit("analysis_truth", {"node": node, "how": "unknown", "source": reason, "moves": {}}, to=sid)
