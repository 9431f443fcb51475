"""The install a fresh machine gets: ``make install`` takes pyproject.toml's dependencies at the
versions ``constraints.txt`` pins (``pip -c``), the ones the suite runs with."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def pins() -> dict[str, Version]:
    """constraints.txt as {canonical name: version}; every line a comment or ``name==version``."""
    found: dict[str, Version] = {}
    for number, line in enumerate((ROOT / "constraints.txt").read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==", f"line {number}: {line!r} is no pin"
        name = canonicalize_name(requirement.name)
        assert name not in found, f"line {number}: {requirement.name} is pinned twice"
        found[name] = Version(specifiers[0].version)
    return found


def declared() -> list[Requirement]:
    """Every dependency pyproject.toml names, the optional ones (dask, dev) too."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    return [Requirement(line) for line in lines]


def test_every_dependency_is_pinned_within_its_range():
    """A dependency added to pyproject.toml without a pin would install at whatever version is
    newest that day, and a pin outside the range pyproject.toml asks for would fail to install."""
    pinned = pins()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is not in constraints.txt (make lock)"
        assert requirement.specifier.contains(pinned[name]), \
            f"constraints.txt pins {requirement.name} {pinned[name]}, outside pyproject.toml's {requirement}"


def test_the_suite_runs_on_the_pinned_versions():
    """What is installed is what constraints.txt says (make install reinstalls when it changes):
    the pins are the versions these tests pass with, not a list that drifted from them."""
    for name, version in pins().items():
        installed = Version(metadata.version(name))
        assert installed == version, f"{name} {installed} is installed, not the pinned {version}"
