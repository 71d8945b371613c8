"""splinebench's adapter process: drives a Python interpolation library (SciPy, CuPy) on
behalf of the harness, one JSON request per line on stdin, one JSON answer per line on
stdout, arrays in raw files the harness maps (protocol: README.md in this folder).

    python splinebench_adapter.py --library scipy|cupy

The process lives for a whole run: the library is imported once, and GPU state (the
CUDA context, compiled kernels) stays warm between requests as it would in a user's
program. Everything a library prints goes to stderr, so stdout carries only answers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

import adapter_arrays
from adapter_errors import AdapterError, Unsupported

PROTOCOL = 1


def load_backend(library: str):
    """The backend module for `library`; its import failing is an answer, not a crash."""
    if library == "scipy":
        import backend_scipy as backend
    elif library == "cupy":
        import backend_cupy as backend
    else:
        raise AdapterError(f"unknown library {library!r} (known: scipy, cupy)")
    return backend


def handle(backend, state: dict, request: dict) -> dict:
    op = request.get("op")
    if op == "hello":
        facts = backend.hello()
        facts.update({"protocol": PROTOCOL, "python": sys.version.split()[0], "pid": os.getpid()})
        return facts
    if op == "null":
        # Nothing but the round trip: what one request costs beyond the library's work.
        return {}
    if op == "prepare":
        state.clear()
        return {"phases": backend.prepare(state, adapter_arrays.PrepareRequest.parse(request))}
    if op == "read_coefficients":
        return {"phases": backend.read_coefficients(state, adapter_arrays.output_path(request))}
    if op == "evaluate":
        return {"phases": backend.evaluate(state, adapter_arrays.EvaluateRequest.parse(request, state))}
    if op == "release":
        state.clear()
        backend.release()
        return {}
    raise AdapterError(f"unknown op {op!r}")


def serve(library: str, requests, answers) -> int:
    try:
        backend = load_backend(library)
        backend_error = None
    except Exception as e:  # noqa: BLE001 - an absent library is reported, not raised
        backend, backend_error = None, f"cannot import {library} ({type(e).__name__}: {e})"
    state: dict = {}
    for line in requests:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as e:
            answer = {"ok": False, "error": f"request is not JSON: {e}"}
        else:
            if request.get("op") == "shutdown":
                answers.write(json.dumps({"ok": True}) + "\n")
                answers.flush()
                return 0
            if backend is None:
                answer = ({"ok": True, "available": False, "reason": backend_error, "protocol": PROTOCOL}
                          if request.get("op") == "hello" else {"ok": False, "error": backend_error})
            else:
                try:
                    answer = {"ok": True, **handle(backend, state, request)}
                except Unsupported as e:
                    answer = {"ok": False, "unsupported": True, "error": str(e)}
                except AdapterError as e:
                    answer = {"ok": False, "error": str(e)}
                except Exception as e:  # noqa: BLE001 - the library's own failure, with its type
                    traceback.print_exc(file=sys.stderr)
                    answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", required=True, choices=("scipy", "cupy"))
    args = parser.parse_args()
    # The protocol owns the real stdout; anything else printed goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr
    return serve(args.library, sys.stdin, answers)


if __name__ == "__main__":
    sys.exit(main())
