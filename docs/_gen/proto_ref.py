"""The gRPC reference, written from proto/**/*.proto at every site build.

protoc (grpcio-tools) compiles the files with their source info, so the
comments are those the compiler attaches to each service, RPC, message,
field, enum and value; nothing is parsed by hand.
"""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"

# Paths into a FileDescriptorProto (descriptor.proto's field numbers).
MESSAGE, ENUM, SERVICE = 4, 5, 6
FIELD, NESTED, NESTED_ENUM = 2, 3, 4
VALUE, METHOD = 2, 2

LABELS = {descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED: "repeated "}
SCALARS = {v: k[len("TYPE_"):].lower() for k, v in
           descriptor_pb2.FieldDescriptorProto.Type.items()}


def _compile(files: list[Path]) -> descriptor_pb2.FileDescriptorSet:
    from grpc_tools import protoc
    import grpc_tools
    include = Path(grpc_tools.__file__).parent / "_proto"  # google/protobuf/*.proto
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        args = ["protoc", f"-I{PROTO}", f"-I{include}", f"--descriptor_set_out={out}",
                "--include_source_info", *(str(f.relative_to(PROTO)) for f in files)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {PROTO}")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _text(comment: str) -> str:
    """A proto comment as one Markdown paragraph (literal: no markup in protos)."""
    text = html.escape(" ".join(comment.split()), quote=False)
    return re.sub(r"([\\`*_|\[\]])", r"\\\1", text)


def _anchor(full_name: str) -> str:
    return full_name.lower().replace(".", "")


class _File:
    """One .proto file's comments, by the path of what they document."""

    def __init__(self, proto: descriptor_pb2.FileDescriptorProto) -> None:
        self.proto = proto
        self.comments = {}
        for loc in proto.source_code_info.location:
            text = "\n".join(c for c in (loc.leading_comments, loc.trailing_comments) if c)
            if text.strip():
                self.comments[tuple(loc.path)] = text

    def comment(self, path: tuple[int, ...]) -> str:
        return _text(self.comments.get(path, ""))


def _type_link(field: descriptor_pb2.FieldDescriptorProto, known: set[str],
               maps: dict[str, descriptor_pb2.DescriptorProto]) -> str:
    name = field.type_name.lstrip(".")
    if name in maps:  # a map<K, V> field is a repeated entry message
        key, value = maps[name].field
        return f"map<{_type_link(key, known, maps)}, {_type_link(value, known, maps)}>"
    if not name:
        return f"`{SCALARS[field.type]}`"
    short = name.rsplit(".", 1)[-1]
    return f"[`{short}`](#{_anchor(name)})" if name in known else f"`{name}`"


def _message(f: _File, msg: descriptor_pb2.DescriptorProto, path: tuple[int, ...],
             prefix: str, known: set[str], maps: dict) -> list[str]:
    full = f"{prefix}.{msg.name}"
    if msg.options.map_entry:
        return []
    lines = [f"### {full.split('.', 2)[-1]} {{ #{_anchor(full)} }}", ""]
    if f.comment(path):
        lines += [f.comment(path), ""]
    if msg.field:
        oneofs = [o.name for o in msg.oneof_decl]
        lines += ["| field | number | type | meaning |", "|---|---|---|---|"]
        for i, field in enumerate(msg.field):
            label = LABELS.get(field.label, "")
            if field.type_name.lstrip(".") in maps:
                label = ""
            kind = label + _type_link(field, known, maps)
            if field.HasField("oneof_index") and not field.proto3_optional:
                kind += f" (one of `{oneofs[field.oneof_index]}`)"
            elif field.proto3_optional:
                kind = "optional " + kind
            lines.append(f"| `{field.name}` | {field.number} | {kind} | "
                         f"{f.comment((*path, FIELD, i))} |")
        lines.append("")
    else:
        lines += ["No fields.", ""]
    for i, nested in enumerate(msg.nested_type):
        lines += _message(f, nested, (*path, NESTED, i), full, known, maps)
    for i, enum in enumerate(msg.enum_type):
        lines += _enum(f, enum, (*path, NESTED_ENUM, i), full)
    return lines


def _enum(f: _File, enum: descriptor_pb2.EnumDescriptorProto, path: tuple[int, ...],
          prefix: str) -> list[str]:
    full = f"{prefix}.{enum.name}"
    lines = [f"### {full.split('.', 2)[-1]} (enum) {{ #{_anchor(full)} }}", ""]
    if f.comment(path):
        lines += [f.comment(path), ""]
    lines += ["| value | number | meaning |", "|---|---|---|"]
    for i, value in enumerate(enum.value):
        lines.append(f"| `{value.name}` | {value.number} | {f.comment((*path, VALUE, i))} |")
    return lines + [""]


def _names(files: list[descriptor_pb2.FileDescriptorProto]):
    """Every message and enum's full name, and the map entry messages by name."""
    known: set[str] = set()
    maps: dict[str, descriptor_pb2.DescriptorProto] = {}

    def visit(msg: descriptor_pb2.DescriptorProto, prefix: str) -> None:
        full = f"{prefix}.{msg.name}"
        known.add(full)
        if msg.options.map_entry:
            maps[full] = msg
        for nested in msg.nested_type:
            visit(nested, full)
        known.update(f"{full}.{e.name}" for e in msg.enum_type)

    for proto in files:
        for msg in proto.message_type:
            visit(msg, proto.package)
        known.update(f"{proto.package}.{e.name}" for e in proto.enum_type)
    return known, maps


def proto_reference() -> str:
    """The Markdown of every service, RPC, message and enum in proto/."""
    paths = sorted(PROTO.rglob("*.proto"))
    files = [p for p in _compile(paths).file if p.name.startswith("texas42/")]
    known, maps = _names(files)
    lines: list[str] = []
    services = [(f, i, s) for f in map(_File, files) for i, s in enumerate(f.proto.service)]
    for f, i, service in services:
        full = f"{f.proto.package}.{service.name}"
        lines += [f"## Service {full} {{ #{_anchor(full)} }}", "",
                  f"Defined in `proto/{f.proto.name}`.", ""]
        if f.comment((SERVICE, i)):
            lines += [f.comment((SERVICE, i)), ""]
        for j, method in enumerate(service.method):
            def link(name: str) -> str:
                name = name.lstrip(".")
                short = name.rsplit(".", 1)[-1]
                return f"[`{short}`](#{_anchor(name)})" if name in known else f"`{name}`"
            stream_in = "stream " if method.client_streaming else ""
            stream_out = "stream " if method.server_streaming else ""
            rpc = f"{full}.{method.name}"
            lines += [f"### {method.name} {{ #{_anchor(rpc)} }}", "",
                      f"{stream_in}{link(method.input_type)} &rarr; "
                      f"{stream_out}{link(method.output_type)}", ""]
            if f.comment((SERVICE, i, METHOD, j)):
                lines += [f.comment((SERVICE, i, METHOD, j)), ""]
    for f in map(_File, files):
        lines += [f"## {f.proto.name.rsplit('/', 1)[-1]}", "",
                  f"`proto/{f.proto.name}`, package `{f.proto.package}`.", ""]
        for i, msg in enumerate(f.proto.message_type):
            lines += _message(f, msg, (MESSAGE, i), f.proto.package, known, maps)
        for i, enum in enumerate(f.proto.enum_type):
            lines += _enum(f, enum, (ENUM, i), f.proto.package)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(proto_reference())
