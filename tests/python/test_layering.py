"""The product's layers point one way (CMakeLists.txt, "Layers"): core at the bottom,
then io, then datasets, then the implementations, then the runner, then the CLI. A file
may include its own layer and the layers below it, never one above. Inside the
implementations layer, an implementation's folder includes only itself, the shared
cpu_common/ and gpu_common/ folders and the core: never another implementation.

The check resolves every quoted #include of every product source to the file it names
(through the include folders the CMake targets declare), so a header that moves keeps
being checked where it lands."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Include folders of the product targets, searched in this order for "a/b.hpp".
INCLUDE_ROOTS = [
    "impls/core/include",
    "impls/include",
    "datasets/include",
    "harness/io/include",
    "harness/runner/include",
    "impls",
]

# Rank of each layer: a file may include files of the same or a lower rank.
LAYERS = [  # (path prefix, layer name, rank); the longest matching prefix wins
    ("impls/core/", "core", 0),
    ("harness/io/", "io", 1),
    ("datasets/", "datasets", 2),  # real datasets are read with io's .npy reader
    ("impls/", "implementations", 3),
    ("harness/runner/", "runner", 4),
    ("harness/cli/", "cli", 5),
]
SHARED_IMPL_FOLDERS = {"cpu_common", "gpu_common", "include"}
SOURCE_SUFFIXES = {".hpp", ".cpp", ".cu", ".cuh", ".h", ".def", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def layer_of(rel: str) -> tuple[str, int] | None:
    best = None
    for prefix, name, rank in LAYERS:
        if rel.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, name, rank)
    return None if best is None else (best[1], best[2])


def impl_folder(rel: str) -> str | None:
    parts = rel.split("/")
    if parts[0] != "impls" or len(parts) < 3 or parts[1] == "core":
        return None
    return parts[1]


def product_sources() -> list[Path]:
    files = []
    for top in ("impls", "datasets", "harness"):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                files.append(path)
    return sorted(files)


def resolve(including: Path, target: str) -> Path | None:
    local = including.parent / target
    if local.is_file():
        return local
    for root in INCLUDE_ROOTS:
        candidate = ROOT / root / target
        if candidate.is_file():
            return candidate
    return None


def edges():
    for path in product_sources():
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            yield path.relative_to(ROOT).as_posix(), target, resolve(path, target)


def test_every_product_source_is_in_a_layer():
    stray = [p.relative_to(ROOT).as_posix() for p in product_sources()
             if layer_of(p.relative_to(ROOT).as_posix()) is None]
    assert not stray, f"sources outside every layer: {stray}"


def test_quoted_includes_resolve_inside_the_product():
    # Generated headers (build_info.hpp) live in the build tree; Highway's own headers
    # are included with quotes by its convention (foreach_target.h re-includes them).
    unresolved = [(src, target) for src, target, found in edges()
                  if found is None and not target.endswith("build_info.hpp")
                  and not target.startswith("hwy/")]
    assert not unresolved, f"includes that name no product file: {unresolved}"


def test_no_include_points_up():
    upward = []
    for src, target, found in edges():
        if found is None:
            continue
        dst = found.relative_to(ROOT).as_posix()
        (src_layer, src_rank), (dst_layer, dst_rank) = layer_of(src), layer_of(dst)
        if dst_rank > src_rank or (dst_rank == src_rank and src_layer != dst_layer):
            upward.append(f"{src} ({src_layer}) -> {dst} ({dst_layer})")
    assert not upward, "includes from a lower layer to a higher one:\n" + "\n".join(upward)


def test_no_implementation_includes_another():
    crossing = []
    for src, target, found in edges():
        if found is None:
            continue
        dst = found.relative_to(ROOT).as_posix()
        mine, theirs = impl_folder(src), impl_folder(dst)
        if mine is None or theirs is None or mine == theirs:
            continue
        if theirs in SHARED_IMPL_FOLDERS:
            if mine in SHARED_IMPL_FOLDERS and mine != "include":
                # shared folders stay independent of each other
                crossing.append(f"{src} -> {dst}")
            continue
        crossing.append(f"{src} -> {dst}")
    assert not crossing, "implementation folders that include another's:\n" + "\n".join(crossing)


@pytest.mark.parametrize("src,target,expected", [
    ("datasets/src/x.cpp", "impls/gpu_flex/flex_plan.hpp", True),
    ("impls/core/src/x.cpp", "datasets/include/splinebench/datasets.hpp", True),
    ("harness/runner/src/x.cpp", "harness/cli/cli_common.hpp", True),
    ("harness/cli/x.cpp", "harness/runner/include/splinebench/runner/plan.hpp", False),
    ("impls/gpu_flex/x.cpp", "impls/core/include/splinebench/types.hpp", False),
])
def test_the_rank_rule_itself(src, target, expected):
    (src_layer, src_rank), (dst_layer, dst_rank) = layer_of(src), layer_of(target)
    upward = dst_rank > src_rank or (dst_rank == src_rank and src_layer != dst_layer)
    assert upward is expected
