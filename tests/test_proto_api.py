"""The gRPC API definition: buf lint (STANDARD and COMMENTS rules) and the generated code."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import texas42.v1
from texas42.v1 import hint_service_pb2, hint_service_pb2_grpc, position_pb2

ROOT = Path(__file__).resolve().parent.parent


def _buf() -> str | None:
    local = ROOT / "node_modules" / ".bin" / "buf"
    return str(local) if local.exists() else shutil.which("buf")


@pytest.mark.skipif(_buf() is None, reason="buf not installed (npm install @bufbuild/buf)")
def test_buf_lint_is_clean():
    done = subprocess.run([_buf(), "lint"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_generated_modules_and_type_stubs():
    service = hint_service_pb2.DESCRIPTOR.services_by_name["HintService"]
    assert service.full_name == "texas42.v1.HintService"
    assert set(service.methods_by_name) >= {"SolvePosition", "MakeOrSet", "SolvePositions"}
    for method in service.methods:  # one request and one response message per RPC
        assert method.input_type.name == method.name + "Request"
        assert method.output_type.name == method.name + "Response"
    assert hasattr(hint_service_pb2_grpc, "HintServiceStub")
    package = Path(texas42.v1.__file__).parent
    for module in (position_pb2, hint_service_pb2, hint_service_pb2_grpc):
        stub = Path(module.__file__).with_suffix(".pyi")
        assert stub.exists(), f"missing type stub {stub.name}"
    assert "class SolvePositionRequest" in (package / "hint_service_pb2.pyi").read_text()
    assert "class HintServiceStub" in (package / "hint_service_pb2_grpc.pyi").read_text()


def test_every_enum_has_an_unspecified_zero():
    for enum in position_pb2.DESCRIPTOR.enum_types_by_name.values():
        assert enum.values_by_number[0].name.endswith("_UNSPECIFIED"), enum.name
