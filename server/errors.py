"""The service's own errors, in a module of their own so that the gRPC server
(`server.app`) and the HTTP listener (`server.http_app`) share them without
importing each other."""

from __future__ import annotations


class ServerError(Exception):
    """The server could not start (for example, the address is in use)."""
