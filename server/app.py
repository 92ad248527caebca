"""Run the gRPC server: hint service, health, reflection, telemetry, graceful stop.

SIGTERM (or SIGINT) marks every service NOT_SERVING, lets calls in flight
finish within the grace period (cancelling the searches of those that do
not), then exits with status 0. A second SIGTERM or SIGINT during that drain
exits at once, with status 128 + the signal's number.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from solver.play import program_bot
from solver.play.program_bot import DEFAULT_TIME_LIMIT, BotError
from solver.play.table import Tables
from solver.play.table_store import StoreError, TableStore
from texas42.v1 import hint_service_pb2_grpc as service_grpc

from .errors import ServerError
from .http_app import start_http
from .pool import SolverPool, default_workers, hold_file_from_environment
from .servicer import SERVICE_NAME, HintServicer
from .table_key import load_key
from .telemetry import (MAX_REQUEST_BYTES, Metrics, TelemetryInterceptor, log_event,
                        write_lines_to)

DEFAULT_PORT = 50051
DEFAULT_MAX_QUEUE = 64
DEFAULT_GRACE = 10.0


@dataclass
class ServerConfig:
    """How to run the server: the options of `t42 serve` (docs/reference/cli.md).

    Attributes:
        host: The address to listen on.
        port: The gRPC port; 0 picks a free one (logged at start).
        workers: Solver threads; 0: one per core.
        max_queue: Calls that may wait for a worker; more are answered
            RESOURCE_EXHAUSTED at once.
        grace: Seconds that calls in flight get to finish on SIGTERM.
        metrics_port: The Prometheus metrics port; None: no metrics endpoint.
        http_port: The HTTP port of the Connect (HTTP/JSON) face and the web
            pages; None: no HTTP listener.
        table_key: The table key file (created when missing); None:
            $T42_TABLE_KEY, else the key kept in the table database.
        table_db: The table database (SQLite, created when missing), where the
            tables and finished games live; None: in memory (they end with the
            process).
        bots: Program bots the server seats by name (``--bot NAME=COMMAND``): name
            -> command line, run as the bot protocol says
            (docs/reference/bot-protocol.md). A client names one of these, never a
            command.
        bot_time_limit: Seconds a program bot has for each decision.

    >>> from server import ServerConfig
    >>> ServerConfig(port=0, workers=2).max_queue
    64
    """

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    workers: int = 0  # 0: one per core
    max_queue: int = DEFAULT_MAX_QUEUE
    grace: float = DEFAULT_GRACE
    metrics_port: Optional[int] = None  # None: no metrics endpoint
    http_port: Optional[int] = None  # None: no HTTP (Connect + web page) listener
    #: The table key file (created when missing); None: $T42_TABLE_KEY, else the database's.
    table_key: str | None = None
    #: The table database (SQLite); None: in memory.
    table_db: str | None = None
    #: Program bots by name: name -> command line (split as a shell does).
    bots: dict[str, str] = field(default_factory=dict)
    #: Seconds a program bot has for each decision.
    bot_time_limit: float = DEFAULT_TIME_LIMIT


class _GenericHandlersOnly:
    """Adds a service's handlers to the server as a generic handler only.

    The generated ``add_*_to_server`` functions also register every method by
    name; grpc.aio then keeps one pending "next call" per registered method and,
    for every call that arrives, waits on all of them at once (an
    ``asyncio.wait`` over a dozen futures). Served as generic handlers, every
    call arrives through one future; the methods are the same.
    """

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: Any) -> None:
        pass  # the same handlers came through add_generic_rpc_handlers


def _configure_logging() -> None:
    logger = logging.getLogger("t42.server")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        write_lines_to(sys.stderr)  # our own handler: lines go straight to it


async def serve(config: ServerConfig, stop: Optional[asyncio.Event] = None) -> None:
    """Serve until ``stop`` is set or SIGTERM/SIGINT arrives, then shut down gracefully.

    The gRPC service texas42.v1.HintService (docs/reference/proto.md) with
    health checking and reflection, and with ``config.http_port`` its Connect
    face and the web pages. One JSON log line per event and call goes to
    stderr.

    Args:
        config: The ports, workers and limits.
        stop: Set it to drain the calls in flight and return; None: only a
            signal stops the server.

    Raises:
        ServerError: A port cannot be listened on (in use, bad address), the
            table key cannot be read, or a program bot does not start and say hello.

    >>> import asyncio
    >>> from server import ServerConfig, serve
    >>> async def serve_briefly() -> None:
    ...     stop = asyncio.Event()
    ...     server = asyncio.create_task(serve(ServerConfig(port=0, workers=1), stop))
    ...     await asyncio.sleep(0.3)  # calls to the port logged at start go here
    ...     stop.set()
    ...     await server
    >>> asyncio.run(serve_briefly())
    """
    _configure_logging()
    hellos = _configure_bots(config)
    table_key = load_key(config.table_key)
    try:
        tables = Tables(TableStore(config.table_db), table_key)
    except StoreError as exc:
        raise ServerError(f"cannot open the table database: {exc}") from None
    workers = config.workers or default_workers()
    metrics = Metrics() if config.metrics_port is not None else None
    pool = SolverPool(workers, config.max_queue, observer=metrics,
                      hold_file=hold_file_from_environment())
    server = grpc.aio.server(
        interceptors=[TelemetryInterceptor(metrics)],
        # One server per port: never share a port with another process silently.
        options=[("grpc.so_reuseport", 0),
                 ("grpc.max_receive_message_length", MAX_REQUEST_BYTES)],
    )
    servicer = HintServicer(pool, tables)
    generic = _GenericHandlersOnly(server)
    service_grpc.add_HintServiceServicer_to_server(servicer, generic)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, generic)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(reflection.aio.ReflectionServicer(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)), generic)
    address = f"{config.host}:{config.port}"
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:
        raise ServerError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        raise ServerError(f"cannot listen on {address}")
    metrics_port = None
    if metrics is not None and config.metrics_port is not None:
        try:
            metrics_port = metrics.serve_http(config.host, config.metrics_port)
        except OSError as exc:
            await server.stop(None)
            raise ServerError(f"cannot serve metrics on {config.host}:{config.metrics_port}: "
                              f"{exc.strerror or exc}") from None

    await server.start()
    try:
        http = await start_http(config.host, config.http_port, servicer, metrics) \
            if config.http_port is not None else None
    except ServerError:
        await server.stop(None)
        raise
    for service in ("", SERVICE_NAME):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    log_event("listening", host=config.host, port=port, workers=workers,
              max_queue=config.max_queue, metrics_port=metrics_port,
              http_port=http.port if http is not None else None,
              bots={name: hello.to_json() for name, hello in hellos.items()})

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, _exit_now, signum)
    log_event("draining", grace_s=config.grace)
    await health_servicer.enter_graceful_shutdown()
    # Both transports drain at once; calls still running after the grace period are cancelled.
    await asyncio.gather(server.stop(config.grace),
                         http.stop(config.grace) if http is not None else asyncio.sleep(0))
    await asyncio.to_thread(pool.shutdown)  # off the loop: a second signal still gets through
    program_bot.close_all()
    log_event("stopped")


def _configure_bots(config: ServerConfig) -> dict:
    """Start each program bot of ``config`` and read its hello (a bot that fails stops
    the server from starting): the bots NextAction may then be asked by name."""
    from solver.game.errors import PositionError
    from solver.play.bots import GAME_BOT_NAMES

    try:
        specs = [program_bot.named_spec(f"{name}={command}", config.bot_time_limit,
                                        GAME_BOT_NAMES + ("hint",))
                 for name, command in config.bots.items()]
        return program_bot.configure(specs)
    except PositionError as exc:
        raise ServerError(f"{exc.field}: {exc.reason}") from None
    except BotError as exc:
        raise ServerError(f"--bot {exc.bot}: {exc.reason}") from None


def _exit_now(signum: int) -> None:
    """A second SIGTERM/SIGINT while draining: stop waiting for anything and exit."""
    log_event("forced_stop", signal=signal.Signals(signum).name)
    for handler in logging.getLogger("t42.server").handlers:
        handler.flush()
    sys.stdout.flush()
    # Worker threads may be deep in a search; os._exit does not wait for them.
    os._exit(128 + signum)


def run(config: ServerConfig) -> None:
    """Serve until SIGTERM or SIGINT (the blocking entry point of `t42 serve`).

    Args:
        config: The ports, workers and limits.

    Raises:
        ServerError: As for `serve`.

    >>> from server import ServerConfig, run
    >>> run(ServerConfig(port=50051, http_port=8080))  # doctest: +SKIP
    """
    asyncio.run(serve(config))
