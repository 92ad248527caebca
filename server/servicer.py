"""The texas42.v1.HintService handlers: one method per RPC over the solver's Python API.

Every handler hands its work to `_solve_call`, which holds the shared rules:
admission (RESOURCE_EXHAUSTED when full), a cancel token bound to the call's
deadline and cancellation, and the mapping of failures to gRPC statuses
(INVALID_ARGUMENT with field violations, DEADLINE_EXCEEDED, CANCELLED,
INTERNAL; never UNKNOWN). A new RPC adds a handler and a worker function
(and, when its input is not a position, the mapping of the solver's JSON field
paths to its request's fields).
"""

from __future__ import annotations

import asyncio
import functools
import traceback
from typing import Awaitable, Callable, NoReturn, Optional, TypeVar

import grpc

from solver import CancelToken, Position, PositionError, SearchCancelled, make_or_set, solve
from solver.game.jsondoc import CheckedObject
from solver.game.view import View
from solver.hidden.deals import count_deals, tile_probabilities
from solver.hidden.hint import hint
from solver.hidden.seat_view import seat_view_hint
from solver.play.program_bot import BotError
from solver.play.table import Tables
from solver.play.table_store import TableStore
from solver.search.analysis import analyze_hand
from solver.search.table import solve_deal
from texas42.v1 import deal_table_pb2 as table_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_pb2
from texas42.v1 import hint_service_pb2 as service_pb
from texas42.v1 import hint_service_pb2_grpc as service_grpc
from texas42.v1 import position_pb2 as pb
from texas42.v1 import table_pb2
from texas42.v1 import view_pb2 as view_pb

from . import convert, hint_convert, status
from .deadlines import CallDeadline
from .pool import Overloaded, SolverPool, token_for
from .table_convert import Refused
from .telemetry import log_event

T = TypeVar("T")

#: Most positions one SolvePositions call may carry.
MAX_BATCH = 1000

SERVICE_NAME = service_pb.DESCRIPTOR.services_by_name["HintService"].full_name


class BadRequest(Exception):
    """Bad input at a request-level ``field`` path (already mapped to the proto), with
    its ``reason`` and reason ``code``."""

    def __init__(self, field: str, reason: str, code: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field, self.reason, self.code = field, reason, code

    def __reduce__(self):
        # Rebuilt from its fields (the default passes the message alone to __init__).
        return type(self), (self.field, self.reason, self.code), self.__dict__


#: Positions with at most this many tricks left (the one being played included) are solved
#: on the event loop's thread: searching one takes less than handing the job to a worker
#: thread and back (a few nodes, tens of microseconds).
INLINE_MAX_TRICKS = 2


def _parse(message: pb.Position) -> Position:
    """Validate a proto position with the solver (raises `PositionError` on JSON paths)."""
    # A decoded message holds only valid strings, bounded integers and lists of strings, so
    # its JSON form is JSON data by construction: the document walk is skipped, every
    # field is still checked by the position.
    return Position(CheckedObject(convert.position_to_json(message)))


def _table_field_path(json_field: str) -> str:
    """The request field path of an error on a record (``record...``), or on a field of
    the table request itself (its token, seat, seed, kind or bots)."""
    from .game_convert import record_field_path
    if json_field in ("sealed", "seat", "seed", "practice", "bots") or \
            json_field.startswith("bots["):
        return json_field
    return record_field_path(json_field)


class HintServicer(service_grpc.HintServiceServicer):
    """Solves on the `SolverPool` ``pool``; the event loop only converts and dispatches.
    ``tables`` keeps the tables of the table RPCs (None: an in-memory store of its
    own)."""

    def __init__(self, pool: SolverPool, tables: Tables | None = None) -> None:
        self.pool = pool
        #: The tables (their state, and the key that signs their tokens).
        self.tables = tables if tables is not None else Tables(TableStore())

    # ------------------------------------------------------------------ RPCs

    async def SolvePosition(self, request: service_pb.SolvePositionRequest,
                            context: grpc.aio.ServicerContext) -> service_pb.SolvePositionResponse:
        """Value, makes, seat to move, scored moves and an optimal line of one position."""
        best_only = request.best_only

        def work(position: Position, token: CancelToken) -> pb.Solution:
            # threads=1: the pool's workers are the service's parallelism.
            return convert.solution_to_proto(solve(position, best_only=best_only, token=token,
                                                   threads=1), position)

        solution = await self._solve_call(
            context, lambda token: self._run_on_position(request.position, work, token))
        return service_pb.SolvePositionResponse(solution=solution)

    async def MakeOrSet(self, request: service_pb.MakeOrSetRequest,
                        context: grpc.aio.ServicerContext) -> service_pb.MakeOrSetResponse:
        """Null-window make-or-set answer for the request's bid (or the contract's)."""
        bid, exact = request.bid or None, request.exact

        def work(position: Position, token: CancelToken) -> service_pb.MakeOrSetResponse:
            return convert.make_or_set_to_proto(make_or_set(position, bid, exact=exact,
                                                            token=token, threads=1))

        return await self._solve_call(
            context, lambda token: self._run_on_position(request.position, work, token))

    async def SolvePositions(self, request: service_pb.SolvePositionsRequest,
                             context: grpc.aio.ServicerContext
                             ) -> service_pb.SolvePositionsResponse:
        """Solve a batch in parallel; a bad position yields an error in its own slot."""
        count = len(request.positions)
        if count > MAX_BATCH:
            await self._abort_bad_request(context, BadRequest(
                "positions", f"{count} positions; a batch holds at most {MAX_BATCH}",
                "TOO_MANY_POSITIONS"))
        best_only = request.best_only

        def work(index: int, token: CancelToken) -> service_pb.PositionResult:
            try:
                position = _parse(request.positions[index])
            except PositionError as exc:
                return service_pb.PositionResult(
                    error=convert.position_error_to_proto(exc, f"positions[{index}]"))
            result = solve(position, best_only=best_only, token=token, threads=1)
            return service_pb.PositionResult(solution=convert.solution_to_proto(result,
                                                                                position))

        async def batch(token: CancelToken) -> list[service_pb.PositionResult]:
            results: list[Optional[service_pb.PositionResult]] = [None] * count
            indices = iter(range(count))

            async def lane() -> None:
                # At most one job per worker in the executor queue at a time, so
                # other calls interleave with a long batch instead of waiting it out.
                for i in indices:
                    results[i] = await self._run(functools.partial(work, i), token)

            lanes = [asyncio.ensure_future(lane()) for _ in range(min(self.pool.workers, count))]
            try:
                await asyncio.gather(*lanes)
            finally:
                for task in lanes:
                    task.cancel()
            return [r for r in results if r is not None]

        results = await self._solve_call(context, batch)
        return service_pb.SolvePositionsResponse(results=results)

    async def AnalyzeHand(self, request: service_pb.AnalyzeHandRequest,
                          context: grpc.aio.ServicerContext) -> service_pb.AnalyzeHandResponse:
        """Every play of a hand record against double-dummy play, and the hand's outcome."""
        def work(token: CancelToken) -> hand_pb.HandAnalysis:
            analysis = analyze_hand(convert.hand_record_to_json(request), token=token)
            return convert.hand_analysis_to_proto(analysis)

        analysis = await self._solve_call(context, lambda token: self._run(work, token),
                                          field_path=convert.record_field_path)
        return service_pb.AnalyzeHandResponse(analysis=analysis)

    async def SolveDeal(self, request: service_pb.SolveDealRequest,
                        context: grpc.aio.ServicerContext) -> service_pb.SolveDealResponse:
        """The double-dummy table of a deal, on one worker thread."""
        def work(token: CancelToken) -> table_pb.DealTable:
            # One thread: the pool already runs as many calls at once as there are cores.
            table = solve_deal(convert.deal_to_json(request), token=token, threads=1)
            return convert.deal_table_to_proto(table)

        table = await self._solve_call(context, lambda token: self._run(work, token),
                                       field_path=convert.deal_field_path)
        return service_pb.SolveDealResponse(table=table)

    async def CountDeals(self, request: view_pb.CountDealsRequest,
                         context: grpc.aio.ServicerContext) -> view_pb.CountDealsResponse:
        """The exact number of deals consistent with a view and its tile probabilities."""
        def work(token: CancelToken) -> view_pb.CountDealsResponse:
            view = View(convert.view_to_json(request.view))
            return convert.count_deals_to_proto(count_deals(view), tile_probabilities(view),
                                                view.to_move, view.side)

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=convert.view_field_path)

    async def BidAdvice(self, request, context: grpc.aio.ServicerContext):
        """Bid advice for one seat's hand over seeded random deals, on one worker thread."""
        # Imported here so that this RPC stays one self-contained block of the servicer.
        from solver.hidden.seat_view_bidding import bid_advice
        from texas42.v1 import bidding_pb2 as bid_pb

        from . import bid_convert

        async def body(token: CancelToken) -> bid_pb.BidAdvice:
            # The request is read (its counts checked) here, so that a bad one is refused
            # at once, without waiting for a worker; `advise` checks the rest.
            kwargs = self.pool.check(lambda: bid_convert.request_to_kwargs(request))

            def work(token: CancelToken) -> bid_pb.BidAdvice:
                # One thread: the pool already runs as many calls at once as there are cores.
                advice = bid_advice(**kwargs, token=token, threads=1)
                return bid_convert.advice_to_proto(advice)

            return await self._run(work, token)

        advice = await self._solve_call(context, body, field_path=bid_convert.bid_field_path)
        return bid_pb.BidAdviceResponse(advice=advice)

    async def CheckGame(self, request, context: grpc.aio.ServicerContext):
        """A game record checked and scored (no search), with what the seat to act may do
        and the last hand's tricks, on a worker thread. With a table's token, the sealed
        hand is filled in from it and nothing hidden is answered."""
        # Imported here so that this RPC stays one self-contained block of the servicer.
        from solver.game.game_record import read_game

        from . import game_convert, table_convert

        def work(token: CancelToken):
            seated = None
            if request.sealed:
                seated = self.tables.check(request.sealed,
                                           game_convert.record_to_json(request.record))
                game = seated.game
            else:
                game = read_game(CheckedObject(game_convert.record_to_json(request.record)))
            response = game_convert.summary_to_proto(game)
            turn = game.next_action()
            if seated is not None:
                if not seated.person_declares:
                    response.hands[-1].discard = ""   # a bot's discard: RevealHand shows it
                if turn is not None and turn["seat"] == seated.seat:
                    response.legal.CopyFrom(table_convert.legal_to_proto(game))
            elif turn is not None:
                response.legal.CopyFrom(table_convert.legal_to_proto(game))
            response.progress.CopyFrom(table_convert.progress_to_proto(game))
            return response

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=_table_field_path)

    async def NextAction(self, request, context: grpc.aio.ServicerContext):
        """What a bot does next for the seat to act, from that seat's view alone (cheat:
        the record's deal), with its figures; the search on a worker thread."""
        # Imported here so that this RPC stays one self-contained block of the servicer.
        from solver.game.game_record import read_game
        from solver.play.bots import make_bot
        from solver.play.game_play import next_action_figures

        from . import game_convert, table_convert

        async def body(token: CancelToken):
            # The bot's options are checked here (a bad one is refused at once, without
            # waiting for a worker); the record and the turn on the worker.
            def bot_options() -> dict:
                # At a table, a bot's seat is the table's own bot: the request names none.
                if request.sealed and table_convert.bot_request_fits(
                        self.tables, request.sealed,
                        game_convert.SEAT_OF_ENUM.get(request.seat, ""), request):
                    return {}
                return game_convert.next_action_bot_options(request)

            options = self.pool.check(bot_options)

            def ask(game):
                bot = make_bot(options["name"], seed=options["seed"],
                               hint_deals=options["hint_deals"],
                               advice_deals=options["advice_deals"])
                if hasattr(bot, "token"):
                    bot.token = token   # advice and cheat: their searches stop at the deadline
                return next_action_figures(game, bot)

            def work(token: CancelToken):
                if not request.sealed:
                    game = read_game(CheckedObject(game_convert.record_to_json(
                        request.record)))
                    game_convert.check_turn(game, request.seat)
                    return game_convert.next_action_to_proto(ask(game))
                seat = game_convert.SEAT_OF_ENUM.get(request.seat)
                if seat is None:
                    game_convert.check_turn(read_game({"game": "42", "hands": []}),
                                            request.seat)   # names the missing seat
                if options.get("name") == "cheat" and seat == self.tables.table_of(
                        request.sealed).seat:
                    raise PositionError("bot", "the cheat bot sees the hidden hands: not for "
                                        "the person's own seat", "INVALID_VALUE")
                _, found, by_bot = self.tables.next_action(
                    request.sealed, game_convert.record_to_json(request.record), seat,
                    ask, token)
                response = game_convert.next_action_to_proto(found)
                if by_bot:
                    response.ClearField("figures")   # shown with the deal, once it is over
                    response.sealed = request.sealed
                    if found["action"] == "discard":
                        response.tile = ""   # a bot's discard is the table's
                return response

            return await self._run(work, token)

        def field_path(json_field: str) -> str:
            return json_field if json_field in ("bot", "seat", "advice_deals", "hint_deals") \
                else _table_field_path(json_field)

        return await self._solve_call(context, body, field_path=field_path)

    async def DealHand(self, request, context: grpc.aio.ServicerContext):
        """A new table and its first hand, or a table's next hand: the person's tiles and
        the hand's token (no search: on a worker thread)."""
        from . import table_convert

        def work(token: CancelToken):
            return table_convert.deal_hand(self.tables, request)

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=_table_field_path)

    async def RevealHand(self, request, context: grpc.aio.ServicerContext):
        """The whole deal of a table's hand once it is over (FAILED_PRECONDITION before),
        with its bots' decisions and their figures."""
        from . import game_convert, table_convert

        def work(token: CancelToken):
            return table_convert.reveal_to_proto(self.tables.reveal(
                request.sealed, game_convert.record_to_json(request.record)))

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=_table_field_path)

    async def TakeWidow(self, request, context: grpc.aio.ServicerContext):
        """Three-player Moon: the widow for the person who won the auction."""
        from . import game_convert

        def work(token: CancelToken):
            return table_pb2.TakeWidowResponse(widow=self.tables.widow(
                request.sealed, game_convert.record_to_json(request.record)))

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=_table_field_path)

    async def ListBots(self, request, context: grpc.aio.ServicerContext):
        """The bots a table of the request's game may seat (no search: answered here)."""
        from . import table_convert

        async def body(token: CancelToken):
            return table_convert.bots_to_proto(request)

        return await self._solve_call(context, body)

    async def ResumeTable(self, request, context: grpc.aio.ServicerContext):
        """Where a table is: its person's record and the current hand's token."""
        from . import table_convert

        def work(token: CancelToken):
            return table_convert.resume_to_proto(self.tables.resume(request.sealed))

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=_table_field_path)

    async def GradeHand(self, request, context: grpc.aio.ServicerContext):
        """Every play of a hand record graded from its seat's view, on a worker thread."""
        # Imported here so that this RPC stays one self-contained block of the servicer.
        from solver.hidden.coaching import grade_hand

        from . import coaching_convert

        async def body(token: CancelToken):
            # The options are read here (GradeHand takes no advice options: refused at
            # once); `grade_hand` checks them and the record on the worker.
            options = self.pool.check(lambda: coaching_convert.grade_options(
                request.options, game=False))

            def work(token: CancelToken):
                # One thread: the pool already runs as many calls at once as there are cores.
                grades = grade_hand(convert.hand_record_to_json(request), token=token,
                                    threads=1, **options)
                return coaching_convert.hand_response(grades)

            return await self._run(work, token)

        return await self._solve_call(context, body,
                                      field_path=coaching_convert.grade_field_path)

    async def GradeGame(self, request, context: grpc.aio.ServicerContext):
        """Every decision of a game record graded from its seat's view (calls by bid
        advice), on a worker thread."""
        from solver.hidden.coaching import grade_game

        from . import coaching_convert

        async def body(token: CancelToken):
            options = self.pool.check(lambda: coaching_convert.grade_options(
                request.options, game=True))
            hands = list(request.hands) or None

            def work(token: CancelToken):
                game = coaching_convert.read_record(request.record)
                grades = grade_game(game, token=token, threads=1, hands=hands, **options)
                return coaching_convert.game_response(grades)

            return await self._run(work, token)

        return await self._solve_call(context, body,
                                      field_path=coaching_convert.game_field_path)

    async def ListFinishedGames(self, request, context: grpc.aio.ServicerContext):
        """The finished games of the tables whose tokens the request holds (no search:
        on a worker thread, which reads the table store)."""
        from . import coaching_convert

        def work(token: CancelToken):
            tokens = coaching_convert.finished_request(request)
            return coaching_convert.finished_to_proto(self.tables.finished_games(tokens))

        return await self._solve_call(context, lambda token: self._run(work, token),
                                      field_path=lambda field: field)

    # ------------------------------------------------------- shared machinery

    async def _run(self, work: Callable[[CancelToken], T], token: CancelToken) -> T:
        """``work`` on a worker thread."""
        return await self.pool.run(lambda: work(token), token)

    async def _run_on_position(self, message: pb.Position,
                               work: Callable[[Position, CancelToken], T],
                               token: CancelToken) -> T:
        """Parse ``message`` here, then run ``work`` on it: right here when the position
        has at most `INLINE_MAX_TRICKS` tricks left (a tiny search: handing it to a worker
        and back would cost more than the search), else on a worker thread.

        Parsing holds the GIL wherever it runs, so it costs the workers nothing to do it
        on the event loop's thread; a bad position is counted as a ``bad_input`` job.
        """
        position = self.pool.check(lambda: _parse(message))
        if position.tricks_left <= INLINE_MAX_TRICKS and self.pool.hold_file is None:
            return self.pool.run_inline(lambda: work(position, token))
        return await self.pool.run(lambda: work(position, token), token)

    async def _solve_call(self, context: grpc.aio.ServicerContext,
                          body: Callable[[CancelToken], Awaitable[T]], *,
                          field_path: Callable[[str], str] = convert.proto_field_path) -> T:
        """Admit the call, run ``body`` with a token for its deadline, map failures.

        ``field_path`` maps the JSON field path of a `PositionError` to the
        request's field path (by default: the request's ``position``).
        """
        deadline = CallDeadline.of(context)
        try:
            self.pool.admit()
            try:
                token = token_for(context, deadline)
                return await body(token)
            except asyncio.CancelledError:
                token.cancel()
                raise
            finally:
                self.pool.release()
        except Overloaded as exc:
            failure = grpc.StatusCode.RESOURCE_EXHAUSTED, f"server busy: {exc}"
        except PositionError as exc:
            await self._abort_bad_request(context, BadRequest(
                field_path(exc.field), convert.proto_reason(exc.reason), exc.code))
        except Refused as exc:
            failure = grpc.StatusCode.FAILED_PRECONDITION, str(exc)
        except SearchCancelled:
            failure = (grpc.StatusCode.DEADLINE_EXCEEDED, "deadline passed during the search") \
                if deadline.expired() else (grpc.StatusCode.CANCELLED, "search cancelled")
        except BotError as exc:   # a program bot failed: named, without its own words
            log_event("bot_failed", bot=exc.bot, reason=exc.reason, detail=exc.detail)
            failure = grpc.StatusCode.UNAVAILABLE, exc.public
        except Exception as exc:  # never let a bug surface as UNKNOWN
            log_event("internal_error", error=repr(exc), traceback=traceback.format_exc())
            failure = grpc.StatusCode.INTERNAL, "internal error"
        await context.abort(*failure)
        raise AssertionError("unreachable: abort raises")

    @staticmethod
    async def _abort_bad_request(context: grpc.aio.ServicerContext, error: BadRequest) -> NoReturn:
        """INVALID_ARGUMENT with a BadRequest field violation and an ErrorInfo reason code."""
        rich = status.invalid_argument(error.field, error.reason, error.code)
        await context.abort(rich.code, rich.details, rich.trailing_metadata)
        raise AssertionError("unreachable: abort raises")

    async def Hint(self, request: hint_pb2.HintRequest,
                   context: grpc.aio.ServicerContext) -> hint_pb2.HintResponse:
        """Every legal move of the viewer scored over the deals consistent with its view."""
        async def body(token: CancelToken) -> hint_pb2.HintResponse:
            # The options are checked here (deals=2**32-1 is refused at once, without
            # waiting for a worker); the view on the worker, by `hint`.
            options = self.pool.check(lambda: hint_convert.hint_options(request))

            def work(token: CancelToken) -> hint_pb2.HintResponse:
                if "method" in options:   # a seat-view search
                    return hint_convert.seat_view_to_proto(seat_view_hint(
                        convert.view_to_json(request.view), token=token, **options))
                # One thread: the pool already runs as many calls at once as there are cores.
                result = hint(convert.view_to_json(request.view), token=token, threads=1,
                              **options)
                return hint_convert.hint_to_proto(result)

            return await self._run(work, token)

        return await self._solve_call(context, body, field_path=hint_convert.hint_field_path)
