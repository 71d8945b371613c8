"""The product's layers point one way (README.md "Layout", CMakeLists.txt "Layers").

C++ (every quoted #include of impls/, datasets/, harness/, systems/ and python/), bottom to
top: core, CUDA support, io, datasets, implementations, systems, runner, the systems' harness
doors (systems/<name>/harness/, through which the runner drives a system), CLI and, beside
it, the Python module's native part (python/src/). A file
may include its own layer and the layers below it, never one above. Inside the
implementations layer an implementation's folder includes only itself, the shared
cpu_common/ and gpu_common/ folders and the layers below: never another implementation.
A system includes only itself and the layers below: never another system. Above the
implementations, the implementations are reached through their public header folder
(impls/include/) only.

Python (every import, at any depth, of reports/, studies/, adapters/python/ and
python/splinebench/): adapters/python/ is a process of its own and imports only its own
modules; the `splinebench` package imports only itself; reports/ imports only reports;
studies/ builds on reports and may call the `splinebench` package. No package imports tests, tools or lab.

The C++ check resolves every include to the file it names (the including folder, then
every include/ folder of the product, then impls/), so a header that moves keeps being
checked where it lands. Each checker takes the tree's root, so the tests below also run
it over small planted trees and see it fail."""
from __future__ import annotations

import ast
import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# ---- C++ ------------------------------------------------------------------------------

CPP_TOPS = ("impls", "datasets", "harness", "systems", "python")
# (path pattern, layer, rank): a file may include files of the same or a lower rank. The
# most specific matching pattern (most path segments) wins; '*' is one folder name.
CPP_LAYERS = [
    ("impls/core/", "core", 0),
    ("impls/cuda_support/", "CUDA support", 1),
    ("harness/io/", "io", 2),
    ("datasets/", "datasets", 3),  # real datasets are read with io's .npy reader
    ("impls/", "implementations", 4),
    ("systems/", "systems", 5),
    ("harness/runner/", "runner", 6),
    ("systems/*/harness/", "system harness", 7),  # the runner's door into each system
    ("harness/distributed/", "distributed", 7),  # the MPI ranks of the split prefilter
    ("harness/cli/", "cli", 8),
    ("python/", "python module", 8),  # the `splinebench` module's native part, beside the CLI
]
SHARED_IMPL_FOLDERS = {"cpu_common", "gpu_common", "include"}
NOT_IMPLEMENTATIONS = {"core", "cuda_support"}  # folders of impls/ that are layers of their own
SOURCE_SUFFIXES = {".hpp", ".cpp", ".cu", ".cuh", ".h", ".def", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def _matches(rel: str, pattern: str) -> bool:
    parts, pat = rel.split("/"), pattern.rstrip("/").split("/")
    return len(parts) > len(pat) and all(fnmatchcase(p, q) for p, q in zip(parts, pat))


def layer_of(rel: str) -> tuple[str, int] | None:
    best = None
    for pattern, name, rank in CPP_LAYERS:
        depth = pattern.rstrip("/").count("/") + 1
        if _matches(rel, pattern) and (best is None or depth > best[0]):
            best = (depth, name, rank)
    return None if best is None else (best[1], best[2])


def impl_folder(rel: str) -> str | None:
    parts = rel.split("/")
    if parts[0] != "impls" or len(parts) < 3 or parts[1] in NOT_IMPLEMENTATIONS:
        return None
    return parts[1]


def system_of(rel: str) -> str | None:
    parts = rel.split("/")
    return parts[1] if parts[0] == "systems" and len(parts) >= 3 else None


def cpp_sources(root: Path) -> list[Path]:
    return sorted(p for top in CPP_TOPS if (root / top).is_dir() for p in (root / top).rglob("*")
                  if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def include_roots(root: Path) -> list[Path]:
    """Every include/ folder of the product, then impls/ (internal "gpu_common/x.hpp")."""
    found = sorted(p for top in CPP_TOPS if (root / top).is_dir() for p in (root / top).rglob("include")
                   if p.is_dir())
    return found + [root / "impls"]


def resolve(including: Path, target: str, roots: list[Path]) -> Path | None:
    for base in [including.parent, *roots]:
        candidate = base / target
        if candidate.is_file():
            return candidate
    return None


def cpp_edges(root: Path):
    roots = include_roots(root)
    for path in cpp_sources(root):
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            found = resolve(path, target, roots)
            yield (path.relative_to(root).as_posix(), target,
                   None if found is None else found.relative_to(root).as_posix())


def cpp_stray_sources(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in cpp_sources(root)
            if layer_of(p.relative_to(root).as_posix()) is None]


def cpp_unresolved(root: Path) -> list[str]:
    # Generated headers (build_info.hpp) live in the build tree; Highway's own headers
    # are included with quotes by its convention (foreach_target.h re-includes them).
    return [f'{src}: #include "{target}" names no product file' for src, target, dst in cpp_edges(root)
            if dst is None and not target.endswith("build_info.hpp") and not target.startswith("hwy/")]


def cpp_violations(root: Path) -> list[str]:
    """Every include that breaks a rule, as 'file: #include "x" -> resolved (why)'."""
    out = []
    for src, target, dst in cpp_edges(root):
        if dst is None:
            continue
        (src_layer, src_rank), (dst_layer, dst_rank) = layer_of(src), layer_of(dst)
        where = f'{src}: #include "{target}" -> {dst}'
        if dst_rank > src_rank or (dst_rank == src_rank and src_layer != dst_layer):
            out.append(f"{where} (layer '{src_layer}' may not include layer '{dst_layer}' above it)")
            continue
        mine, theirs = impl_folder(src), impl_folder(dst)
        if mine and theirs and mine != theirs:
            if theirs not in SHARED_IMPL_FOLDERS or (mine in SHARED_IMPL_FOLDERS and mine != "include"):
                out.append(f"{where} (implementation folder '{mine}' may not include '{theirs}')")
                continue
        if theirs and theirs != "include" and src_rank > CPP_LAYERS[4][2]:
            out.append(f"{where} (above the implementations only impls/include/ is public)")
            continue
        a, b = system_of(src), system_of(dst)
        if a and b and a != b:
            out.append(f"{where} (system '{a}' may not include system '{b}')")
    return out


# ---- Python ---------------------------------------------------------------------------

# (path pattern, layer): the most specific pattern wins (a file's own path over its folder).
PY_LAYERS = [
    ("adapters/python/", "adapters"),
    ("reports/", "reports"),
    ("studies/", "studies"),
    ("python/splinebench/", "python module"),
    # Every report of a machine: the runs' page and the studies' sections rebuilt from
    # their records; an entry point on top of both.
    ("reports/machine.py", "machine report"),
]
# Layer -> the layers it may import (itself included).
PY_MAY_IMPORT = {
    "adapters": {"adapters"},
    "python module": {"python module"},
    "reports": {"reports"},
    "studies": {"studies", "reports", "python module"},
    "machine report": {"machine report", "reports", "studies"},
}
# Top-level names of the tree that no package imports.
PY_TREE_TOPS = {"tests", "tools", "lab", "bench", "harness", "impls", "datasets", "systems", "results"}


def py_layer_of(rel: str) -> str | None:
    best = None
    for pattern, name in PY_LAYERS:
        hit = rel.startswith(pattern) if pattern.endswith("/") else rel == pattern
        if hit and (best is None or len(pattern) > len(best[0])):
            best = (pattern, name)
    return None if best is None else best[1]


def python_sources(root: Path) -> list[Path]:
    return sorted(p for pattern, _ in PY_LAYERS if pattern.endswith("/") and (root / pattern).is_dir()
                  for p in (root / pattern).rglob("*.py"))


def adapter_modules(root: Path) -> set[str]:
    return {p.stem for p in (root / "adapters/python").glob("*.py")}


def imported_modules(path: Path, rel: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import at any depth, relative ones resolved
    against the file's package ("from .build import x" in reports/ is reports.build)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = rel.split("/")[:-1]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            if node.module:
                names.append((node.lineno, f"{base}.{node.module}" if base else node.module))
            else:  # from . import a, b: each is a module of the package
                names += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return names


def module_layer(name: str, adapters: set[str]) -> str | None:
    """The layer a module name lands in, "tree" for a folder no package imports, None for
    the standard library and third-party packages."""
    top = name.split(".")[0]
    if top in adapters or name.startswith("adapters.python"):
        return "adapters"
    if top == "splinebench":  # the installed package is python/splinebench/
        return "python module"
    rel = name.replace(".", "/")
    layer = py_layer_of(rel + ".py") or py_layer_of(rel + "/")
    return layer or ("tree" if top in PY_TREE_TOPS or top == "adapters" else None)


def python_violations(root: Path) -> list[str]:
    adapters = adapter_modules(root)
    out = []
    for path in python_sources(root):
        rel = path.relative_to(root).as_posix()
        layer = py_layer_of(rel)
        for line, name in imported_modules(path, rel):
            target = module_layer(name, adapters)
            if target is None or target in PY_MAY_IMPORT[layer]:
                continue
            out.append(f"{rel}:{line}: import of '{name}' "
                       f"(layer '{layer}' may import only {', '.join(sorted(PY_MAY_IMPORT[layer]))})")
    return out


# ---- the tree as it is ----------------------------------------------------------------

def test_every_product_source_is_in_a_layer():
    stray = cpp_stray_sources(ROOT)
    assert not stray, f"sources outside every layer: {stray}"


def test_quoted_includes_resolve_inside_the_product():
    unresolved = cpp_unresolved(ROOT)
    assert not unresolved, "includes that name no product file:\n" + "\n".join(unresolved)


def test_every_include_points_down_and_stays_out_of_other_folders():
    violations = cpp_violations(ROOT)
    assert not violations, "includes against the layers:\n" + "\n".join(violations)


def test_python_packages_import_only_what_lies_below():
    violations = python_violations(ROOT)
    assert not violations, "imports against the layers:\n" + "\n".join(violations)


def test_the_checks_see_the_whole_product():
    # A checker that silently found nothing would pass every tree.
    tops = {p.relative_to(ROOT).parts[0] for p in cpp_sources(ROOT)}
    assert tops == set(CPP_TOPS)
    assert {py_layer_of(p.relative_to(ROOT).as_posix()) for p in python_sources(ROOT)} >= {
        "adapters", "reports", "studies"}
    assert sum(1 for _ in cpp_edges(ROOT)) > 500


# ---- the rules themselves, on planted trees -------------------------------------------

@pytest.mark.parametrize("rel,layer", [
    ("impls/core/src/types.cpp", "core"),
    ("impls/cuda_support/include/splinebench/cuda/check.hpp", "CUDA support"),
    ("impls/gpu_common/flex/flex_kernels.cu", "implementations"),
    ("systems/iir2d/cuda/tiles.cu", "systems"),
    ("systems/iir2d/harness/system.cpp", "system harness"),
    ("systems/scattered/harness/include/splinebench/scattered/harness.hpp", "system harness"),
    ("harness/runner/src/suite.cpp", "runner"),
    ("harness/cli/main.cpp", "cli"),
])
def test_layer_of(rel, layer):
    assert layer_of(rel)[0] == layer


def plant(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


CPP_BASE = {
    "impls/core/include/splinebench/types.hpp": "#pragma once\n",
    "impls/cuda_support/include/splinebench/cuda/check.hpp": '#include "splinebench/types.hpp"\n',
    "impls/include/splinebench/registry.hpp": '#include "splinebench/types.hpp"\n',
    "impls/gpu_common/buffer.hpp": '#include "splinebench/cuda/check.hpp"\n',
    "impls/gpu_flex/flex.cu": '#include "gpu_common/buffer.hpp"\n#include "splinebench/cuda/check.hpp"\n',
    "impls/gpu_naive/naive.cu": '#include "gpu_common/buffer.hpp"\n',
    "systems/a/include/splinebench/a/a.hpp": '#include "splinebench/cuda/check.hpp"\n',
    "systems/b/include/splinebench/b/b.hpp": '#include "splinebench/types.hpp"\n',
    "harness/runner/include/splinebench/runner/system.hpp": '#include "splinebench/registry.hpp"\n',
    "systems/a/harness/include/splinebench/a/door.hpp": '#include "splinebench/runner/system.hpp"\n',
    "systems/a/harness/door.cpp": '#include "splinebench/a/door.hpp"\n#include "splinebench/a/a.hpp"\n',
    "harness/cli/main.cpp": '#include "splinebench/a/door.hpp"\n',
}


def test_a_clean_planted_tree_passes(tmp_path):
    root = plant(tmp_path, CPP_BASE)
    assert cpp_violations(root) == [] and cpp_unresolved(root) == [] and cpp_stray_sources(root) == []


@pytest.mark.parametrize("src,include,why", [
    ("systems/a/src/x.cpp", "splinebench/runner/system.hpp", "layer 'systems' may not include layer 'runner'"),
    ("impls/core/src/x.cpp", "splinebench/cuda/check.hpp", "layer 'core' may not include layer 'CUDA support'"),
    ("impls/cuda_support/src/x.cpp", "gpu_common/buffer.hpp",
     "layer 'CUDA support' may not include layer 'implementations'"),
    ("harness/runner/src/x.cpp", "splinebench/a/a.hpp", None),  # allowed: systems lie below the runner
    ("harness/runner/src/y.cpp", "splinebench/a/door.hpp",
     "layer 'runner' may not include layer 'system harness'"),
    ("impls/gpu_flex/x.cu", "gpu_naive/naive.cu", "implementation folder 'gpu_flex' may not include 'gpu_naive'"),
    ("systems/b/src/x.cpp", "splinebench/a/a.hpp", "system 'b' may not include system 'a'"),
    ("systems/b/src/y.cpp", "gpu_common/buffer.hpp", "above the implementations only impls/include/ is public"),
    ("systems/b/src/z.cpp", "splinebench/registry.hpp", None),  # the public header
])
def test_a_planted_include_is_caught_with_its_file_and_include(tmp_path, src, include, why):
    root = plant(tmp_path, {**CPP_BASE, src: f'#include "{include}"\n'})
    violations = cpp_violations(root)
    if why is None:
        assert violations == []
    else:
        assert len(violations) == 1, violations
        assert violations[0].startswith(f'{src}: #include "{include}" -> ') and why in violations[0], violations[0]


def test_a_planted_python_import_is_caught_with_its_file_and_line(tmp_path):
    root = plant(tmp_path, {
        "adapters/python/adapter_arrays.py": "import numpy\n",
        "adapters/python/splinebench_adapter.py": "from adapter_arrays import x\n",
        "reports/__init__.py": "",
        "reports/loader.py": "import json\nfrom . import build\nfrom .plots.style import y\n",
        "reports/machine.py": "from .build import z\nfrom studies.common import load\n",
        "studies/__init__.py": "",
        "studies/common.py": "from reports.loader import load\nimport splinebench\n",
        "python/splinebench/__init__.py": "from . import _core\nimport numpy\n",
    })
    assert python_violations(root) == []
    plant(root, {
        "reports/build.py": "import os\n\ndef f():\n    from studies import common\n",
        "reports/gate.py": "from . import machine\n",
        "adapters/python/backend.py": "import reports.loader\n",
        "studies/roundoff.py": "import adapter_arrays\nfrom tests.python import conftest\nfrom lab.probes import probe\n",
        "reports/plots.py": "import splinebench\n",
        "python/splinebench/_arrays.py": "from reports import loader\n",
    })
    assert python_violations(root) == [
        "adapters/python/backend.py:1: import of 'reports.loader' (layer 'adapters' may import only adapters)",
        "python/splinebench/_arrays.py:1: import of 'reports' (layer 'python module' may import only python module)",
        "reports/build.py:4: import of 'studies' (layer 'reports' may import only reports)",
        "reports/gate.py:1: import of 'reports.machine' (layer 'reports' may import only reports)",
        "reports/plots.py:1: import of 'splinebench' (layer 'reports' may import only reports)",
        "studies/roundoff.py:1: import of 'adapter_arrays' (layer 'studies' may import only python module, reports, "
        "studies)",
        "studies/roundoff.py:2: import of 'tests.python' (layer 'studies' may import only python module, reports, "
        "studies)",
        "studies/roundoff.py:3: import of 'lab.probes' (layer 'studies' may import only python module, reports, "
        "studies)",
    ]
