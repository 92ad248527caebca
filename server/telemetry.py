"""Per-call telemetry: one structured (JSON) log line and Prometheus metrics.

A server interceptor wraps every method (the hint service, health and
reflection alike) and records its method, final status code and latency,
including calls whose request could not be decoded or was too large.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, NoReturn, Optional

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from . import status
from .deadlines import CallDeadline

log = logging.getLogger("t42.server")

#: Largest request message the server accepts (gRPC's default receive limit, 4 MiB).
MAX_REQUEST_BYTES = 4 * 1024 * 1024

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
        self.rejected = Counter("t42_rpc_rejected_requests", "Requests refused before their "
                                "handler ran, by method and reason: undecodable (INVALID_ARGUMENT), "
                                "too_large (over 4 MiB: RESOURCE_EXHAUSTED).",
                                ["method", "reason"], registry=self.registry)

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
                  deadline: CallDeadline) -> str:
    """The status code name a call ended with.

    Reads only Python-side state of the context: once a call has ended, its
    C-level parts (peer, time remaining) may already be gone.
    """
    if isinstance(error, asyncio.CancelledError):
        return "DEADLINE_EXCEEDED" if deadline.expired() else "CANCELLED"
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
    deadline: CallDeadline
    rejected: Optional[str] = None  # why the request was refused before any handler ran


class TelemetryInterceptor(grpc.aio.ServerInterceptor):
    """Logs and measures every call, whatever its streaming shape.

    It also receives and decodes the requests itself, so that a request that
    cannot be decoded, or that is over the size limit, is logged and counted
    like any other call (gRPC would otherwise refuse it before any handler or
    interceptor code runs). A unary request is read as a one-message stream:
    when no message arrives and the call is still alive, the transport refused
    it as over `MAX_REQUEST_BYTES` (RESOURCE_EXHAUSTED). A message that does
    not decode gets INVALID_ARGUMENT with the ErrorInfo reason
    ``UNDECODABLE_REQUEST``.
    """

    def __init__(self, metrics: Optional[Metrics]) -> None:
        self.metrics = metrics
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}
        self._series_of: dict[tuple[int, tuple[str, ...]], Any] = {}

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
        decode = handler.request_deserializer or _identity
        for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behavior = getattr(handler, kind)
            if behavior is None:
                continue
            streaming_response = kind.endswith("_stream")
            if kind.startswith("unary_"):
                behavior = self._read_one(method, behavior, decode)
            else:
                behavior = self._read_each(method, behavior, decode)
            # Requests always arrive as a stream of raw bytes, decoded above.
            factory = grpc.stream_stream_rpc_method_handler if streaming_response \
                else grpc.stream_unary_rpc_method_handler
            wrapped = factory(self._wrap(method, behavior),
                              request_deserializer=None,
                              response_serializer=handler.response_serializer)
            break
        self._wrapped[method] = (handler, wrapped)  # handlers are fixed per method
        return wrapped

    # ------------------------------------------------------- request decoding

    def _read_one(self, method: str, behavior: Callable[..., Any],
                  decode: Callable[[bytes], Any]) -> Callable[..., Any]:
        """A unary-request behavior as a stream-request one: read and decode one message."""
        async def request_of(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            raw = await anext(aiter(requests), None)
            if raw is None:
                if context.cancelled():
                    raise asyncio.CancelledError()
                await self._reject(method, context, "too_large")
            return await self._decode(method, context, decode, raw)

        if inspect.isasyncgenfunction(behavior):
            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                request = await request_of(requests, context)
                async for response in behavior(request, context):
                    yield response
            return streaming

        async def unary(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            return await behavior(await request_of(requests, context), context)
        return unary

    def _read_each(self, method: str, behavior: Callable[..., Any],
                   decode: Callable[[bytes], Any]) -> Callable[..., Any]:
        """A stream-request behavior fed decoded messages."""
        def with_decoded(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            async def decoded() -> Any:
                async for raw in requests:
                    yield await self._decode(method, context, decode, raw)
            return behavior(decoded(), context)

        if inspect.isasyncgenfunction(behavior):
            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async for response in with_decoded(requests, context):
                    yield response
            return streaming

        async def unary(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            return await with_decoded(requests, context)
        return unary

    async def _decode(self, method: str, context: grpc.aio.ServicerContext,
                      decode: Callable[[bytes], Any], raw: bytes) -> Any:
        try:
            return decode(raw)
        except Exception as exc:  # DecodeError, or whatever a deserializer raises
            await self._reject(method, context, "undecodable", f"{exc}")

    async def _reject(self, method: str, context: grpc.aio.ServicerContext, reason: str,
                      detail: str = "") -> NoReturn:
        """Refuse a request that never reached its handler; counted by ``reason``."""
        if self.metrics:
            self.metrics.rejected.labels(method, reason).inc()
        call = _CURRENT_CALL.get()
        if call is not None:
            call.rejected = reason
        if reason == "too_large":
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"request over the {MAX_REQUEST_BYTES} byte limit")
        rich = status.undecodable_request(detail[:200])
        await context.abort(rich.code, rich.details, rich.trailing_metadata)
        raise AssertionError("unreachable: abort raises")

    # -------------------------------------------------------------- telemetry

    def _wrap(self, method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
        # A streaming response comes from an async generator, or from context.write().
        if inspect.isasyncgenfunction(behavior):
            async def streaming(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                call, error = self._begin(method, context), None
                try:
                    async for response in behavior(requests, context):
                        yield response
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    self._end(call, context, error)
            return streaming

        async def unary(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            call, error = self._begin(method, context), None
            try:
                return await behavior(requests, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                self._end(call, context, error)
        return unary

    def _series(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, looked up once: ``labels()`` takes a lock and builds
        a key at every call."""
        key = (id(metric), labels)
        series = self._series_of.get(key)
        if series is None:
            series = self._series_of[key] = metric.labels(*labels)
        return series

    def _begin(self, method: str, context: grpc.aio.ServicerContext) -> _Call:
        if self.metrics:
            self._series(self.metrics.in_flight, method).inc()
        call = _Call(method, context.peer(), CallDeadline.of(context))
        _CURRENT_CALL.set(call)  # each call runs in a task of its own: a context of its own
        return call

    def _end(self, call: _Call, context: grpc.aio.ServicerContext,
             error: Optional[BaseException]) -> None:
        latency = time.monotonic() - call.deadline.start
        code = _status_after(context, error, call.deadline)
        if self.metrics:
            self._series(self.metrics.in_flight, call.method).dec()
            self._series(self.metrics.calls, call.method, code).inc()
            self._series(self.metrics.latency, call.method).observe(latency)
        extra = {"rejected": call.rejected} if call.rejected else {}
        log_event("rpc", method=call.method, code=code, latency_ms=round(latency * 1000, 3),
                  peer=call.peer, **extra)


def _identity(raw: bytes) -> bytes:
    return raw


_CURRENT_CALL: contextvars.ContextVar[Optional[_Call]] = contextvars.ContextVar(
    "t42_current_call", default=None)
