"""Rich gRPC error statuses: bad input as google.rpc.BadRequest plus ErrorInfo.

Clients in any language read the field violations and the stable reason code
from the ``grpc-status-details-bin`` trailer (grpcio-status on Python).
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from solver.game.errors import quoted

#: ErrorInfo domain of every reason code this service sends.
ERROR_DOMAIN = "texas42.v1"


def invalid_argument(field: str, reason: str, code: str) -> grpc.Status:
    """INVALID_ARGUMENT naming one bad field (path and reason) and its reason code."""
    bad_request = error_details_pb2.BadRequest(field_violations=[
        error_details_pb2.BadRequest.FieldViolation(field=field, description=reason)])
    info = error_details_pb2.ErrorInfo(reason=code, domain=ERROR_DOMAIN, metadata={"field": field})
    details = []
    for message in (bad_request, info):
        packed = any_pb2.Any()
        packed.Pack(message)
        details.append(packed)
    status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=f"{field}: {reason}",
                               details=details)
    return rpc_status.to_status(status)


def undecodable_request(detail: str) -> grpc.Status:
    """INVALID_ARGUMENT for a request message that is not valid protobuf of its type
    (garbage or truncated bytes, invalid UTF-8 in a string field); ``detail`` says what
    the parser met."""
    info = error_details_pb2.ErrorInfo(reason="UNDECODABLE_REQUEST", domain=ERROR_DOMAIN)
    packed = any_pb2.Any()
    packed.Pack(info)
    # The decoder's message can hold a whole bad value (a field name, an enum string):
    # quote a short prefix of it.
    message = "request cannot be decoded" + (f": {quoted(detail)}" if detail else "")
    status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=message, details=[packed])
    return rpc_status.to_status(status)
