"""One grammar: walks every subcommand of `splinebench --help` and checks that the same
concept has the same flag everywhere. A flag shared by several subcommands means one
thing (its help starts with the same words), and no subcommand spells a shared concept
another way (`--solver`, `--schemes`, `--results`, `--out-dir`, ...). The binary comes
from $SPLINEBENCH_BIN (default: build/bin/splinebench)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest


# The shared concepts: the flag, and how its help begins in every subcommand that has it.
MEANING = {
    "--impl": ("Implementation", "Only these entries"),
    "--results-dir": ("Results root",),
    "--machine": ("Machine label",),
    "--threads": ("Threads for",),
    "--mode": ("Boundary mode",),
    "--filter": ("Only cases whose case_id",),
    "--suite": ("Suite name",),
    "--suite-file": ("Suite definition file",),
    "--resume": ("Finish an interrupted run folder",),
    "--prefilter": ("The input holds samples", "Interpolate the samples"),
    "--channels": ("Channels per sample",),
}
# Other spellings of those concepts, which no subcommand may use.
SYNONYMS = {"--solver", "--solvers", "--scheme", "--schemes", "--impls", "--implementation", "--implementations",
            "--results", "--out", "--out-dir", "--output", "--output-dir", "--result-dir", "--label", "--host",
            "--nthreads", "--num-threads", "--jobs", "--regex", "--pattern", "--suites", "--suite-name",
            "--boundary", "--continue", "--restart"}


def help_text(splinebench_bin: Path, *args: str) -> str:
    proc = subprocess.run([str(splinebench_bin), *args, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def subcommands(splinebench_bin: Path) -> list[str]:
    text = help_text(splinebench_bin)
    block = text.split("Subcommands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z0-9-]*)\s", block, re.M)]


def options(text: str) -> dict[str, str]:
    """{flag: help} of one subcommand's --help (CLI11's layout: flag, type, help)."""
    out = {}
    for m in re.finditer(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)(?:\s+[A-Z][A-Z:0-9 .\[\]=-]*?)?\s{2,}(.*)$", text, re.M):
        out[m.group(1)] = m.group(2).strip()
    return out


def test_every_subcommand_speaks_one_grammar(splinebench_bin):
    names = subcommands(splinebench_bin)
    assert {"run", "merge", "list", "prefilter", "interpolate"} <= set(names), names
    seen: dict[str, list[str]] = {}
    for name in names:
        flags = options(help_text(splinebench_bin, name))
        assert "--help" in flags, name
        wrong = sorted(SYNONYMS & set(flags))
        assert not wrong, f"`{name}` spells a shared concept another way: {wrong} (use {sorted(MEANING)})"
        for flag, text in flags.items():
            if flag in MEANING:
                assert text.startswith(MEANING[flag]), f"`{name} {flag}`: '{text}' does not mean {MEANING[flag]}"
                seen.setdefault(flag, []).append(name)
    # The walk found the shared flags where they are: what runs, where results go, threads.
    assert {"run", "prefilter", "interpolate", "rotate"} <= set(seen["--impl"])
    assert {"run", "merge"} <= set(seen["--results-dir"]) and {"run", "merge"} <= set(seen["--machine"])
    assert {"run", "prefilter", "interpolate", "rotate"} <= set(seen["--threads"])
