"""No answer of a real gunicorn points to another host, whatever path and ``Host`` header a client sends."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.servers

PATHS = ["//g//abc", "/api//games", "//evil.example", "//evil.example/", "//", "/g//abc", "//assets/css/arena.css",
         "/g/abc/"]


@pytest.mark.parametrize("host", ["evil.example", None])
def test_paths_with_double_slashes_never_redirect_to_the_host_a_client_named(module_server, host):
    for path in PATHS:
        connection = http.client.HTTPConnection("127.0.0.1", module_server.port, timeout=10)
        connection.putrequest("GET", path, skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        location = response.getheader("Location")
        assert location is None or not urlsplit(location).netloc, (path, response.status, location)
        assert response.status < 500, path
        connection.close()
