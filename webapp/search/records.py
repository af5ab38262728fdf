"""The search record of an engine move: the ``search`` event of its final ``SearchInfo`` exactly as the room
received it (``{game_id, ply, seat, info}``, ``ply`` being the position searched, one less than the move's), kept
with the move in the store (``search_records``) so late joiners, reloads, other nodes and the move list can show
it again.

A record is at most ``RECORD_MAX_BYTES`` of JSON. Only the recorded search trees (tic-tac-toe and Nim: the last
iteration's in ``tree``, each earlier one in its ``iterations`` entry) can make it larger; the engine
process (``webapp.search.execution.run_job``) then leaves out their deepest levels until it fits (``fit_info``),
before the final event is sent, so the room receives what is stored, and a cut tree says so: ``truncated`` is true and
``kept_depth`` is the number of levels below the root it still holds. Every other field is kept whole.
"""

from __future__ import annotations

import json
from typing import Any

from webapp.search.job_events import FinalEvent

RECORD_MAX_BYTES = 64 * 1024
"""The largest search record stored, in bytes of JSON."""
MESSAGE_BYTES = 256
"""Room kept for the fields of a ``search`` event around its info (game id, ply, seat, ``sent_at``)."""
NODE_BYTES = 100
"""About the JSON size of a tree node without its children and pruned moves."""


def fit_info(info: FinalEvent) -> FinalEvent:
    """The final ``SearchInfo`` event ``info`` (``to_dict()`` with ``iterations``), its recorded trees cut so that
    its JSON fits in ``RECORD_MAX_BYTES`` with room for the event's other fields. The last iteration's tree is
    ``info["tree"]`` alone (not repeated in ``iterations``); it may take half of the room when earlier iterations
    have trees, which share the rest. Run where the search ran (the engine's process): the room then receives
    exactly what is stored."""
    iterations = [iteration.copy() for iteration in info.get("iterations", [])]
    if iterations:
        iterations[-1]["tree"] = None
    earlier = [(iteration, tree) for iteration in iterations if (tree := iteration.get("tree"))]
    trimmed: FinalEvent = {**info, "iterations": iterations}
    budget = RECORD_MAX_BYTES - MESSAGE_BYTES - len(_dumps({**trimmed, "tree": None, "iterations": [
        {**iteration, "tree": None} for iteration in iterations]}))
    tree = info.get("tree")
    if tree is not None:
        share = budget // 2 if earlier else budget
        trimmed["tree"] = fitted = _fit_tree(tree, share)
        budget -= len(_dumps(fitted))
    for iteration, tree in earlier:
        iteration["tree"] = _fit_tree(tree, budget // len(earlier))
    return trimmed


def _fit_tree(tree: dict[str, Any], budget: int) -> dict[str, Any]:
    """``tree``, or its top levels (``truncated``, ``kept_depth``) when its JSON is over ``budget`` bytes. The
    levels to keep are chosen from an estimate of each level's size, so a big tree is written out once or twice,
    not level by level."""
    sizes = _level_bytes(tree)
    if sum(sizes) <= budget and len(_dumps(tree)) <= budget:
        return tree
    keep = max(1, len(sizes) - 1)
    while keep > 1 and sum(sizes[:keep]) > budget:
        keep -= 1
    while True:
        cut = _cut(tree, keep - 1) | {"truncated": True, "kept_depth": keep - 1}
        if keep == 1 or len(_dumps(cut)) <= budget:
            return cut
        keep -= 1


def encode_record(message: dict[str, Any]) -> str:
    """The JSON text stored for the final ``search`` event ``message`` (its info already ``fit_info``)."""
    return _dumps(message)


def read_record(text: str) -> dict[str, Any]:
    """The stored record ``text`` as the room received it (every stored record carries the engine's label and its
    root moves' score texts: migration 0002 added them to the older ones)."""
    message: dict[str, Any] = json.loads(text)
    return message


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _level_bytes(tree: dict[str, Any]) -> list[int]:
    """An estimate of the JSON size of each level of ``tree``, the root's level first."""
    sizes, level = [], [tree]
    while level:
        sizes.append(sum(NODE_BYTES + sum(len(move) + 3 for move in node["pruned"]) for node in level))
        level = [child for node in level for child in node["children"]]
    return sizes


def _cut(node: dict[str, Any], depth: int) -> dict[str, Any]:
    """A copy of ``node`` with its descendants down to ``depth`` levels below it."""
    children = [_cut(child, depth - 1) for child in node["children"]] if depth > 0 else []
    return node | {"children": children}
