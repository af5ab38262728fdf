"""The search record of an engine move: the ``search`` event of its final ``SearchInfo`` exactly as the room
received it (``{game_id, ply, seat, info}``, ``ply`` being the position searched, one less than the move's), kept
with the move in the store (``search_records``) so late joiners, reloads, other nodes and the move list can show
it again.

A record is at most ``RECORD_MAX_BYTES`` of JSON. Only the recorded search tree (tic-tac-toe and Nim) can make it
larger; its deepest levels are then left out until it fits, and the tree says so: ``truncated`` is true and
``kept_depth`` is the number of levels below the root it still holds. Every other field is kept whole.
"""

from __future__ import annotations

import json
from typing import Any

RECORD_MAX_BYTES = 64 * 1024
"""The largest search record stored, in bytes of JSON."""


def encode_record(message: dict[str, Any]) -> str:
    """The JSON text stored for the final ``search`` event ``message``, its tree cut to fit ``RECORD_MAX_BYTES``."""
    text = json.dumps(message, separators=(",", ":"))
    tree = message["info"].get("tree")
    if len(text) <= RECORD_MAX_BYTES or tree is None:
        return text
    widths = _level_sizes(tree)
    budget = RECORD_MAX_BYTES - (len(text) - len(json.dumps(tree, separators=(",", ":"))))
    per_node = len(json.dumps(tree, separators=(",", ":"))) / sum(widths)
    levels = len(widths)
    while levels > 1 and sum(widths[:levels]) * per_node > budget:
        levels -= 1
    while True:
        cut = _cut(tree, levels - 1) | {"truncated": True, "kept_depth": levels - 1}
        text = json.dumps(message | {"info": message["info"] | {"tree": cut}}, separators=(",", ":"))
        if len(text) <= RECORD_MAX_BYTES or levels == 1:
            return text
        levels -= 1


def _level_sizes(tree: dict[str, Any]) -> list[int]:
    """How many nodes each level of ``tree`` holds, the root's level first."""
    sizes, level = [], [tree]
    while level:
        sizes.append(len(level))
        level = [child for node in level for child in node["children"]]
    return sizes


def _cut(node: dict[str, Any], depth: int) -> dict[str, Any]:
    """A copy of ``node`` with its descendants down to ``depth`` levels below it."""
    children = [_cut(child, depth - 1) for child in node["children"]] if depth > 0 else []
    return node | {"children": children}
