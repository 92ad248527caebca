"""Hostile input on the service's newer faces, and the tools around it.

- A view's numeric fields take whole numbers only (``"players": 3.0`` is no count).
- The HTTP port: a gzip body that is not gzip (or inflates past 4 MiB), or an
  encoding the service does not speak, is refused, counted and logged as the
  other refused requests are; a Connect JSON body with a field or enum name the
  message does not have is refused naming that field.
- ``POST /document`` (the web page's reader) judges a pasted document with the
  CLI's reader and names the field and the reason.
- ``t42 serve --help`` names every RPC of the service (from its descriptor).
- ``.ci/run`` keeps everything of a run in a temporary directory of its own.

Service tests run a real `t42 serve` on 127.0.0.1 and wait on nothing but its
answers (it logs and counts a refusal before answering). About 3 s.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2

from grpc_helpers import Metric, http_post
from server.convert import deal_from_json, hand_record_from_json, position_from_json
from server.launcher import ServerProcess, t42_command
from solver import PositionError
from solver.game.view import View
from solver.search.analysis import parse_record
from texas42.v1 import hint_service_pb2 as hs

ROOT = Path(__file__).resolve().parent.parent
DEAL = json.loads((ROOT / "examples" / "deal.json").read_text())
VIEW = json.loads((ROOT / "examples" / "view.json").read_text())
RECORDS = [json.loads(line) for line in (ROOT / "examples" / "hands.jsonl").read_text().splitlines()]
SOLVE = "/texas42.v1.HintService/SolvePosition"
LIMIT = 4 * 1024 * 1024


# ----------------------------------------------------------------- a view's numbers

MOON_VIEW = {"game": "moon", "seat": "E", "players": 3,
             "hands": {"E": ["6-5", "6-2", "5-4", "4-2", "3-3", "2-2", "0-0"]},
             "contract": {"declarer": "N", "trump": "fours", "bid": 5}}


@pytest.mark.parametrize("view,players", [
    (MOON_VIEW, 3.0), (MOON_VIEW, 4.0), (MOON_VIEW, True), (MOON_VIEW, "3"),
    (VIEW, 4.0), (VIEW, True), (VIEW, "4"),
], ids=["moon-3.0", "moon-4.0", "moon-true", "moon-string", "42-4.0", "42-true", "42-string"])
def test_view_players_must_be_a_whole_number(view, players):
    """As a bid of 30.0 is refused, so is a count of 3.0 players (the same check)."""
    good = view.get("players", 4)
    assert View({**view, "players": good}).players == good
    with pytest.raises(PositionError) as err:
        View({**view, "players": players})
    assert (err.value.field, err.value.code) == ("players", "INVALID_TYPE")
    assert err.value.reason == f"must be a whole number, not {players!r}"
    # The bid's own wording, for comparison.
    with pytest.raises(PositionError) as bid:
        View({**view, "contract": {**view["contract"], "bid": 30.0}})
    assert bid.value.reason == "must be a whole number, not 30.0"


def test_view_numbers_elsewhere_take_whole_numbers_only():
    """The view's other numbers (the contract's bid, an auction's bids, tiles written as
    numbers) refuse a float too."""
    for change, field in [
        ({"contract": {**VIEW["contract"], "bid": 30.0}}, "contract.bid"),
        ({"auction": [{"seat": "N", "bid": 30.0}]}, "auction[0].bid"),
        ({"plays": [11.0, "2-2"]}, "plays[0]"),
        ({"hands": {"E": [66.0, "6-5", "6-4", "5-0", "4-1", "3-2", "0-0"]}}, "hands.E[0]"),
    ]:
        with pytest.raises(PositionError) as err:
            View({**VIEW, **change})
        assert err.value.field == field


# ------------------------------------------------------------------ the HTTP port

@pytest.fixture(scope="module")
def web_server():
    with ServerProcess("--workers", "1", "--http-port", "0", "--metrics-port", "0") as proc:
        yield proc


def post(server: ServerProcess, path: str, body: bytes,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """POST to the HTTP port; (status, the JSON answer)."""
    status, answer, _ = http_post(server, path, body, headers)
    return status, json.loads(answer)


def gzip_json() -> dict[str, str]:
    return {"Content-Type": "application/json", "Content-Encoding": "gzip"}


def refused_lines(server: ServerProcess, reason: str) -> list[tuple[str, str]]:
    return [(e["method"], e["code"]) for e in server.log("rpc")
            if e.get("transport") == "connect" and e.get("rejected") == reason]


def violation(error: dict) -> tuple[str, str, str]:
    """(field, description, ErrorInfo reason) of a Connect error's details."""
    found: dict[str, Any] = {}
    for detail in error["details"]:
        value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        if detail["type"] == "google.rpc.BadRequest":
            [v] = error_details_pb2.BadRequest.FromString(value).field_violations
            found["field"], found["description"] = v.field, v.description
            assert detail["debug"] == {"fieldViolations": [
                {"field": v.field, "description": v.description}]}
        elif detail["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(value)
            assert info.domain == "texas42.v1"
            found["reason"] = info.reason
    assert error["message"] == f"{found['field']}: {found['description']}"
    return found["field"], found["description"], found["reason"]


def _request_json() -> bytes:
    request = hs.SolvePositionRequest(position=position_from_json(DEAL), best_only=True)
    return json_format.MessageToJson(request).encode()


@pytest.mark.parametrize("body", [b"not gzip at all", gzip.compress(_request_json())[:-9],
                                  gzip.compress(_request_json()) + b"trailing bytes"],
                         ids=["not-gzip", "truncated", "trailing-garbage"])
def test_a_bad_gzip_body_is_refused_counted_and_logged(web_server, body):
    metric = Metric(web_server.metrics_port)
    lines = len(refused_lines(web_server, "undecodable"))
    status, error = post(web_server, SOLVE, body, gzip_json())
    assert status == 400
    assert error["code"] == "invalid_argument"
    assert error["message"].startswith("request cannot be decoded: 'not a gzip body")
    assert refused_lines(web_server, "undecodable")[lines:] == [(SOLVE, "INVALID_ARGUMENT")]
    labels = f'method="{SOLVE}",reason="undecodable"'
    assert metric.delta(f"t42_rpc_rejected_requests_total{{{labels}}}") == 1
    assert metric.delta(f't42_rpc_calls_total{{code="INVALID_ARGUMENT",method="{SOLVE}"}}') == 1


def test_a_gzip_body_is_answered_as_the_same_body_plain(web_server):
    plain = post(web_server, SOLVE, _request_json())
    assert plain[0] == 200
    two_members = gzip.compress(_request_json()[:20]) + gzip.compress(_request_json()[20:])
    for body in (gzip.compress(_request_json()), two_members):
        assert post(web_server, SOLVE, body, gzip_json()) == plain
    # Judged as a plain body is: a bad field inside is named.
    body = gzip.compress(b'{"position": {"plyas": []}}')
    status, error = post(web_server, SOLVE, body, gzip_json())
    assert status == 400 and violation(error)[0] == "position.plyas"


def test_a_gzip_body_that_inflates_past_4_mib_is_resource_exhausted(web_server):
    metric = Metric(web_server.metrics_port)
    lines = len(refused_lines(web_server, "too_large"))
    body = gzip.compress(b'{"position": {"plays": ["' + b"x" * LIMIT + b'"]}}')
    assert len(body) < 10_000
    status, error = post(web_server, SOLVE, body, gzip_json())
    assert (status, error) == (413, {"code": "resource_exhausted",
                                     "message": f"request over the {LIMIT} byte limit"})
    assert refused_lines(web_server, "too_large")[lines:] == [(SOLVE, "RESOURCE_EXHAUSTED")]
    labels = f'method="{SOLVE}",reason="too_large"'
    assert metric.delta(f"t42_rpc_rejected_requests_total{{{labels}}}") == 1


def test_an_unknown_encoding_is_unimplemented_counted_and_logged(web_server):
    metric = Metric(web_server.metrics_port)
    lines = len(refused_lines(web_server, "unsupported_encoding"))
    status, error = post(web_server, SOLVE, b"{}", {"Content-Type": "application/json",
                                                    "Content-Encoding": "br"})
    assert (status, error) == (501, {"code": "unimplemented", "message": "unknown compression "
                                     "'br': supported encodings are gzip, identity"})
    assert refused_lines(web_server, "unsupported_encoding")[lines:] == \
        [(SOLVE, "UNIMPLEMENTED")]
    labels = f'method="{SOLVE}",reason="unsupported_encoding"'
    assert metric.delta(f"t42_rpc_rejected_requests_total{{{labels}}}") == 1


@pytest.mark.parametrize("body,field,reason_start,code", [
    ({"position": {**json_format.MessageToDict(position_from_json(DEAL)), "plyas": []}},
     "position.plyas", "unknown field of Position (known: game, hands, contract, plays, ",
     "UNKNOWN_FIELD"),
    ({"bestOnly": True, "psoition": {}}, "psoition",
     "unknown field of SolvePositionRequest", "UNKNOWN_FIELD"),
    ({"position": {"contract": {"declaration": "DECLARATION_FOURZ"}}},
     "position.contract.declaration", "unknown value 'DECLARATION_FOURZ' (one of ",
     "INVALID_VALUE"),
    ({"position": {"contract": {"bid": "thirty"}}}, "position.contract.bid",
     "not a valid whole number: 'thirty'", "INVALID_TYPE"),
    ({"position": {"hands": {"north": ["6-6", {"x": 1}]}}}, "position.hands.north",
     "not a valid string: ", "INVALID_TYPE"),
    ({"position": {"hands": {"west": "6-6"}}}, "position.hands.west",
     "not a valid list: '6-6'", "INVALID_TYPE"),
    ({"position": [1]}, "position", "must be a JSON object, not [1]", "INVALID_TYPE"),
], ids=["unknown-field", "top-level", "enum-name", "number", "list-item", "list", "message"])
def test_a_connect_json_body_names_the_field_protobuf_would_not_take(
        web_server, body, field, reason_start, code):
    metric = Metric(web_server.metrics_port)
    status, error = post(web_server, SOLVE, json.dumps(body).encode())
    assert status == 400 and error["code"] == "invalid_argument"
    got_field, description, got_code = violation(error)
    assert (got_field, got_code) == (field, code)
    assert description.startswith(reason_start), description
    # Still a refused request: counted so.
    labels = f'method="{SOLVE}",reason="undecodable"'
    assert metric.delta(f"t42_rpc_rejected_requests_total{{{labels}}}") == 1


def test_a_body_that_is_not_json_still_quotes_the_parser(web_server):
    status, error = post(web_server, SOLVE, b'{"position": ')
    assert status == 400
    assert error["message"].startswith("request cannot be decoded: '")
    assert [d["type"] for d in error["details"]] == ["google.rpc.ErrorInfo"]


# ------------------------------------------------------------- the page's reader

def _cli_error(doc: Any) -> tuple[str, str, str]:
    try:
        parse_record(doc)
    except PositionError as exc:
        return exc.field, exc.reason, exc.code
    raise AssertionError("expected a bad document")


@pytest.mark.parametrize("doc", [
    {**DEAL, "game": "banana"},
    {**DEAL, "plyas": []},
    {**DEAL, "contract": {**DEAL["contract"], "trump": "fourz"}},
    {**DEAL, "contract": {**DEAL["contract"], "declarer": "w"}},
    {**DEAL, "plays": ["1-1", "6-6"]},
    {**RECORDS[0], "meta": {"players": {"X": "Ann"}}},
    {**DEAL, "contract": {**DEAL["contract"], "bid": 30.0}},
], ids=["game", "unknown-field", "trump", "declarer", "illegal-play", "meta", "bid"])
def test_the_document_reader_refuses_what_the_cli_refuses(web_server, doc):
    status, error = post(web_server, "/document", json.dumps(doc).encode(),
                         {"Content-Type": "text/plain"})
    assert status == 400 and error["code"] == "invalid_argument"
    assert violation(error) == _cli_error(doc)


def test_the_document_reader_names_the_field_and_the_whole_reason(web_server):
    doc = {**DEAL, "contract": {**DEAL["contract"], "trump": "fourz"}}
    _, error = post(web_server, "/document", json.dumps(doc).encode())
    assert error["message"].startswith("contract.trump: unknown declaration 'fourz' (one of ")


@pytest.mark.parametrize("text,field,reason_start", [
    (b'{"hands": ', "position", "not valid JSON: "),
    (b"[1, 2]", "position", "an input document must be a JSON object"),
    (b"", "position", "empty: "),
    (b"\xff\xfe\x00bad", "position", "not valid "),
], ids=["broken", "list", "empty", "encoding"])
def test_the_document_reader_refuses_what_is_no_document(web_server, text, field, reason_start):
    status, error = post(web_server, "/document", text)
    assert status == 400
    got_field, description, _ = violation(error)
    assert got_field == field and description.startswith(reason_start), description


def test_the_document_reader_answers_the_canonical_document_and_requests(web_server):
    record = {**RECORDS[0], "id": {"free": ["data"]},
              "contract": {**RECORDS[0]["contract"], "trump": RECORDS[0]["contract"]["trump"]
                           .upper()}}
    text = json.dumps(record) + "\n" + json.dumps(DEAL) + "\n"  # JSON Lines: the first
    status, answer = post(web_server, "/document", text.encode())
    assert status == 200
    position, ident, meta = parse_record(record)
    document = {**position.to_json(), "id": ident, "meta": meta}
    assert answer["document"] == document
    assert answer["position"] == json_format.MessageToDict(position_from_json(document))
    assert answer["record"] == json_format.MessageToDict(hand_record_from_json(document))
    assert answer["deal"] == json_format.MessageToDict(deal_from_json(
        {"hands": document["hands"]}))
    # A Moon document has no deal table.
    moon = json.loads((ROOT / "examples" / "moon.json").read_text())
    status, answer = post(web_server, "/document", json.dumps(moon).encode())
    assert status == 200 and "deal" not in answer and answer["document"]["game"] == "moon"


def test_the_document_reader_refuses_a_body_over_4_mib(web_server):
    status, error = post(web_server, "/document", b" " * (LIMIT + 1))
    assert (status, error["code"]) == (413, "resource_exhausted")


# ------------------------------------------------------------------ t42 serve --help

def test_serve_help_names_every_rpc_of_the_service():
    """The list comes from the service descriptor; the .proto is read here on its own."""
    proto = (ROOT / "proto" / "texas42" / "v1" / "hint_service.proto").read_text()
    service = re.search(r"service HintService \{(.*?)\n\}", proto, re.S).group(1)
    rpcs = re.findall(r"^\s*rpc (\w+)\(", service, re.M)
    assert len(rpcs) >= 8
    done = subprocess.run(t42_command() + ["serve", "--help"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "COLUMNS": "1000"})
    assert done.returncode == 0
    listed = re.search(r"HintService \(([^)]*)\)", done.stdout).group(1).split(", ")
    assert listed == rpcs


# ------------------------------------------------------------------------- .ci/run

_STUB = r"""#!/usr/bin/env bash
# A stand-in for @NAME@ in a dry run of .ci/run: logs its call, fakes what it must.
set -eu
name=@NAME@
printf '%s %s %s %s\n' "$$" "$name" "${VIRTUAL_ENV:-}" "$*" >>"$CI_STUB_LOG"
after() {  # the argument after $1 in the rest
    local flag=$1; shift
    while [ $# -gt 1 ]; do [ "$1" = "$flag" ] && { echo "$2"; return; }; shift; done
}
if [ "$name" = python3 ] && [ "${1:-}" = -m ] && [ "${2:-}" = venv ]; then
    mkdir -p "$(dirname "$3")" && mkdir "$3" && mkdir "$3/bin"
    echo "export VIRTUAL_ENV=$3" >"$3/bin/activate"
    ln -s "$(dirname "$0")/python" "$3/bin/python"
    ln -s "$(dirname "$0")/python" "$3/bin/t42"
elif [ "${1:-}" = -c ]; then
    echo setuptools
elif [ "${1:-} ${2:-}" = "-m build" ]; then
    out=$(after -o "$@")
    mkdir -p "$out/src/texas42_solver-0/examples" && echo '{}' >"$out/src/texas42_solver-0/examples/deal.json"
    tar -czf "$out/texas42_solver-0.tar.gz" -C "$out/src" texas42_solver-0 && rm -rf "$out/src"
elif [ "${1:-} ${2:-} ${3:-}" = "-m pip wheel" ]; then
    touch "$(after -w "$@")/texas42_solver-0-py3-none-any.whl"
elif [ "${1:-}" = fuzz/fuzz_input.py ]; then
    corpus=$(after --corpus "$@")
    mkdir -p "$corpus" && touch "$corpus/seed-0000"
fi
"""


def _ci_stubs(directory: Path) -> Path:
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    for name in ("python3", "python", "npm", "chromium"):
        stub = bin_dir / name
        stub.write_text(_STUB.replace("@NAME@", name))
        stub.chmod(0o755)
    return bin_dir


def test_ci_runs_at_once_keep_to_a_temporary_directory_of_their_own(tmp_path):
    """Two dry runs of .ci/run at once (every tool a stub) each work in a fresh directory
    under $TMPDIR, never the other's, and leave nothing behind."""
    bin_dir = _ci_stubs(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    log = tmp_path / "calls.log"
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "TMPDIR": str(scratch),
           "CI_STUB_LOG": str(log)}
    env.pop("VIRTUAL_ENV", None)
    runs = [subprocess.Popen(["bash", str(ROOT / ".ci" / "run")], env=env, cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    calls = log.read_text().splitlines()
    venvs = [line.split()[-1] for line in calls if " python3  -m venv " in line
             and "/dist/" not in line]
    assert len(venvs) == 2 and venvs[0] != venvs[1], calls
    for venv in venvs:
        assert Path(venv).parent.parent == scratch  # $TMPDIR/<fresh>/venv
    corpora = [line.split("--corpus ")[1].split()[0] for line in calls if "--corpus" in line]
    assert len(set(corpora)) == 2 and all(Path(c).is_relative_to(scratch) for c in corpora)
    npm = [line for line in calls if " npm " in line]
    assert len(npm) == 2 and all("--prefix" in line for line in npm), npm
    assert list(scratch.iterdir()) == []  # each run removed its own directory
