"""What the installed package carries: its version on the command line, type
markers, the .proto API beside the generated modules, and its metadata.
(.ci/run builds the sdist and installs it into a fresh environment.)
"""

from __future__ import annotations

import subprocess
from importlib import metadata, resources

from server.launcher import t42_command

PACKAGE = "texas42-solver"


def test_version_option_prints_the_package_version():
    done = subprocess.run(t42_command() + ["--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert done.stdout == f"t42 {metadata.version(PACKAGE)}\n"
    assert metadata.version(PACKAGE)[0].isdigit()


def test_packages_are_typed():
    for package in ("solver", "server", "texas42", "texas42.v1"):
        assert resources.files(package).joinpath("py.typed").is_file(), package


def test_proto_files_ship_beside_the_generated_modules():
    api = resources.files("texas42.v1")
    names = {entry.name for entry in api.iterdir() if entry.name.endswith(".proto")}
    assert {"position.proto", "hint_service.proto"} <= names
    service = api.joinpath("hint_service.proto").read_text()
    assert "package texas42.v1;" in service and "service HintService" in service


def test_metadata_names_authors_classifiers_and_keywords():
    meta = metadata.metadata(PACKAGE)
    assert meta["Author"] or meta["Author-email"]
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("Programming Language :: Python :: 3.") for c in classifiers)
    assert "double dummy" in meta["Keywords"]
