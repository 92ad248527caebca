"""Build the Cython search core and the gRPC/protobuf modules of the service.

The Python modules of the API in ``proto/texas42/v1/*.proto`` are generated at
build time (never committed) into the ``texas42.v1`` package at the project
root, with mypy-protobuf type stubs beside them and the Connect (HTTP/JSON)
modules of connect-python (``*_connect.py``, from its protoc plugin); the
.proto files are copied beside them too, so an installed package carries its
API definition (``importlib.resources.files("texas42.v1") / "hint_service.proto"``).
Generation runs before the packages are collected, so ordinary, isolated and
editable builds all ship it. The Cython core is always compiled from
``solver/search/_core.pyx``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

ROOT = Path(__file__).resolve().parent
PROTO_ROOT = ROOT / "proto"
GENERATED_PACKAGES = ["texas42", "texas42.v1"]


def _plugin(name: str, entry: str, workdir: str) -> str:
    """Path of a protoc plugin executable; a wrapper script when it is not on PATH."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found:
        return found
    # The build environment may not put its scripts on PATH: run the module instead.
    wrapper = Path(workdir) / name
    module, function = entry.split(":")
    wrapper.write_text(f"#!{sys.executable}\nfrom {module} import {function}\n{function}()\n")
    wrapper.chmod(0o755)
    return str(wrapper)


def _connect_plugin() -> str:
    """The connect-python protoc plugin (a binary in the protoc-gen-connect-python wheel)."""
    name = "protoc-gen-connect-python"
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if not found:
        raise SystemExit(f"{name} not found: it is a build requirement (pyproject.toml)")
    return found


def generate_grpc_modules() -> None:
    """Run protoc (grpc_tools) with the mypy-protobuf plugins on every .proto file."""
    import grpc_tools
    from grpc_tools import protoc  # build requirement (pyproject.toml)

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    if not protos:
        raise SystemExit(f"no .proto files under {PROTO_ROOT}: the gRPC API cannot be built")
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        mypy = _plugin("protoc-gen-mypy", "mypy_protobuf.main:main", tmp)
        mypy_grpc = _plugin("protoc-gen-mypy_grpc", "mypy_protobuf.main:grpc", tmp)
        connect = _connect_plugin()
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{well_known}",
            f"--python_out={ROOT}",
            f"--grpc_python_out={ROOT}",
            f"--plugin=protoc-gen-mypy={mypy}",
            f"--plugin=protoc-gen-mypy_grpc={mypy_grpc}",
            f"--mypy_out={ROOT}",
            f"--mypy_grpc_out={ROOT}",
            f"--plugin=protoc-gen-connect-python={connect}",
            f"--connect-python_out={ROOT}",
            *protos,
        ]
        cwd = os.getcwd()
        os.chdir(PROTO_ROOT)  # protoc resolves the file names against -I
        try:
            if protoc.main(args) != 0:
                raise SystemExit("protoc failed on " + ", ".join(protos))
        finally:
            os.chdir(cwd)
    # Ship the API definition with the code generated from it.
    for proto in protos:
        shutil.copyfile(PROTO_ROOT / proto, ROOT / proto)
    # Make the generated directories regular packages (typed: stubs beside them).
    for package in GENERATED_PACKAGES:
        directory = ROOT.joinpath(*package.split("."))
        init = directory / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated from proto/ at build time; do not edit."""\n')
        (directory / "py.typed").touch()


generate_grpc_modules()

extensions = [
    Extension("solver.search._core", ["solver/search/_core.pyx"], extra_compile_args=["-O3"]),
    Extension("solver.game._replay", ["solver/game/_replay.pyx"], extra_compile_args=["-O3"]),
    Extension("solver.game._plainjson", ["solver/game/_plainjson.pyx"], extra_compile_args=["-O3"]),
    Extension("solver.search._line", ["solver/search/_line.pyx"], extra_compile_args=["-O3"]),
    Extension("solver.hidden._pool", ["solver/hidden/_pool.pyx"], extra_compile_args=["-O3"]),
]

setup(
    packages=find_packages(include=["solver", "solver.*", "server", "server.*"])
    + GENERATED_PACKAGES,
    package_data={**{package: ["*.pyi", "py.typed", "*.proto"] for package in GENERATED_PACKAGES},
                  "solver": ["py.typed"], "server": ["py.typed"],
                  "solver.show.web": ["*.html", "*.css", "*.js", "*.json"],  # the web page
                  "solver.hidden.data": ["*.json"]},  # measured tables (bid advice calibration)
    exclude_package_data={"solver": ["*.c", "*.pyx"]},
    ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}),
)
