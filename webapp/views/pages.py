"""HTML pages: the home page (choose a game and an opponent, watch games in progress), the game page, the lab, the
analysis board, and the whitelisted route that serves browser libraries installed by npm.

The page templates live in the top-level ``templates/`` and the browser code in ``static/`` (served under
``/assets/``); pyproject.toml installs them as ``webapp/templates`` and ``webapp/static``, so a non-editable
``pip install .`` carries them and ``resource_folder`` finds either layout. Everything dynamic on a page comes
from the JSON API and Socket.IO (see ``docs/protocol.md``); the pages themselves only name the game id and the
games on offer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, render_template, request, send_from_directory

from engine.games import game_class, game_names
from engine.levels import game_levels
from engine.oracles import describe_level
from engine.search.steps import STEP_LIMIT
from webapp import schema
from webapp.arena.analysis import MAX_SETUP_TEXT
from webapp.arena.lab import Lab
from webapp.display import score_facts
from webapp.search.jobs import Ceiling
from webapp.seats import invite_code, issue_token
from webapp.validation import GAME_ID
from webapp.views import chess_assets

PACKAGE_DIR = Path(__file__).resolve().parent.parent
"""The ``webapp`` package's folder."""


def resource_folder(name: str) -> str:
    """The folder ``name`` ("templates" or "static"): the installed copy inside the package, else the source tree's."""
    installed = PACKAGE_DIR / name
    return str(installed if installed.is_dir() else PACKAGE_DIR.parent / name)


bp = Blueprint(
    "pages",
    __name__,
    template_folder=resource_folder("templates"),
    static_folder=resource_folder("static"),
    static_url_path="/assets",
)


@bp.app_context_processor
def page_facts() -> dict[str, object]:
    """What every page reads from the server rather than keep a copy of: the score scale (for its scripts), and
    the ranges a form may ask for, from the API description: the deepest search (``Depth``), the seconds per
    engine move (``MoveSeconds``), the time control (``TimeControl``'s ``minutes`` and ``increment``) and the paces
    an engine-against-engine game's creator may choose (``Pace``)."""
    control = schema.component("TimeControl")["properties"]
    return {"score_facts": score_facts(), "depth_limit": schema.component("Depth")["maximum"],
            "move_seconds": schema.component("MoveSeconds"), "clock_minutes": control["minutes"],
            "clock_increment": control["increment"], "paces": schema.component("Pace")["enum"]}


# The chess board's piece images (/chess/pieces/wK.svg) are served with the pages that draw them.
bp.register_blueprint(chess_assets.bp)

VENDOR_FILES = frozenset({
    "socket.io-client/dist/socket.io.esm.min.js",
    "socket.io-client/dist/socket.io.esm.min.js.map",
})
"""The only files under ``node_modules`` that ``/vendor/<path>`` serves; any other path is a 404."""


@dataclass(frozen=True, slots=True)
class GameCard:
    """What the home page shows of one game: its registry name, its title and its players' names."""

    name: str
    title: str
    players: tuple[str, str]
    levels: list[dict[str, int | float | str | None]]
    """The engine's levels 1-8 for this game: ``depth`` and ``time`` limits (None = none), ``margin``, and
    ``oracle``: what a book, table or solver does at that level, in words (None when it only searches)."""


def game_cards() -> list[GameCard]:
    """A card for every game this installation has, in the registry's display order."""
    cards = []
    for name in game_names():
        cls = game_class(name)
        levels = [
            {"depth": level.limits.depth, "time": level.limits.time, "margin": level.margin,
             "oracle": describe_level(name, level.number)}
            for level in game_levels(name)
        ]
        cards.append(GameCard(name, cls.title, (cls.players[0], cls.players[1]), levels))
    return cards


def node_modules_dir() -> Path:
    """Where npm installed the browser libraries: the ``NODE_MODULES`` setting (from the environment variable of
    that name), else ``node_modules`` beside the project's source tree, else ``node_modules`` in the working
    directory."""
    configured = current_app.config.get("NODE_MODULES")
    if configured:
        return Path(configured)
    beside_source = PACKAGE_DIR.parent / "node_modules"
    return beside_source if beside_source.is_dir() else Path.cwd() / "node_modules"


@bp.get("/")
def index() -> str:
    """The home page: a card per game with its options, the opponent and side, and the games being played now; the
    custom-engine form states the ceiling of every search."""
    return render_template("index.html", cards=game_cards(), ceiling=Ceiling())


@bp.get("/g/<game_id>")
def game(game_id: str) -> str:
    """The page of one game, with the visitor's seat token and the game's invitation code when their browser holds
    a seat (so the page can hand the token to Socket.IO and share the invitation link; the cookie itself is
    HttpOnly), and the longest setup the analysis board takes (for its "Analyse" links). The game is loaded by the
    browser; an id that is no game's answers the site's 404 page."""
    if not GAME_ID.fullmatch(game_id) or not current_app.extensions["arena"].reads.exists(game_id):
        abort(404)
    seat = current_app.extensions["players"].seat_in(game_id)
    secret = current_app.config["SECRET_KEY"]
    return render_template("game.html", game_id=game_id, analyse_setup_limit=MAX_SETUP_TEXT,
                           token="" if seat is None else issue_token(secret, game_id, seat),
                           invite="" if seat is None else invite_code(secret, game_id))


@bp.get("/lab")
def lab() -> str:
    """The algorithm lab; ``?game=NAME&setup=TEXT`` opens a position (a game page's "Lab" link)."""
    game_name = request.args.get("game", "")
    return render_template("lab.html", cards=game_cards(), presets=Lab.presets(),
                           game=game_name if game_name in game_names() else "",
                           setup=request.args.get("setup", "")[:200])


@bp.get("/analyse/<game>")
def analyse(game: str) -> str:
    """The analysis board of ``game``; ``?setup=TEXT&moves=M1+M2`` names the node it opens (the browser reads them).
    A name that is no game's answers the site's 404 page."""
    if game not in game_names():
        abort(404)
    card = next(card for card in game_cards() if card.name == game)
    presets = [preset for preset in Lab.presets() if preset["name"] != "mcts"]
    return render_template("analyse.html", card=card, presets=presets, analysis_seconds=Ceiling().seconds)


@bp.get("/me/games")
def your_games() -> str:
    """The games this browser played (the browser reads them from ``GET /api/me/games``)."""
    return render_template("your_games.html", games=game_cards())


@bp.get("/me/training")
def training() -> str:
    """Your training queue (the browser reads it from ``GET /api/me/training``)."""
    return render_template("training.html")


@bp.get("/me/move/<token>")
def move_history(token: str) -> str:
    """A link that moves another browser's history here: the page asks first (its button posts the token to
    ``POST /api/me/move``); opening it moves nothing."""
    return render_template("move_history.html", token=token[:200])


@bp.get("/steps/<game>")
def steps(game: str) -> str:
    """The search stepper of ``game``; ``?setup=&moves=&preset=&depth=&step=`` name the search and the step shown
    (the browser reads them and asks ``GET /api/steps/<game>``). A name that is no game's answers the site's 404
    page."""
    if game not in game_names():
        abort(404)
    card = next(card for card in game_cards() if card.name == game)
    presets = [preset for preset in Lab.presets() if preset["name"] != "mcts"]
    return render_template("steps.html", card=card, presets=presets, step_limit=STEP_LIMIT)


@bp.get("/vendor/<path:path>")
def vendor(path: str) -> Response:
    """A browser library file from ``node_modules``, only if ``path`` is in ``VENDOR_FILES``; else 404."""
    if path not in VENDOR_FILES:
        abort(404)
    response = send_from_directory(node_modules_dir(), path, max_age=3600)
    if path.endswith(".js"):
        response.mimetype = "text/javascript"
    elif path.endswith(".map"):
        response.mimetype = "application/json"
    return response
