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
// axis sits at its canonical offset alone (canonical_offset), per axis, so the pass's
// output entry (I, D), J = fold(I + D) on the coarse line, is 0 unless D is J's canonical
// offset from I, and otherwise sums the fine pairs (i, j = fold(i + d)) with i in P's
// column I and d i's canonical offset to j, weighted by P_a(i, I) P_a(j, J) (exact: the
// weights are multiples of 1/64). The terms of every (I, D) are listed once per axis on
// the host (galerkin_axis), so a pass is a short sum per entry. Every (i, j) pair enters
// once, so the product is exact up to the f64 rounding of its sum, and the order is fixed
// (the same bits every run). A coarse coupling reaches no farther than
// |I - J| <= (2 + 3 + 2) / 2, so 7 offsets hold it; the tests compare every level with the
// dense P^T A P, which would show a coupling the offsets miss.
//
// This header is host code plus SPLINEBENCH_HD functions (the tests run the passes on the
// host); galerkin_level.cuh runs them on the device.
#pragma once

#include <string>
#include <vector>

#include "multigrid_levels.hpp"
#include "stencil_level.hpp"

namespace splinebench::scattered::gpu::detail {

// One axis's pass as a list of terms per output (I, D): the fine pairs (i, j = fold(i + d))
// it sums, as (i, d, P(i, I) P(j, J)), i in P^T's row order and d ascending; empty where D
// is not J's canonical offset from I. The weights are products of multiples of 1/64
// (AxisTransfer), exact in f64.
struct GalerkinAxis {
  int axis = 0;  // the padded axis halved
  int fine = 1, coarse = 1;
  const int* term_offset = nullptr;  // coarse * kStencilTaps + 1
  const int* term_node = nullptr;    // i
  const int* term_shift = nullptr;   // d
  const double* term_weight = nullptr;
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
  const int slot = k[a] * kStencilTaps + d[a] + kStencilTaps / 2;
  double sum = 0;
  for (int u = t.term_offset[slot]; u < t.term_offset[slot + 1]; ++u) {
    k[a] = t.term_node[u];
    d[a] = t.term_shift[u];
    const long long in_node = (static_cast<long long>(k[0]) * in_geo.n[1] + k[1]) * in_geo.n[2] + k[2];
    sum += t.term_weight[u] * in[static_cast<long long>(stencil_entry_index(in_geo, d)) * in_geo.nodes + in_node];
  }
  return sum;
}

// ---- Host: the passes' host parts (shared by the device's and the tests') ----

// A pass's terms on the host (what the device's pass reads, before upload).
struct GalerkinAxisHost {
  int axis = 0, fine = 1, coarse = 1;
  std::vector<int> term_offset, term_node, term_shift;
  std::vector<double> term_weight;
  GalerkinAxis view() const {
    return {axis, fine, coarse, term_offset.data(), term_node.data(), term_shift.data(), term_weight.data()};
  }
};

// The terms of one axis's pass from its transfer (P's rows: fine -> coarse; P^T's rows:
// coarse -> fine).
inline GalerkinAxisHost galerkin_axis(int axis, int mode, const AxisTransfer& t) {
  GalerkinAxisHost h;
  h.axis = axis;
  h.fine = t.fine;
  h.coarse = t.coarse;
  h.term_offset.assign(1, 0);
  for (int big_i = 0; big_i < t.coarse; ++big_i)
    for (int big_d = -kStencilTaps / 2; big_d <= kStencilTaps / 2; ++big_d) {
      const int big_j = fold_near(mode, big_i + big_d, t.coarse);
      if (canonical_offset(mode, t.coarse, big_i, big_j) == big_d)
        for (int q = t.r_offset[big_i]; q < t.r_offset[big_i + 1]; ++q) {
          const int i = t.r_index[q];
          for (int d = -kStencilTaps / 2; d <= kStencilTaps / 2; ++d) {
            const int j = fold_near(mode, i + d, t.fine);
            if (canonical_offset(mode, t.fine, i, j) != d) continue;
            double wj = 0;
            for (int u = t.p_offset[j]; u < t.p_offset[j + 1]; ++u)
              if (t.p_index[u] == big_j) wj += t.p_weight[u];
            if (wj == 0) continue;
            h.term_node.push_back(i);
            h.term_shift.push_back(d);
            h.term_weight.push_back(static_cast<double>(t.r_weight[q]) * wj);
          }
        }
      h.term_offset.push_back(static_cast<int>(h.term_node.size()));
    }
  return h;
}

// The passes that take a level to the next: one per halved padded axis, in axis order.
inline std::vector<GalerkinAxisHost> galerkin_axes(const Level& fine) {
  std::vector<GalerkinAxisHost> axes;
  for (int a = 0; a < 3; ++a) {
    const AxisTransfer& t = fine.to_coarser[a];
    if (t.identity() || fine.layout.axis[a].n == 1) continue;
    if (t.fine != fine.layout.axis[a].n)
      fail("GPU MG-PCG Galerkin: axis " + std::to_string(a) + "'s transfer has " + std::to_string(t.fine) +
           " fine nodes, the level " + std::to_string(fine.layout.axis[a].n));
    const int mode = fine.layout.axis[a].mode;
    // An axis like one before it (a square image's or cube's) has the same terms: the
    // transfer depends only on the extent and the mode.
    std::size_t like = axes.size();
    for (std::size_t i = 0; i < axes.size() && like == axes.size(); ++i)
      if (axes[i].fine == t.fine && fine.layout.axis[axes[i].axis].mode == mode) like = i;
    if (like < axes.size()) {
      GalerkinAxisHost copy = axes[like];
      copy.axis = a;
      axes.push_back(std::move(copy));
    } else {
      axes.push_back(galerkin_axis(a, mode, t));
    }
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
