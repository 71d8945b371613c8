// MG-PCG's coarse levels by Galerkin's product A_c = P^T A P of the stencils, so that a
// coarse level costs its nodes and never the samples (every level below the first stencil
// level; stencil_level.hpp for the layout and multigrid_levels.hpp for P).
//
// P is a tensor product, P = P_0 (x) P_1 (x) P_2 (one axis's P, AxisTransfer, per padded
// axis; identity on a kept axis or a line of one node), so P^T A P is formed one halved
// axis at a time: the pass on axis a replaces, in every entry, the fine index pair (i, j)
// on that axis by the coarse pair (I, J),
//   B(.., I, .. ; .., J, ..) = sum_i sum_j P_a(i, I) A(.., i, .. ; .., j, ..) P_a(j, J),
// the other axes' indices and offsets untouched. In the stencil layout a coupling on an
// axis sits at its canonical offset alone (canonical_offset), per axis, so the pass sums,
// for output entry (I, D) with J = fold(I + D) on the coarse line (0 unless D is J's
// canonical offset from I), over the fine nodes i of P's column I (P^T's row) and the
// offsets d of i's canonical couplings j = fold(i + d) on the fine line, with P_a(j, J)
// from P's row j. Every (i, j) pair enters once, so the product is exact up to the f64
// rounding of its sum, and the order is fixed (the same bits every run). A coarse coupling
// reaches no farther than |I - J| <= (2 + 3 + 2) / 2, so 7 offsets hold it; a pair that
// folds outside them is counted by the pass (lost) and the tests compare the result with
// the dense P^T A P.
//
// This header is host code plus SPLINEBENCH_HD functions (the tests run the passes on the
// host); galerkin_level.cuh runs them on the device.
#pragma once

#include <string>
#include <vector>

#include "multigrid_levels.hpp"
#include "stencil_level.hpp"

namespace splinebench::scattered::gpu::detail {

// One axis's P for a pass: P^T's rows (the fine nodes of coarse node I with P(i, I)) and
// P's rows (the coarse nodes of fine node j with P(j, J)); the weights are multiples of
// 1/64 (AxisTransfer), exact in f64.
struct GalerkinAxis {
  int axis = 0;  // the padded axis halved
  int fine = 1, coarse = 1, mode = 0;
  const int* r_offset = nullptr;
  const int* r_index = nullptr;
  const double* r_weight = nullptr;
  const int* p_offset = nullptr;
  const int* p_index = nullptr;
  const double* p_weight = nullptr;
};

// Entry index of per-axis offsets d (each in -3..3 on an axis of width 7, 0 on a line).
SPLINEBENCH_HD int stencil_entry_index(const StencilGeometry& g, const int d[3]) {
  int e = 0;
  for (int a = 0; a < 3; ++a) e = e * g.width[a] + (g.width[a] == 1 ? 0 : d[a] + kStencilTaps / 2);
  return e;
}

// Entry e of node `node` of the pass's output (geometry out: in's with axis t.axis of
// t.coarse nodes), from the input stencil `in` (geometry in_geo), f64, entry-major.
SPLINEBENCH_HD double galerkin_entry(const StencilGeometry& in_geo, const double* in, const StencilGeometry& out,
                                     const GalerkinAxis& t, long long node, int e) {
  int k[3], d[3];
  out.unflat(node, k);
  out.offsets(e, d);
  const int a = t.axis;
  const int big_i = k[a], big_d = d[a];
  const int big_j = fold_near(t.mode, big_i + big_d, t.coarse);
  if (canonical_offset(t.mode, t.coarse, big_i, big_j) != big_d) return 0.0;
  double sum = 0;
  for (int q = t.r_offset[big_i]; q < t.r_offset[big_i + 1]; ++q) {
    const int i = t.r_index[q];
    const double wi = t.r_weight[q];
    int kin[3] = {k[0], k[1], k[2]};
    kin[a] = i;
    const long long in_node = (static_cast<long long>(kin[0]) * in_geo.n[1] + kin[1]) * in_geo.n[2] + kin[2];
    for (int dd = -kStencilTaps / 2; dd <= kStencilTaps / 2; ++dd) {
      const int j = fold_near(t.mode, i + dd, t.fine);
      if (canonical_offset(t.mode, t.fine, i, j) != dd) continue;
      double wj = 0;
      for (int u = t.p_offset[j]; u < t.p_offset[j + 1]; ++u)
        if (t.p_index[u] == big_j) wj = t.p_weight[u];
      if (wj == 0) continue;
      int din[3] = {d[0], d[1], d[2]};
      din[a] = dd;
      sum += wi * in[static_cast<long long>(stencil_entry_index(in_geo, din)) * in_geo.nodes + in_node] * wj;
    }
  }
  return sum;
}

// ---- Host: the passes' host parts (shared by the device's and the tests') ----

// A transfer's P and P^T rows with f64 weights (what a pass reads, before upload).
struct GalerkinAxisHost {
  int axis = 0, fine = 1, coarse = 1, mode = 0;
  std::vector<int> r_offset, r_index, p_offset, p_index;
  std::vector<double> r_weight, p_weight;
  GalerkinAxis view() const {
    return {axis, fine, coarse, mode, r_offset.data(), r_index.data(), r_weight.data(),
            p_offset.data(), p_index.data(), p_weight.data()};
  }
};

// The passes that take a level to the next: one per halved padded axis, in axis order.
inline std::vector<GalerkinAxisHost> galerkin_axes(const Level& fine) {
  std::vector<GalerkinAxisHost> axes;
  for (int a = 0; a < 3; ++a) {
    const AxisTransfer& t = fine.to_coarser[a];
    if (t.identity() || fine.layout.axis[a].n == 1) continue;
    if (t.fine != fine.layout.axis[a].n)
      fail("GPU MG-PCG Galerkin: axis " + std::to_string(a) + "'s transfer has " + std::to_string(t.fine) +
           " fine nodes, the level " + std::to_string(fine.layout.axis[a].n));
    GalerkinAxisHost h;
    h.axis = a;
    h.fine = t.fine;
    h.coarse = t.coarse;
    h.mode = fine.layout.axis[a].mode;
    h.r_offset = t.r_offset;
    h.r_index = t.r_index;
    h.r_weight.assign(t.r_weight.begin(), t.r_weight.end());
    h.p_offset = t.p_offset;
    h.p_index = t.p_index;
    h.p_weight.assign(t.p_weight.begin(), t.p_weight.end());
    axes.push_back(std::move(h));
  }
  return axes;
}

// The geometry after a pass on t's axis.
inline StencilGeometry galerkin_output_geometry(const StencilGeometry& in, const GalerkinAxisHost& t) {
  StencilGeometry out = in;
  out.n[t.axis] = t.coarse;
  out.width[t.axis] = t.coarse == 1 ? 1 : kStencilTaps;
  out.entries = out.width[0] * out.width[1] * out.width[2];
  out.nodes = static_cast<long long>(out.n[0]) * out.n[1] * out.n[2];
  if (out.width[t.axis] != in.width[t.axis])
    fail("GPU MG-PCG Galerkin: axis " + std::to_string(t.axis) + " halved to a line of one node");
  return out;
}

// One pass on the host (f64, entry-major), as the device runs it.
inline std::vector<double> galerkin_pass_host(const StencilGeometry& in_geo, const std::vector<double>& in,
                                              const GalerkinAxisHost& t, StencilGeometry& out_geo) {
  out_geo = galerkin_output_geometry(in_geo, t);
  const GalerkinAxis view = t.view();
  std::vector<double> out(static_cast<std::size_t>(out_geo.nodes) * static_cast<std::size_t>(out_geo.entries));
  for (int e = 0; e < out_geo.entries; ++e)
    for (long long node = 0; node < out_geo.nodes; ++node)
      out[static_cast<std::size_t>(e * out_geo.nodes + node)] = galerkin_entry(in_geo, in.data(), out_geo, view, node, e);
  return out;
}

// The next level's stencil from `fine`'s (geometry geo, updated to the coarse level's).
inline std::vector<double> galerkin_level_host(const Level& fine, StencilGeometry& geo, std::vector<double> value) {
  for (const GalerkinAxisHost& t : galerkin_axes(fine)) {
    StencilGeometry out;
    value = galerkin_pass_host(geo, value, t, out);
    geo = out;
  }
  return value;
}

}  // namespace splinebench::scattered::gpu::detail
