"""The answer to an error that no view answered itself: under ``/api`` the JSON error every API answer uses
(``webapp.views.api.http_error``); elsewhere the site's own page: 404 for a page or game that does not exist, 405 for a
method a page does not take, and 500 for a failure, named by a request id under which it is logged, showing nothing
else of it."""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed, NotFound

from webapp.errors import DATABASE_RETRY_SECONDS, database_unavailable, logged_failure
from webapp.store import DatabaseUnavailableError
from webapp.views.api import API_PREFIX, http_error

TITLES = {404: "Page not found", 405: "Not a way to ask for this page", 500: "Something went wrong on our side"}


def init_app(app: Flask) -> None:
    """Answer every HTTP error no view handled with ``answer``, and a database that does not answer with
    ``unavailable``."""
    app.register_error_handler(HTTPException, answer)
    app.register_error_handler(DatabaseUnavailableError, unavailable)


def unavailable(_error: DatabaseUnavailableError) -> tuple[Response, int, dict[str, str]]:
    """``503`` with ``Retry-After``: the JSON ``database_unavailable`` error under ``/api``, else the error page."""
    headers = {"Retry-After": str(DATABASE_RETRY_SECONDS)}
    if request.path.startswith(API_PREFIX + "/"):
        error = database_unavailable()
        return jsonify(error.to_dict()), error.status, headers
    page = render_template("error.html", status=503, title="The games' database is not answering",
                           message="The server cannot reach the database that keeps the games. Nothing was lost; "
                                   "try again in a few seconds.", request_id=None)
    return Response(page, mimetype="text/html"), 503, headers


def answer(error: HTTPException) -> tuple[Response, int] | tuple[str, int, dict[str, str]]:
    """The JSON error under ``/api``, else the error page (any status other than 404, 405 and 500 keeps its own
    code with a generic title); a 405 names the methods the route takes (``Allow``)."""
    if request.path.startswith(API_PREFIX + "/"):
        return http_error(error)
    status = error.code or 500
    request_id = logged_failure(error) if isinstance(error, InternalServerError) else None
    message = {
        404: "There is no game or page at this address: the link may be mistyped, or the game was never played "
             "and has been cleared away.",
        500: "The server could not answer this request. Nothing you did caused it; try again in a moment.",
    }.get(status, error.description if not isinstance(error, NotFound) else "")
    page = render_template("error.html", status=status, title=TITLES.get(status, error.name), message=message,
                           request_id=request_id)
    allowed = error.valid_methods if isinstance(error, MethodNotAllowed) else None
    return page, status, {"Allow": ", ".join(allowed)} if allowed else {}
