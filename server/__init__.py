"""The gRPC hint service (texas42.v1.HintService) over the solver's Python API.

Start it with ``t42 serve``; the API is in ``proto/texas42/v1/``.
"""

from .app import ServerConfig, ServerError, run, serve

__all__ = ["ServerConfig", "ServerError", "run", "serve"]
