"""`t42 serve`: run the gRPC hint service (see server/)."""

from __future__ import annotations

import argparse
import os
import sys


def _int_in(low: int, high: int | None = None):
    """An argparse type: a whole number in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{value} is out of range ({bound})")
        return value
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text} must be >= 0")
    return value


#: Where the help names the service's RPCs (filled in by `_ServeHelp`).
_RPCS = "{rpcs}"


def service_rpcs() -> list[str]:
    """The RPCs of texas42.v1.HintService, from its descriptor (in the .proto's order)."""
    from texas42.v1 import hint_service_pb2
    service = hint_service_pb2.DESCRIPTOR.services_by_name["HintService"]
    return [method.name for method in service.methods]


class _ServeHelp(argparse.HelpFormatter):
    """Lists the RPCs from the service descriptor when help is shown (and only then: the
    generated modules are not imported by every `t42` start)."""

    def add_text(self, text: str | None) -> None:
        if text and _RPCS in text:
            text = text.replace(_RPCS, ", ".join(service_rpcs()))
        super().add_text(text)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="run the gRPC hint service", formatter_class=_ServeHelp,
        description=f"Serve texas42.v1.HintService ({_RPCS}) "
                    "with health checking and reflection. SIGTERM drains calls in flight "
                    "and exits. One JSON log line per call goes to stderr.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=_int_in(0, 65535), default=50051,
                   help="port (default 50051; 0 picks a free one, logged at start)")
    p.add_argument("--workers", type=_int_in(1), default=None,
                   help="solver threads (default: one per core)")
    p.add_argument("--max-queue", type=_int_in(0), default=64,
                   help="calls that may wait for a worker; more get RESOURCE_EXHAUSTED "
                        "(default 64)")
    p.add_argument("--grace", type=_seconds, default=10.0,
                   help="seconds calls in flight get to finish on SIGTERM (default 10)")
    p.add_argument("--metrics-port", type=_int_in(0, 65535), default=None,
                   help="serve Prometheus metrics on this HTTP port (0: a free one)")
    p.add_argument("--http-port", type=_int_in(0, 65535), default=None,
                   help="also serve the API over HTTP/JSON (Connect) and the web page on "
                        "this port (0: a free one, logged at start)")
    p.add_argument("--table-db", metavar="FILE", default=None,
                   help="the table database (SQLite, created when missing): every table a "
                        "person plays at (its deal, bots and actions) and the finished "
                        "games, with the key that signs the tables' tokens, so that a "
                        "restart ends no game and servers on this host sharing FILE serve "
                        "each other's tables. Without it: in memory (games end with the "
                        "process)")
    p.add_argument("--table-key", metavar="FILE", default=None,
                   help="the key that signs the tables' tokens, read from FILE (created "
                        "with a new key, mode 0600, when missing). Without it: the key in "
                        "$T42_TABLE_KEY, else the one kept in the table database")
    p.add_argument("--bot", action="append", default=[], metavar="NAME=COMMAND",
                   help="a program bot that NextAction seats by NAME (repeatable): COMMAND "
                        "runs it, split as a shell does, and it speaks the bot protocol "
                        "(docs/reference/bot-protocol.md); it is started, and its hello "
                        "read, before the server listens. A client names the bot, never a "
                        "command")
    p.add_argument("--bot-time-limit", type=_positive_seconds, default=10.0,
                   metavar="SECONDS",
                   help="seconds a program bot has for each decision (default 10)")
    p.set_defaults(run=run_serve)


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError(f"{text} must be above 0 and at most 86400")
    return value


def _bots(texts: list[str]) -> dict[str, str]:
    """--bot NAME=COMMAND options as name -> command (the names checked by the server)."""
    out: dict[str, str] = {}
    for text in texts:
        name, sep, command = text.partition("=")
        if not sep:
            raise ValueError(f"--bot: expected NAME=COMMAND, not {text!r}")
        if name in out:
            raise ValueError(f"--bot: {name} is named twice")
        out[name] = command
    return out


def run_serve(args: argparse.Namespace) -> int:
    """Start the server and block until it has shut down."""
    # The server writes its own JSON log; gRPC's C core would add unstructured lines
    # (a busy port would print two). GRPC_VERBOSITY set by the user still wins.
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    from server import ServerConfig, ServerError, run

    try:
        bots = _bots(args.bot)
    except ValueError as exc:
        print(f"t42: error: {exc}", file=sys.stderr)
        return 2
    config = ServerConfig(host=args.host, port=args.port, workers=args.workers or 0,
                          max_queue=args.max_queue, grace=args.grace,
                          metrics_port=args.metrics_port, http_port=args.http_port,
                          table_key=args.table_key, table_db=args.table_db, bots=bots,
                          bot_time_limit=args.bot_time_limit)
    try:
        run(config)
    except ServerError as exc:  # a busy port (gRPC or metrics): one line, like bad options
        print(f"t42: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
