"""Per-call telemetry: one structured (JSON) log line and Prometheus metrics.

A server interceptor wraps every method (the hint service, health and
reflection alike) and records its method, final status code and latency.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Optional

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

log = logging.getLogger("t42.server")

#: Latency buckets (seconds): solves run from well under 1 ms to seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                   30.0)


def log_event(event: str, **fields: Any) -> None:
    """Write one JSON log line (``{"event": ..., ...}``) to the server log."""
    log.info(json.dumps({"ts": round(time.time(), 3), "event": event, **fields}))


class Metrics:
    """The service's Prometheus metrics, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.calls = Counter("t42_rpc_calls", "Finished calls by method and status code.",
                             ["method", "code"], registry=self.registry)
        self.latency = Histogram("t42_rpc_latency_seconds", "Call latency by method.",
                                 ["method"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.in_flight = Gauge("t42_rpc_in_flight", "Calls in progress by method.", ["method"],
                               registry=self.registry)
        self.busy_workers = Gauge("t42_solver_busy_workers", "Worker threads running a job.",
                                  registry=self.registry)
        self.jobs = Counter("t42_solver_jobs", "Finished worker jobs (one position, hand or "
                            "deal each) by outcome: ok, bad_input, cancelled (deadline or "
                            "cancel), error.",
                            ["outcome"], registry=self.registry)

    def job_started(self) -> None:
        """A worker thread took a job (called from the worker)."""
        self.busy_workers.inc()

    def job_finished(self, outcome: str) -> None:
        """A worker thread finished a job with ``outcome`` (called from the worker)."""
        self.busy_workers.dec()
        self.jobs.labels(outcome).inc()

    def serve_http(self, host: str, port: int) -> int:
        """Expose ``/metrics`` over HTTP on a daemon thread; returns the bound port."""
        httpd, _thread = start_http_server(port, addr=host, registry=self.registry)
        return int(httpd.server_port)


def _status_after(context: grpc.aio.ServicerContext, error: Optional[BaseException],
                  deadline: Optional[float]) -> str:
    """The status code name a call ended with.

    Reads only Python-side state of the context: once a call has ended, its
    C-level parts (peer, time remaining) may already be gone.
    """
    if isinstance(error, asyncio.CancelledError):
        expired = deadline is not None and time.monotonic() >= deadline
        return "DEADLINE_EXCEEDED" if expired else "CANCELLED"
    code = context.code()
    if code is None:
        return "OK" if error is None else "UNKNOWN"
    if isinstance(code, grpc.StatusCode):
        return code.name
    return _CODE_NAMES.get(code, "UNKNOWN")


_CODE_NAMES = {c.value[0]: c.name for c in grpc.StatusCode}


@dataclass
class _Call:
    """What is known of a call when it starts (read while the call is alive)."""

    method: str
    peer: str
    start: float
    deadline: Optional[float]


class TelemetryInterceptor(grpc.aio.ServerInterceptor):
    """Logs and measures every call, whatever its streaming shape."""

    def __init__(self, metrics: Optional[Metrics]) -> None:
        self.metrics = metrics
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = handler
        for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behavior = getattr(handler, kind)
            if behavior is not None:
                factory = getattr(grpc, f"{kind}_rpc_method_handler")
                wrapped = factory(self._wrap(method, behavior),
                                  request_deserializer=handler.request_deserializer,
                                  response_serializer=handler.response_serializer)
                break
        self._wrapped[method] = (handler, wrapped)  # handlers are fixed per method
        return wrapped

    def _wrap(self, method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.isasyncgenfunction(behavior):
            async def streaming(request: Any, context: grpc.aio.ServicerContext) -> Any:
                call, error = self._begin(method, context), None
                try:
                    async for response in behavior(request, context):
                        yield response
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    self._end(call, context, error)
            return streaming

        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            call, error = self._begin(method, context), None
            try:
                return await behavior(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                self._end(call, context, error)
        return unary

    def _begin(self, method: str, context: grpc.aio.ServicerContext) -> _Call:
        if self.metrics:
            self.metrics.in_flight.labels(method).inc()
        now = time.monotonic()
        remaining = context.time_remaining()
        return _Call(method, context.peer(), now,
                     None if remaining is None else now + remaining)

    def _end(self, call: _Call, context: grpc.aio.ServicerContext,
             error: Optional[BaseException]) -> None:
        latency = time.monotonic() - call.start
        code = _status_after(context, error, call.deadline)
        if self.metrics:
            self.metrics.in_flight.labels(call.method).dec()
            self.metrics.calls.labels(call.method, code).inc()
            self.metrics.latency.labels(call.method).observe(latency)
        log_event("rpc", method=call.method, code=code, latency_ms=round(latency * 1000, 3),
                  peer=call.peer)
