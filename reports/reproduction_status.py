"""The reproduction-status table: every table and figure of the four seed documents, with
what this report shows of it — reproduced, partial (and why), or not reproduced (and
why). The status is read off the report's own items (a table with measured rows, a
figure drawn or skipped with its reason) and the runs, so it changes with the data;
what is declared here is only what no run can change: the limits of a comparison (our
stand-in data sets, a quantity the suite does not measure) and the artefacts that are
not measurements (diagrams, renderings)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .loader import Run
from .plots.style import Figure, Skipped
from .table_model import Column, Row, Table

REPRODUCED, PARTIAL, NOT_REPRODUCED = "reproduced", "partial", "not reproduced"
STAND_IN = "on stand-in data (the seed's data sets ship in no package; the table names each stand-in)"


@dataclass(frozen=True)
class Artefact:
    seed: str
    name: str
    what: str
    shown_by: tuple[str, ...] = ()    # table keys / figure stems (numbered ones: stem_1, stem_2 ...)
    limit: str = ""                   # what makes it partial even with every row measured
    never: str = ""                   # why it is no measurement to reproduce
    # A further condition on the runs: the reason it is only partial, or "".
    check: Callable[[Sequence[Run], Sequence[object]], str] | None = None


def _temp_array_check(runs: Sequence[Run], _items) -> str:
    """Seed 002's main comparison is temp array against step on one card."""
    for run in runs:
        impls = {r.impl for r in run.records if r.ok}
        if "gpu_naive" in impls and "gpu_naive_temp" in impls:
            return ""
    return ("temp array (gpu_naive_temp) not measured on this machine: the step variant (gpu_naive) stands "
            "alone beside the seed's two")


def _study_check(kind: str) -> Callable[[Sequence[Run], Sequence[object]], str]:
    def check(_runs, items) -> str:
        ids = [getattr(i, "run_id", "") for i in items if getattr(i, "study", "") == kind]
        if not ids:
            return "NOT: no rotation study run on this machine (studies/README.md)"
        return (f"the rotation study's section ({', '.join(ids)}) ranks the methods; its pictures need the run's "
                "arrays, which are not committed")
    return check


def _three_d_lambda(runs: Sequence[Run], _items) -> str:
    lambdas = {float(r.get("lambda")) for run in runs
               for r in run.system_records.get("scattered_reconstruction", [])
               if r.get("impl") == "reference" and r.get("dims") == 3 and r.get("status") == "ok"
               and r.get("lambda") is not None}
    if len(lambdas) < 2:
        return "NOT: no 3-D data set with the exact solution at two or more λ in these runs"
    return ""


ARTEFACTS: tuple[Artefact, ...] = (
    Artefact("001", "Table 1", "4-D lookups, SSE CPU against GPU", ("thesis_table1",)),
    Artefact("002", "Table 1", "3-D prefilter per direction", ("ruijters_table1",), check=_temp_array_check),
    Artefact("002", "Table 2", "RGB frame prefilter per direction", ("ruijters_table2",), check=_temp_array_check),
    Artefact("002", "lookup rates", "cubic and linear lookups/s on 256^3", ("reconstruction_256",),
             limit="the hardware-linear rate has no counterpart: no implementation evaluates linear interpolation"),
    Artefact("002", "Fig. 4", "zoom through each method", check=_study_check("rotation")),
    Artefact("002", "Fig. 5", "image rotated 36 times by 10°", check=_study_check("rotation")),
    Artefact("003", "Table 1", "share of the time per phase", ("scattered_table1",)),
    Artefact("003", "Table 2", "solvers at 100 iterations, 20/30/50 %", ("scattered_table2",), limit=STAND_IN),
    Artefact("003", "Table 3", "Natural Convection, λ 0.001",
             never="it repeats Table 2's 20 % column digit for digit and its data set has no ground truth, so its "
                   "RMS cannot be RMS_g; Table 2 stands for it"),
    Artefact("003", "Table 4", "multigrid against a single grid, 64^3", ("scattered_table4",), limit=STAND_IN),
    Artefact("003", "Table 5", "multigrid at 256^3", ("scattered_table5",), limit=STAND_IN),
    Artefact("003", "Table 6", "multigrid on two GPUs", ("scattered_table6",), limit=STAND_IN),
    Artefact("003", "Table 7", "against the CPU codes", ("scattered_table7",)),
    Artefact("003", "Table 8", "images at 20 % top |Laplacian|", ("scattered_table8",), limit=STAND_IN),
    Artefact("003", "Table 9", "volumes in blocks", ("scattered_table9",), limit=STAND_IN),
    Artefact("003", "Table 10", "non-uniform data sets", ("scattered_table10",)),
    Artefact("003", "Fig. 6", "downsampling of a 3-D matrix",
             never="a diagram of the multigrid's steps, not a measurement"),
    Artefact("003", "Fig. 7", "colour map of the volume renderer",
             never="the seed's transfer function for rendering, not a measurement"),
    Artefact("003", "Fig. 8", "Lena reconstructed at three λ", ("scattered_image",),
             limit="one stand-in image at one λ; the RMS_g against λ is Fig. 9's curve"),
    Artefact("003", "Fig. 9", "2-D RMS_g against λ", ("scattered_lambda",), limit=STAND_IN),
    Artefact("003", "Fig. 10", "3-D RMS_g against λ", ("scattered_lambda",), limit=STAND_IN, check=_three_d_lambda),
    Artefact("003", "Fig. 11", "RMS_g against the sample fraction", ("scattered_table2",),
             limit="not drawn as a figure: RMS_g at 20, 30 and 50 % samples are in the seed's Table 2"),
    Artefact("003", "Fig. 12", "multigrid: N varied", ("scattered_mg_sweep",), limit=STAND_IN),
    Artefact("003", "Fig. 13", "multigrid: P varied", ("scattered_mg_sweep",), limit=STAND_IN),
    Artefact("003", "Fig. 14", "rendering of the Skull volume",
             never="a volume rendering by the seed's ray tracer; the suite renders no volumes"),
    Artefact("003", "Fig. 15", "rendering of the reconstructed Skull",
             never="a volume rendering by the seed's ray tracer; the suite renders no volumes"),
    Artefact("004", "Fig. 3", "fixed against flexible allocation over M", ("iir2d_fig3",),
             limit="the seed's curve values are illegible in our copy: its stated claims (crossover, ratio at "
                   "M = 31) are compared, not its points"),
)


def _key(item) -> str:
    return getattr(item, "key", None) or getattr(item, "stem", "")


def _matches(item, name: str) -> bool:
    key = _key(item)
    return key == name or (key.startswith(name + "_") and key[len(name) + 1:].isdigit())


def _has_data(item) -> bool:
    if isinstance(item, Table):
        return bool(item.data_rows("ours"))
    return isinstance(item, Figure)


def _absent_reason(found: list) -> str:
    for item in found:
        if isinstance(item, Skipped):
            return item.reason
        if isinstance(item, Table):
            for row in item.rows:
                if row.kind == "missing" and row.note:
                    return row.note
    return "no run of this machine holds its cases"


def artefact_status(artefact: Artefact, runs: Sequence[Run], items: Sequence[object]) -> tuple[str, str, str]:
    """(status, reason, where) of one artefact."""
    if artefact.never:
        return NOT_REPRODUCED, artefact.never, "—"
    found = [i for i in items for name in artefact.shown_by if _matches(i, name)]
    where = ", ".join(dict.fromkeys(_key(i) for i in found if _has_data(i))) or "—"
    extra = artefact.check(runs, items) if artefact.check else ""
    if extra.startswith("NOT: "):
        return NOT_REPRODUCED, extra[5:], where
    if artefact.shown_by and not any(_has_data(i) for i in found):
        return NOT_REPRODUCED, _absent_reason(found), where
    reasons = [r for r in (extra, artefact.limit) if r]
    missing = [row for i in found if isinstance(i, Table) for row in i.rows if row.kind == "missing"]
    if missing:
        reasons.append(f"{len(missing)} row(s) not measured (notes below the table say why)")
    if not artefact.shown_by and extra:
        return PARTIAL, extra, "studies"
    return (PARTIAL, "; ".join(reasons), where) if reasons else (REPRODUCED, "", where)


def reproduction_status_table(runs: Sequence[Run], items: Sequence[object]) -> Table:
    table = Table(
        key="reproduction_status",
        title="Reproduction status of every table and figure of the four seed documents",
        caption=("Each seed artefact with what this report shows of it: reproduced (every published row has a "
                 "measured counterpart), partial (the reason says what is missing or different), or not "
                 "reproduced (the reason says why). 'Shown in' names the report's table or figure."),
        columns=[Column("seed"), Column("artefact"), Column("what"), Column("status"), Column("shown in"),
                 Column("reason")])
    for artefact in ARTEFACTS:
        status, reason, where = artefact_status(artefact, runs, items)
        table.add(Row([artefact.seed, artefact.name, artefact.what, status, where, reason or "—"]))
    return table
