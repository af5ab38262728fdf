"""The documents name only what exists: every file (``something.py``, ``.js``, ``.html``, ``.conf``) and every name
of our own code (``_private_function``, ``OurClass.attribute``) cited in backticks in README.md, docs/*.md and the
browser code's READMEs is found in the tree, and every module named by its dotted path there or in a docstring
(``webapp.arena.lab``) exists, so a rename or a move cannot leave a document describing code that is gone; the
tables that list modules (the compiled ones, the browser's) list exactly those there are."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "static" / "js" / "README.md",
             ROOT / "static" / "js" / "boards" / "README.md"]
CODE_FOLDERS = ("engine", "webapp", "static", "templates", "deploy", "bench", "tests", ".ci")
CODE_SUFFIXES = {".py", ".js", ".html", ".conf", ".css", ".yaml", ".sh", ""}
FILE_NAME = re.compile(r"[\w/.-]+\.(?:py|js|html|conf|css|yaml)")
CODE_NAME = re.compile(r"_[a-z]\w*|[A-Z]\w*\.\w+")


def code_files() -> list[Path]:
    return [path for folder in CODE_FOLDERS for path in (ROOT / folder).rglob("*")
            if path.is_file() and path.suffix in CODE_SUFFIXES and "node_modules" not in path.parts]


def defined_names(text: str) -> set[str]:
    """Names defined in Python or JavaScript source: functions, classes, methods, assigned names and attributes."""
    patterns = (r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", r"^\s*(\w+)\s*[:=]", r"self\.(\w+)\s*[:=]",
                r"function\*?\s+(\w+)", r"(?:const|let|var)\s+(\w+)\s*=", r"^\s+(?:async\s+)?(\w+)\s*\([^)]*\)\s*\{",
                r"this\.(\w+)\s*=")
    return {name for pattern in patterns for name in re.findall(pattern, text, flags=re.M)}


def cited(document: Path) -> list[tuple[int, str]]:
    """``(line, token)`` for every backticked token of ``document`` (a trailing ``()`` dropped)."""
    return [(number, token.removesuffix("()")) for number, line in enumerate(document.read_text().splitlines(), 1)
            for token in re.findall(r"`([^`\s]+)`", line)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_cited_file_and_name_of_our_code_exists(document: Path) -> None:
    files = code_files()
    file_names = {path.name for path in files} | {str(path.relative_to(ROOT)) for path in files}
    texts = {path: path.read_text(errors="replace") for path in files}
    names = set().union(*(defined_names(text) for text in texts.values()))
    classes = {name for text in texts.values() for name in re.findall(r"^\s*(?:class)\s+(\w+)", text, flags=re.M)}
    classes |= {name for text in texts.values() for name in re.findall(r"\bclass\s+(\w+)", text)}
    missing = []
    for number, token in cited(document):
        if FILE_NAME.fullmatch(token) and not token.startswith("/"):  # "/..." is a URL the server serves
            if token not in file_names and Path(token).name not in file_names and not (ROOT / token).exists():
                missing.append(f"line {number}: file {token}")
        elif CODE_NAME.fullmatch(token) and not token.startswith("__"):
            owner, _, attribute = token.rpartition(".")
            if owner and owner not in classes:
                continue  # a library's name (python-socketio's, Flask's...), not ours
            if attribute not in names:
                missing.append(f"line {number}: name {token}")
    assert not missing, f"{document.name} cites what the tree does not have: {missing}"


DOTTED = re.compile(r"``?((?:engine|webapp)(?:\.\w+)+)")
"""A module of ours named by its dotted path in backticks (```webapp.arena.lab``` in a document, ````engine.truth````
in a docstring), perhaps followed by a name it defines and one attribute of that (``Class.method``)."""


def top_level_names(module: Path) -> dict[str, set[str]]:
    """The names a Python module defines at its top level (functions, classes, assignments, imports), each class's
    with the names its body defines."""
    found: dict[str, set[str]] = {}
    for node in ast.parse(module.read_text()).body:
        if isinstance(node, ast.ClassDef):
            found[node.name] = {child.name for child in node.body
                                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
            found[node.name] |= {target.id for child in node.body if isinstance(child, ast.Assign | ast.AnnAssign)
                                 for target in (child.targets if isinstance(child, ast.Assign) else [child.target])
                                 if isinstance(target, ast.Name)}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = set()
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    found[target.id] = set()
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(alias.asname or alias.name).split(".")[0]: set() for alias in node.names}
    return found


def dotted_reference_exists(reference: str) -> bool:
    """Whether ``reference`` (``package.module[.name[.attribute]]``) names a module of ours and, after it, what that
    module defines."""
    parts = reference.split(".")
    for count in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:count])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if module.is_file():
            break
    rest = parts[count:]
    if not rest:
        return True
    names = top_level_names(module)
    if rest[0] not in names and not (base / rest[0]).exists():
        return False
    return len(rest) < 2 or not names.get(rest[0]) or rest[1] in names[rest[0]]


def test_every_module_named_by_its_dotted_path_exists() -> None:
    """Every ```engine.…``` or ```webapp.…``` path in the documents and in the docstrings and comments of our Python
    code names a module there is, and the name after it one that module defines: a module moved to another folder
    leaves no description behind."""
    texts = {path: path.read_text() for path in DOCUMENTS}
    texts |= {path: path.read_text() for folder in ("engine", "webapp", "tests", "bench") for path in
              (ROOT / folder).rglob("*.py")}
    texts[ROOT / "gunicorn.conf.py"] = (ROOT / "gunicorn.conf.py").read_text()
    missing = sorted({f"{path.relative_to(ROOT)}: {reference}" for path, text in texts.items()
                      for reference in DOTTED.findall(text) if not dotted_reference_exists(reference)})
    assert missing == []


def test_the_configuration_table_names_every_variable_the_code_reads_and_no_other() -> None:
    """docs/protocol.md's "Configuration" table is the one list of settings: every environment variable that the
    engine or the web app reads is a row of it, and every row is one they read."""
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    table = protocol.split("## Configuration (environment variables)", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"`([A-Z][A-Z_]+)`", "\n".join(line.split(" | ")[0] for line in table.splitlines())))
    read = {name for folder in ("engine", "webapp") for path in (ROOT / folder).rglob("*.py")
            for name in re.findall(r'"((?:ARENA|SOCKETIO)_[A-Z_]+|DATABASE_URL|SECRET_KEY|NODE_MODULES)"',
                                   path.read_text())}
    assert documented == read, {"not documented": read - documented, "not read": documented - read}


def test_the_protocols_table_of_error_codes_is_the_one_the_code_declares() -> None:
    """docs/protocol.md lists the error codes as ``webapp.errors.ErrorCode`` declares them (``protocol_table()``
    prints the table to paste after a change)."""
    from webapp.errors import protocol_table

    protocol = (ROOT / "docs" / "protocol.md").read_text()
    start = protocol.index("| code | HTTP | meaning |")
    assert protocol[start:protocol.index("\n\n", start)] == protocol_table()


def test_the_protocol_lists_the_search_events_fields_as_the_engine_declares_them() -> None:
    """docs/protocol.md names the fields of a search event (``SearchInfo``, whose JSON form ``SearchInfoDict``
    has the same fields, tests/test_search_info.py), of its root moves and of a final event's ``iterations``
    (``Iteration``) exactly as the code declares them, in order."""
    from engine.search.info import RootMoveDict, SearchInfo
    from webapp.search.job_events import Iteration

    protocol = " ".join((ROOT / "docs" / "protocol.md").read_text().split())
    listed = re.search(r"`SearchInfo\.to_dict\(\)`: `(kind, [^`]+)`", protocol)
    assert listed is not None
    fields_text = re.sub(r"\[[^\]]*\]", "", listed.group(1))
    assert [name.strip() for name in fields_text.split(",")] == list(SearchInfo.__dataclass_fields__)
    root_moves = re.search(r"root_moves \[\{([^}]+)\}\]", listed.group(1))
    assert root_moves is not None
    assert [name.strip() for name in root_moves.group(1).split(",")] == list(RootMoveDict.__annotations__)
    iterations = re.search(r"`iterations`, one `\{([^}]+)\}` per completed depth", protocol)
    assert iterations is not None
    assert [name.strip() for name in iterations.group(1).split(",")] == list(Iteration.__annotations__)


def test_the_compiled_modules_table_names_every_module_setup_compiles() -> None:
    """docs/compiled.md's table (a row may name siblings of its first module by file name alone) against
    ``COMPILED`` in setup.py (read, not imported: importing it would run the build)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    compiled = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                    and any(isinstance(target, ast.Name) and target.id == "COMPILED" for target in node.targets))
    text = (ROOT / "docs" / "compiled.md").read_text()
    table = text[text.index("| module | what | why |"):].split("\n\n", 1)[0]
    named = set()
    for row in table.splitlines()[2:]:
        folder = ""
        for token in re.findall(r"`([\w/.]+\.py)`", row.split("|")[1]):
            folder = token.rpartition("/")[0] if "/" in token else folder
            named.add(token if "/" in token else f"{folder}/{token}")
    assert named == set(compiled)


def test_the_browser_codes_table_names_every_module_of_static_js() -> None:
    """static/js/README.md's table of modules against the files of static/js (the boards have their own README)."""
    text = (ROOT / "static" / "js" / "README.md").read_text()
    named = {token for row in text.splitlines() if row.startswith("| `")
             for token in re.findall(r"`([\w/]+\.js|boards/)`", row.split("|")[1])}
    modules = {path.name for path in (ROOT / "static" / "js").glob("*.js")} | {"boards/"}
    assert named == modules


def test_the_architecture_names_every_module_of_the_web_app() -> None:
    """docs/architecture.md names every module of ``webapp/`` (by its path, or in its folder's table by file name)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    missing = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "webapp").rglob("*.py"))
               if path.name != "__init__.py" and "migrations" not in path.parts
               and f"`{path.name}`" not in text and str(path.relative_to(ROOT)) not in text]
    assert missing == []
