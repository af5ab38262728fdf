"""The JSON API's one description, ``webapp/openapi.yaml`` (OpenAPI 3.1), and the checks of requests made from it.

The document is loaded once, at import, and every request body (and the Socket.IO payloads, see
``webapp.validation``) is validated against the schema it gives with ``jsonschema_rs``: a compiled JSON Schema
2020-12 validator without dependencies of its own, the one schemathesis already uses to hold the same document to a
live server (tests/test_openapi.py). So the limits a client reads in the document are the limits the server applies,
stated once; the few the server needs in Python (the game-id pattern, the lab's column count) are read from the
loaded document. Hand-written checks and typed models were the other choices: the first restate the document, the
second would have to generate it.

A failed check raises ``ArenaError`` whose message names the field (``opponent.levels[1]``) and says what it
expects, in words made from the failing schema (its ``title`` when it has one). When a ``oneOf`` or ``anyOf``
fails, the branch the payload was meant for is reported: not the branches whose ``const`` (a ``type`` field)
rejected it, then the one with the fewest errors; when that does not single one out, the whole choice is described.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any
from urllib.parse import quote, unquote

import jsonschema_rs
import yaml

from webapp.errors import ArenaError, ErrorCode

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader, in C where PyYAML was built with libyaml (its wheels are): ten times faster at start-up."""
DOCUMENT: dict[str, Any] = yaml.load(files("webapp").joinpath("openapi.yaml").read_text(encoding="utf-8"),
                                     Loader=_LOADER)
"""The loaded OpenAPI document (read it, never change it)."""
_BASE = "urn:alphabeta-arena:openapi"
_REGISTRY = jsonschema_rs.Registry([(_BASE, DOCUMENT)])
_CHOICES = ("oneOf", "anyOf")
_SHOWN = 40
"""At most this many characters of a refused value are quoted back."""


def _pointer_to(ref: str) -> list[str]:
    """The keys of a ``$ref`` into the document (``#/a/b`` or ``<base>#/a/b``)."""
    fragment = unquote(ref.partition("#")[2])
    return [part.replace("~1", "/").replace("~0", "~") for part in fragment.split("/")[1:]]


def _resolve(ref: str) -> Any:
    node: Any = DOCUMENT
    for key in _pointer_to(ref):
        node = node[key]
    return node


def _escape(key: str) -> str:
    """``key`` as a JSON pointer token inside a URI fragment."""
    return quote(key.replace("~", "~0").replace("/", "~1"), safe="~")


def component(name: str) -> dict[str, Any]:
    """The schema ``#/components/schemas/<name>`` of the document (``$ref`` left as it is)."""
    return DOCUMENT["components"]["schemas"][name]


def component_ref(name: str) -> dict[str, str]:
    """A schema referring to ``#/components/schemas/<name>``, for ``check``."""
    return {"$ref": f"{_BASE}#/components/schemas/{_escape(name)}"}


@cache
def request_body(operation_id: str) -> dict[str, str]:
    """A schema referring to the JSON request body schema of the operation ``operation_id``, for ``check`` (found
    once per operation; do not change it); a ``KeyError`` when the document has no such operation with a JSON
    body."""
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                pointer = f"/paths/{_escape(path)}/{method}/requestBody"
                body = operation["requestBody"]
                if "$ref" in body:
                    pointer, body = body["$ref"].partition("#")[2], _resolve(body["$ref"])
                if "schema" not in body["content"].get("application/json", {}):
                    break
                return {"$ref": f"{_BASE}#{pointer}/content/application~1json/schema"}
    raise KeyError(f"no operation {operation_id!r} in the API description")


@cache
def _validator(schema_json: str) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(json.loads(schema_json), registry=_REGISTRY)


def check(schema: dict[str, Any], data: object, codes: Mapping[str, ErrorCode] | None = None,
          default: ErrorCode = ErrorCode.BAD_REQUEST) -> Any:
    """``data`` unchanged if it matches ``schema`` (refer to the document with ``request_body``, ``component_ref``
    or ``$ref`` to ``#/components/...``; each schema is compiled once). Else ``ArenaError``: its code is
    ``codes[field]`` for a fault inside the top-level ``field``, else ``default``; its message names the field
    and what it expects."""
    try:
        error = next(_validator(json.dumps(schema, sort_keys=True)).iter_errors(data), None)
    except UnicodeError:  # a string the validator cannot read as UTF-8 (a lone surrogate, "\ud800")
        raise ArenaError(default, "the payload holds text that is not valid Unicode") from None
    except ValueError:  # data nested deeper than the validator recurses
        raise ArenaError(default, "the payload is nested too deeply") from None
    if error is None:
        return data
    error = _meant(error)
    path = error.instance_path
    code = (codes or {}).get(str(path[0]), default) if path else default
    raise ArenaError(code, _message(error, schema))


def field_name(path: list[str | int]) -> str:
    """``["opponent", "levels", 1]`` as ``opponent.levels[1]``; the empty path is "the payload"."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else f".{key}" if text else str(key)
    return text or "the payload"


def _branches(error: jsonschema_rs.ValidationError) -> list[list[jsonschema_rs.ValidationError]]:
    return error.kind.as_dict().get("context", []) if error.kind.name in _CHOICES else []


def _forms_refused(branch: list[jsonschema_rs.ValidationError], depth: int) -> list[tuple[str, Any]]:
    """The ``(field, value)`` pairs by which ``branch`` is a form for other payloads than this one (a ``const``
    of a field it refused, or such refusals in every branch of a choice of its own), or [] if it may be meant."""
    for error in branch:
        if error.kind.name == "const" and len(error.instance_path) == depth + 1:
            return [(str(error.instance_path[-1]), error.kind.as_dict()["expected_value"])]
    for error in branch:
        forms = [_forms_refused(inner, depth) for inner in _branches(error)]
        if len(error.instance_path) == depth and forms and all(forms):
            return [pair for pairs in forms for pair in pairs]
    return []


def _meant(error: jsonschema_rs.ValidationError) -> jsonschema_rs.ValidationError:
    """The error of the branch the payload was meant for, going down through choices while one stands out."""
    while branches := _branches(error):
        depth = len(error.instance_path)
        meant = [branch for branch in branches if not _forms_refused(branch, depth)]
        typed = [branch for branch in meant if not any(_is_type_error(inner, depth) for inner in branch)]
        meant = typed or meant
        fewest = [branch for branch in meant if len(branch) == min(map(len, meant))]
        if len(fewest) != 1:
            return error
        error = max(fewest[0], key=lambda inner: len(inner.instance_path))
    return error


def _is_type_error(error: jsonschema_rs.ValidationError, depth: int) -> bool:
    return error.kind.name == "type" and len(error.instance_path) == depth


def _subschema(root: dict[str, Any], keys: list[str | int]) -> Any:
    """The schema reached from ``root`` along an error's evaluation path (``$ref`` followed)."""
    node: Any = root
    for key in keys:
        node = _resolve(node["$ref"]) if key == "$ref" else node[key]
    return node


def _message(error: jsonschema_rs.ValidationError, root: dict[str, Any]) -> str:
    where = field_name(error.instance_path)
    inside = f"{where}: " if error.instance_path else ""
    facts = error.kind.as_dict()
    if error.kind.name == "required":
        return f"{inside}missing field {facts['property']!r}"
    if error.kind.name == "additionalProperties":
        return f"{inside}unknown field(s): {', '.join(map(str, facts['unexpected']))}"
    if error.kind.name == "propertyNames":
        names = _subschema(root, error.evaluation_path[:-1])
        return f"{inside}the field name {_shown(facts['error'].instance)} must be {expected(names)}"
    forms = [_forms_refused(branch, len(error.instance_path)) for branch in _branches(error)]
    if forms and all(forms):  # every form is for other payloads: say which values the field that tells them has
        pairs = [pair for branch in forms for pair in branch]
        if len({name for name, _ in pairs}) == 1:
            values = dict.fromkeys(_json(value) for _, value in pairs)
            return f"{field_name([*error.instance_path, pairs[0][0]])} must be one of {', '.join(values)}"
    schema = _subschema(root, error.evaluation_path[:-1])
    return f"{where} must be {expected(schema)}, not {_shown(error.instance)}"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _shown(value: object) -> str:
    text = _json(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _between(low: object, high: object, unit: str = "") -> str:
    """Bounds in words: a count (``unit`` given) "of 1 to 16 characters", else a value "from 1 to 8"."""
    if low is not None and high is not None:
        if low == high:
            return f" of {low}{unit}"
        return f" of {low} to {high}{unit}" if unit else f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}{unit}"
    return f" of at most {high}{unit}" if high is not None else ""


def _one_type(kind: str, schema: dict[str, Any]) -> str:
    if kind in ("integer", "number"):
        noun = "a whole number" if kind == "integer" else "a number"
        return noun + _between(schema.get("minimum"), schema.get("maximum"))
    if kind == "string":
        pattern = f" matching {schema['pattern']}" if "pattern" in schema else ""
        return "a string" + _between(schema.get("minLength"), schema.get("maxLength"), " characters") + pattern
    if kind == "array":
        each = f", each {expected(schema['items'])}" if "items" in schema else ""
        return "a list" + _between(schema.get("minItems"), schema.get("maxItems"), " items") + each
    if kind == "object":
        if schema.get("maxProperties") == 0:
            return "an empty object ({})"
        fields = f" with {', '.join(schema['required'])}" if schema.get("required") else ""
        return "an object" + fields + _between(None, schema.get("maxProperties"), " fields")
    return {"boolean": "true or false", "null": "null"}.get(kind, kind)


def expected(schema: Any) -> str:
    """What ``schema`` accepts, in words: its ``title``, else made from its type, bounds, ``const``, ``enum`` or
    choices ("a whole number from 1 to 8", "one of 0, 1 or \\"random\\"")."""
    if schema is True:
        return "anything"
    if "$ref" in schema:
        return expected(_resolve(schema["$ref"]))
    if "title" in schema:
        return schema["title"]
    if "const" in schema:
        return _json(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(map(_json, schema["enum"]))
    for choice in _CHOICES:
        if choice in schema and "type" not in schema:
            return " or ".join(expected(branch) for branch in schema[choice])
    kinds = schema.get("type", "string" if "pattern" in schema else [])
    return " or ".join(_one_type(kind, schema) for kind in ([kinds] if isinstance(kinds, str) else kinds))
