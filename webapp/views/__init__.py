"""The views: what answers a browser or a client. The HTML pages, the JSON API and its blueprints (your games, your
training), the Socket.IO event handlers, and what guards them all (CSRF, per-address limits, security headers, the
browser's identity cookie, error pages). Each is thin: it checks what it is sent and calls the game core
(``webapp.arena``)."""
