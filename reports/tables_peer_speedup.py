"""Speed-up over the library a user would otherwise run: every implementation's prefilter
and lookup times divided into the peer's on the same case of the same run, the peer being
`scipy` (scipy.ndimage, one thread) for CPU rows and `cupy` (cupyx.scipy.ndimage) for GPU
rows. Peers are implementations like the others (impls/external/); this table only
pairs records. Lookup: the time a caller sees (timing.lookup_seconds: transfers included
on the GPU). Versions of the peers come from each run's context."""
from __future__ import annotations

from collections.abc import Sequence

from . import implementations, timing
from .loader import Record, Run
from .table_model import Column, Row, Table, fmt_ms, fmt_ratio

PEER_OF_DEVICE = {"cpu": "scipy", "gpu": "cupy"}
PEERS = frozenset(PEER_OF_DEVICE.values())
MS = 1e3
# Cases where the peer took at least this long in a phase: shorter ones measure the call
# overhead more than the work (the adapter's own cost per request, measured in every run
# and stated in the table's notes, is tens of microseconds), and a quick suite would give a
# row per tiny case.
MIN_PEER_SECONDS = 1e-3


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


def peer_speedup_table(runs: Sequence[Run]) -> Table:
    table = Table(
        key="peer_speedup",
        title="Speed-up over the peer library (SciPy for CPU rows, CuPy for GPU rows)",
        caption=("Peer time divided by ours, same case and run: > 1 means faster than the library a user would "
                 "otherwise call. Prefilter: the prefilter phase; lookup: the time a caller sees (GPU: query upload "
                 "+ evaluate + download). Medians over each record's repetitions; threads as recorded (SciPy runs "
                 "one). Only cases the peer completed and took >= 1 ms on (shorter ones time the call, not the work); "
                 "the peer's own failed verdicts (known defects) are shown but marked."),
        columns=[Column("run"), Column("case"), Column("implementation"), Column("peer"),
                 Column("peer prefilter", "ms", True), Column("prefilter", "ms", True),
                 Column("prefilter speed-up", "×", True), Column("peer lookup", "ms", True),
                 Column("lookup", "ms", True), Column("lookup speed-up", "×", True)])
    registry = implementations.for_runs(runs)
    order = {name: i for i, name in enumerate(registry.names)}
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
            peer_name = PEER_OF_DEVICE.get(registry.device(rec.impl))
            peer = peers_by_case.get(rec.case_key_without_impl(), {}).get(peer_name)
            if peer is None:
                continue
            if max(peer.phase_median("prefilter") or 0, timing.lookup_seconds(peer) or 0) < MIN_PEER_SECONDS:
                continue
            mark = " (fails: known defect)" if peer.verdict == "fail" else ""
            p_pre, o_pre = peer.phase_median("prefilter"), rec.phase_median("prefilter")
            p_look, o_look = timing.lookup_seconds(peer), timing.lookup_seconds(rec)
            label = rec.impl + (f" T{rec.threads}" if rec.threads > 1 else "")
            table.add(Row([run.label, _case_label(rec), label, peer.impl + mark,
                           fmt_ms(p_pre * MS) if p_pre else "—", fmt_ms(o_pre * MS) if o_pre else "—",
                           _ratio(p_pre, o_pre),
                           fmt_ms(p_look * MS) if p_look else "—", fmt_ms(o_look * MS) if o_look else "—",
                           _ratio(p_look, o_look)], "ours"))
    if not table.data_rows("ours"):
        table.add(Row(["—"], "missing", note="no run holds a case completed by both a peer (scipy, cupy) and "
                                             "another implementation"))
    return table
