"""Speed-up over the library a user would otherwise run: every implementation's times
divided into the peer's on the same case of the same run, the peer being `scipy`
(scipy.ndimage, one thread) for CPU rows and `cupy` (cupyx.scipy.ndimage) for GPU rows.
Peers are implementations like the others (impls/external/); this table only pairs
records.

Two kinds of time, each the same work on both sides:
- kernel: the `prefilter` phase and the `evaluate` phase alone (device or CPU compute,
  no transfers);
- end to end: one prepare + evaluate cycle from the caller's host arrays to host results
  (timing.end_to_end_seconds, the phases timing.END_TO_END_PHASES names). Ours on the GPU
  copy the caller's pageable buffers into pinned ones in `host_staging`; CuPy makes the
  same copies inside its timed `upload`, `query_upload` and `download`. host_staging holds
  the samples' copy and the coordinates' and values' in one phase per cycle, so the setup
  (upload, prefilter) is inside this time on both sides: a lookup-only time with the
  staging cannot be taken from the records.
Versions of the peers come from each run's context."""
from __future__ import annotations

from collections.abc import Sequence

from . import implementations, timing
from .loader import Record, Run
from .table_model import Column, Row, Table, fmt_ms, fmt_ratio

PEER_OF_DEVICE = {"cpu": "scipy", "gpu": "cupy"}
PEERS = frozenset(PEER_OF_DEVICE.values())
MS = 1e3
# Cases where the peer took at least this long end to end: shorter ones measure the call
# overhead more than the work (the adapter's own cost per request, measured in every run
# and stated in the table's notes, is tens of microseconds), and a quick suite would give a
# row per tiny case.
MIN_PEER_SECONDS = 1e-3
KERNEL_PHASES = ("prefilter", "evaluate")

# What each side's phases hold, for the notes (only the sides a table shows).
SIDE_NOTES = {
    "gpu": ("Ours on the GPU, end to end = host_staging (memcpy of the caller's samples and coordinates into "
            "pinned buffers and of the values out of them, host clock) + upload + prefilter + bind + "
            "bound_stats (gpu_texture*: the texture binding and the max|c|, max|dc| measurements of its "
            "tolerance; absent elsewhere) + query_upload + evaluate + download (CUDA events)."),
    "cupy": ("CuPy, end to end = upload (cp.asarray of the samples) + prefilter + query_upload (cp.asarray of "
             "the coordinates) + evaluate + download (cp.asnumpy of the values), CUDA events around each library "
             "call. CuPy reports no staging phase: its copies from and to pageable NumPy memory are inside "
             "upload, query_upload and download, and download also allocates the NumPy result (ours writes into "
             "the caller's buffer). It has no binding or bound measurement to do."),
    "cpu": ("Ours on the CPU, end to end = upload (copying the caller's samples into the implementation's "
            "buffer) + prefilter + evaluate."),
    "scipy": ("SciPy, end to end = prefilter + evaluate (time.perf_counter around spline_filter1d and "
              "map_coordinates): host memory, nothing to transfer. The adapter copies the samples into its own "
              "array and allocates the output before timing, so SciPy's time has no copy of the samples while "
              "ours has its upload: the CPU end-to-end ratio counts that copy against us."),
}


def peer_versions(run: Run, peer: str) -> str:
    """"scipy 1.17.1" etc. from the run context's facts of the peer ("" when absent)."""
    facts = run.context.get("implementations", {}).get(peer) or []
    versions = [f.replace("=", " ", 1) for f in facts if f.split("=", 1)[0] in (peer, "numpy", "cuda_runtime")]
    overhead = [f.split("=", 1)[1] for f in facts if f.startswith("adapter_null_request_us=")]
    text = ", ".join(versions)
    if overhead:
        text += f"; adapter cost per request {overhead[0]} µs"
    return text


def _case_label(rec: Record) -> str:
    shape = "×".join(map(str, rec.shape))
    extra = "".join([f" C{rec.channels}" if rec.channels > 1 else "", f" F{rec.fields}" if rec.fields > 1 else ""])
    queries = f", {rec.queries} q ({rec.pattern})" if rec.queries else ", prefilter only"
    return f"{rec.dims}-D {shape}{extra} {rec.mode}{queries}"


def _ratio(peer: float | None, ours: float | None) -> str:
    return fmt_ratio(peer / ours) if peer and ours else "—"


def _time(table: Table, run: Run, rec: Record, phases: tuple[str, ...], seconds: float | None, what: str) -> str:
    """Milliseconds, with NOISY and a note (once) when the repetitions of `phases` cannot
    stand for one time (timing.phase_noise), as the reproduced tables mark them."""
    if not seconds:
        return "—"
    text = fmt_ms(seconds * MS)
    if why := timing.phase_noise(rec, phases):
        text += " NOISY"
        label = rec.impl + (f" T{rec.threads}" if rec.threads > 1 else "")
        note = (f"NOISY: {label}, {what}, {_case_label(rec)} ({run.label}): {why}; its median may not be what a "
                "rerun gives.")
        if note not in table.notes:
            table.notes.append(note)
    return text


def peer_speedup_table(runs: Sequence[Run]) -> Table:
    table = Table(
        key="peer_speedup",
        title="Speed-up over the peer library (SciPy for CPU rows, CuPy for GPU rows)",
        caption=("Peer time divided by ours, same case and run: > 1 means faster than the library a user would "
                 "otherwise call. Kernel times without transfers: prefilter and evaluate phases. End to end: one "
                 "prepare + evaluate cycle from the caller's host arrays to host results. Medians over each "
                 "record's repetitions; threads as recorded (SciPy runs one). Only cases the peer completed and "
                 "took >= 1 ms on end to end; the peer's own failed verdicts are shown but marked."),
        columns=[Column("run"), Column("case"), Column("implementation"), Column("peer"),
                 Column("peer prefilter", "ms", True), Column("prefilter", "ms", True),
                 Column("prefilter speed-up", "×", True), Column("peer evaluate", "ms", True),
                 Column("evaluate", "ms", True), Column("evaluate speed-up", "×", True),
                 Column("peer end to end", "ms", True), Column("end to end", "ms", True),
                 Column("end-to-end speed-up", "×", True)])
    registry = implementations.for_runs(runs)
    order = {name: i for i, name in enumerate(registry.names)}
    sides: set[str] = set()
    unknown: dict[str, set[str]] = {}
    table.notes.append(
        "End to end is the per-repetition sum of the phases the record has among host_staging, upload, prefilter, "
        "bind, bound_stats, query_upload, evaluate, download (the notes below say which each side has); the setup "
        "is inside because our GPU staging of samples, coordinates and values is one phase per cycle. Cases "
        "shorter than 1 ms end to end time the call, not the work. NOISY: the repetitions are bimodal or spread "
        "over more than a quarter of the median (notes say why).")
    for run in runs:
        peers_by_case: dict[tuple, dict[str, Record]] = {}
        for rec in run.records:
            if rec.impl in PEERS and rec.ok:
                peers_by_case.setdefault(rec.case_key_without_impl(), {})[rec.impl] = rec
        if not peers_by_case:
            continue
        for peer in sorted({p for by in peers_by_case.values() for p in by}):
            if versions := peer_versions(run, peer):
                table.notes.append(f"{run.label}: {peer}: {versions}.")
        for rec in sorted(run.records, key=lambda r: (_case_label(r), order.get(r.impl, len(order)), r.threads)):
            if rec.impl in PEERS or rec.impl == "reference" or not rec.ok:
                continue
            device = registry.device(rec.impl)
            peer_name = PEER_OF_DEVICE.get(device)
            peer = peers_by_case.get(rec.case_key_without_impl(), {}).get(peer_name)
            if peer is None:
                continue
            kernels = [peer.phase_median(p) or 0 for p in KERNEL_PHASES]
            if max(*kernels, timing.end_to_end_seconds(peer) or 0) < MIN_PEER_SECONDS:
                continue
            for side in (rec, peer):
                if outside := timing.phases_outside_cycle(side):
                    unknown.setdefault(side.impl, set()).update(outside)
            sides.update((device, peer_name))
            mark = " (fails: known defect)" if peer.verdict == "fail" else ""
            p_pre, o_pre = peer.phase_median("prefilter"), rec.phase_median("prefilter")
            p_eval, o_eval = peer.phase_median("evaluate"), rec.phase_median("evaluate")
            p_e2e, o_e2e = timing.end_to_end_seconds(peer), timing.end_to_end_seconds(rec)
            label = rec.impl + (f" T{rec.threads}" if rec.threads > 1 else "")
            pre, ev, e2e = ("prefilter",), ("evaluate",), timing.END_TO_END_PHASES
            cells = []
            for phases, what, p_time, o_time in ((pre, "prefilter", p_pre, o_pre), (ev, "evaluate", p_eval, o_eval),
                                                 (e2e, "end to end", p_e2e, o_e2e)):
                cells += [_time(table, run, peer, phases, p_time, what), _time(table, run, rec, phases, o_time, what),
                          _ratio(p_time, o_time)]
            table.add(Row([run.label, _case_label(rec), label, peer.impl + mark, *cells], "ours"))
    if not table.data_rows("ours"):
        table.add(Row(["—"], "missing", note="no run holds a case completed by both a peer (scipy, cupy) and "
                                             "another implementation"))
        return table
    for side in ("gpu", "cupy", "cpu", "scipy"):
        if side in sides:
            table.notes.append(SIDE_NOTES[side])
    for impl, phases in sorted(unknown.items()):
        table.notes.append(f"{impl} records phases no end-to-end sum here knows ({', '.join(sorted(phases))}): "
                           "its end-to-end time is left out (—) rather than summed without them.")
    table.notes.append("The adapter's cost per request (per run above) is in no peer phase: each phase is timed "
                       "inside the adapter.")
    return table
