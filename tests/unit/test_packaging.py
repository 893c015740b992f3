"""The install's rough edges (issue 14, item 17): no setuptools deprecation banner for the
license, and steps the person installing can follow."""

from __future__ import annotations

import re
import tomllib

from support.paths import ROOT


def test_the_license_is_an_spdx_string_setuptools_reads_without_a_warning():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"  # a TOML table is deprecated
    requires = " ".join(project["build-system"]["requires"])
    minimum = re.search(r"setuptools>=(\d+)", requires)
    assert minimum and int(minimum.group(1)) >= 77  # the first to read SPDX strings
    assert not any(c.startswith("License ::") for c in project["project"].get("classifiers", []))


def test_make_install_says_what_it_is_doing():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("$(BIN)/.installed: pyproject.toml", 1)[1].split("\n\n", 1)[0]
    steps = re.findall(r'@echo "\[(\d)/(\d)\]', recipe)
    assert [s for s, _ in steps] == ["1", "2", "3"]


def test_make_run_leaves_the_address_to_the_settings_unless_given():
    """THREADLINE_HOST / THREADLINE_PORT (environment or .env) apply to `make run` and `make serve`.

    The recipes passed `--host 127.0.0.1 --port 8000` always, so a port set in .env did nothing
    there: the address is passed only when `make run PORT=...` names one.
    """
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^HOST \?=[ \t]*$", makefile, re.MULTILINE)
    assert re.search(r"^PORT \?=[ \t]*$", makefile, re.MULTILINE)
    for target in ("run", "serve"):
        recipe = makefile.split(f"\n{target}: ", 1)[1].split("\n\n", 1)[0]
        serve = [line for line in recipe.splitlines() if "threadline serve" in line]
        assert serve and "--port" not in serve[0] and "--host" not in serve[0]
        assert "$(SERVE_ADDRESS)" in serve[0]
    assert "$(if $(PORT),--port $(PORT))" in makefile
    assert "$(if $(HOST),--host $(HOST))" in makefile


def test_the_installed_package_neither_ships_nor_imports_the_benchmarks():
    """Benchmarks live in the repository's top-level benchmarks/, outside what pip installs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["packages"]["find"]["where"] == ["src"]
    assert not (ROOT / "src" / "benchmarks").exists()
    importing = re.compile(r"^\s*(from|import)\s+benchmarks\b", re.MULTILINE)
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "src").rglob("*.py"))
        if importing.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
