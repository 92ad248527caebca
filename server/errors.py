"""The service's own errors, in a module of their own so that the gRPC server
(`server.app`) and the HTTP listener (`server.http_app`) share them without
importing each other."""

from __future__ import annotations


class ServerError(Exception):
    """The server could not start (for example, the address is in use).

    `t42 serve` prints its message on one line and exits with status 2.

    >>> import asyncio, socket
    >>> from server import ServerConfig, ServerError, serve
    >>> with socket.socket() as busy:
    ...     busy.bind(("127.0.0.1", 0))
    ...     busy.listen()
    ...     try:
    ...         asyncio.run(serve(ServerConfig(port=busy.getsockname()[1])))
    ...     except ServerError as error:
    ...         print("cannot listen" in str(error))
    True
    """
