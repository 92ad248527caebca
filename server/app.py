"""Run the gRPC server: hint service, health, reflection, telemetry, graceful stop.

SIGTERM (or SIGINT) marks every service NOT_SERVING, lets calls in flight
finish within the grace period (cancelling the searches of those that do
not), then exits with status 0.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from dataclasses import dataclass
from typing import Optional

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from texas42.v1 import hint_service_pb2_grpc as service_grpc

from .pool import SolverPool, default_workers
from .http_app import start_http
from .servicer import SERVICE_NAME, HintServicer
from .telemetry import Metrics, TelemetryInterceptor, log_event

DEFAULT_PORT = 50051
DEFAULT_MAX_QUEUE = 64
DEFAULT_GRACE = 10.0


@dataclass
class ServerConfig:
    """How to run the server (the `t42 serve` options)."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    workers: int = 0  # 0: one per core
    max_queue: int = DEFAULT_MAX_QUEUE
    grace: float = DEFAULT_GRACE
    metrics_port: Optional[int] = None  # None: no metrics endpoint
    http_port: Optional[int] = None  # None: no HTTP (Connect + web page) listener


class ServerError(Exception):
    """The server could not start (for example, the address is in use)."""


def _configure_logging() -> None:
    logger = logging.getLogger("t42.server")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


async def serve(config: ServerConfig, stop: Optional[asyncio.Event] = None) -> None:
    """Serve until ``stop`` is set or SIGTERM/SIGINT arrives, then shut down gracefully."""
    _configure_logging()
    workers = config.workers or default_workers()
    metrics = Metrics() if config.metrics_port is not None else None
    pool = SolverPool(workers, config.max_queue, observer=metrics)
    server = grpc.aio.server(
        interceptors=[TelemetryInterceptor(metrics)],
        # One server per port: never share a port with another process silently.
        options=[("grpc.so_reuseport", 0)],
    )
    servicer = HintServicer(pool)
    service_grpc.add_HintServiceServicer_to_server(servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    address = f"{config.host}:{config.port}"
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:
        raise ServerError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        raise ServerError(f"cannot listen on {address}")
    metrics_port = metrics.serve_http(config.host, config.metrics_port) \
        if metrics is not None and config.metrics_port is not None else None

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
              http_port=http.port if http is not None else None)

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()

    log_event("draining", grace_s=config.grace)
    await health_servicer.enter_graceful_shutdown()
    # Both transports drain at once; calls still running after the grace period are cancelled.
    await asyncio.gather(server.stop(config.grace),
                         http.stop(config.grace) if http is not None else asyncio.sleep(0))
    pool.shutdown()
    log_event("stopped")


def run(config: ServerConfig) -> None:
    """Blocking entry point of `t42 serve`."""
    asyncio.run(serve(config))
