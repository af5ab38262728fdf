"""gunicorn settings for the app. gunicorn reads ``./gunicorn.conf.py`` by itself, so every gunicorn started from
the project folder (the README's and the Makefile's commands, the tests' ``LiveServer``) uses them.

``limit_request_field_size``: earlier versions gave a browser one ``arena_seat_<game>`` cookie (about 80 bytes) per
game, and after about 100 games its Cookie header outgrew gunicorn's default limit of 8190 bytes: every request,
``/`` included, was answered ``431``. Browsers keep at most 180 cookies per site (Chromium and Firefox), about
14.4 KB of them; with room for 32 KiB such a browser reaches the app again, which records its seats under the one
``arena_player`` cookie and expires the old ones (``webapp.players``). Not needed after 2027-02-22, when the last
of those cookies (90 days, set until 2026-11-24) has expired.

``forwarded_allow_ips`` and ``secure_scheme_headers``: gunicorn believes no ``X-Forwarded-*`` header from anyone
(by default it believes ``X-Forwarded-Proto`` from 127.0.0.1); the app alone decides, by ``ARENA_PROXY_HOPS``
(``webapp.app``), so with 0 hops nothing a client forwards changes the request's scheme.

``control_socket_disable``: no ``gunicornc`` control socket, which gunicorn would otherwise open at one path shared
by every instance of the same user (the app is stopped by its signals, ``webapp.shutdown``).
"""

limit_request_field_size = 32768
forwarded_allow_ips = ""
secure_scheme_headers: dict[str, str] = {}
control_socket_disable = True
