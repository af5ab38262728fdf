"""The transport tier: everything that holds connections and talks to gunicorn, gevent, Engine.IO, Socket.IO and
Redis (the server's sockets, their reads, pings and caps, the message queue of several nodes, stopping a worker).
The game core (``webapp.arena``) and the views never reach these libraries but through here."""
