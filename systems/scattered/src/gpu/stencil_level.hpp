// A level of the GPU multigrid held as a per-node stencil (MG-PCG's levels below the fine
// one): the level's operator A_l = F_l^T F_l + lambda R_l (multigrid_levels.hpp, the
// operator apply_level applies from the samples) formed once, so that applying it costs
// the level's nodes and not the fine problem's samples.
//
// Layout. On an axis of more than one node every node couples to fold(k + d), |d| <= 3
// (basis.hpp: AxisPattern); on a line of one node only to itself. Entry e of node k holds
// the coupling to fold(k + d_e), e running over the offsets in C order (7 per axis of >= 2
// nodes, 1 per line of one node: 7^D entries where every axis has >= 2 nodes). The values
// are entry-major, value[e * nodes + node], so that a warp of consecutive nodes reads one
// entry coalesced. Near the boundaries several d fold onto one node (mirror: fold(1 - 2) ==
// 1): the coupling sits on one of them (canonical_offset: the d of least |d|, negative
// first) and the others hold zero, so the centre entry is the whole diagonal and every
// entry is one matrix entry A_l(k, k').
//
// Arithmetic (the functions marked SPLINEBENCH_HD run on the device and, for the tests,
// on the host): entry (k, k') = sum over the samples of w_k w_k' + sum over the thin-plate
// terms of lambda w_alpha prod_a T_{alpha_a}(k_a, k'_a), in f64, one thread per entry
// summing the samples of the cells that reach both nodes (cells ascending, samples in their
// stable sort by cell: no atomics, the same bits every run), rounded once to f32. The basis
// weights come from the f64 coordinates, so the stored entry is the f64 matrix entry to
// one f32 rounding; the fine level's matrix-free operator rounds its fractions and
// products in f32 instead.
//
// This header is host code plus SPLINEBENCH_HD functions; it needs no CUDA header.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "multigrid_levels.hpp"
#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

// nvcc unrolls the rows' fixed-width loops; the host compiler does not know the pragma.
#if defined(__CUDA_ARCH__)
#define SB_STENCIL_UNROLL _Pragma("unroll")
#else
#define SB_STENCIL_UNROLL
#endif

inline constexpr int kStencilTaps = 7;       // offsets -3 .. 3 on an axis of >= 2 nodes
inline constexpr int kNoStencilOffset = 99;  // canonical_offset: k and k2 do not couple

// fold_index for the near neighbours the stencil reaches: inside the line no modulo.
SPLINEBENCH_HD int fold_near(int mode, int j, int n) {
  return j >= 0 && j < n ? j : static_cast<int>(bspline::fold_index(mode, j, n));
}

// The offset whose entry carries the coupling of k to k2: the first d of 0, -1, 1, -2, 2,
// -3, 3 with fold(k + d) == k2 (0 for k2 == k, so the centre entry is the diagonal);
// kNoStencilOffset when there is none.
SPLINEBENCH_HD int canonical_offset(int mode, int n, int k, int k2) {
  if (k >= kStencilTaps / 2 && k + kStencilTaps / 2 < n) {  // no neighbour folds: k2 sits at k2 - k alone
    const int d = k2 - k;
    return d >= -kStencilTaps / 2 && d <= kStencilTaps / 2 ? d : kNoStencilOffset;
  }
  for (int i = 0; i < kStencilTaps; ++i) {
    const int d = (i + 1) / 2 * (i % 2 == 1 ? -1 : 1);
    if (fold_near(mode, k + d, n) == k2) return d;
  }
  return kNoStencilOffset;
}

// The level's grid on the padded axes (grid_layout.hpp) and the stencil's shape on it.
struct StencilGeometry {
  int n[3] = {1, 1, 1};
  int mode[3] = {0, 0, 0};   // Mode's order, per axis (padding axes are mirror lines of one node)
  int width[3] = {1, 1, 1};  // kStencilTaps on an axis of >= 2 nodes, 1 on a line of one node
  int entries = 1;           // width[0] * width[1] * width[2]
  long long nodes = 1;

  // The offsets d of entry e per axis.
  SPLINEBENCH_HD void offsets(int e, int d[3]) const {
    for (int a = 2; a >= 0; --a) {
      const int i = e % width[a];
      e /= width[a];
      d[a] = width[a] == 1 ? 0 : i - kStencilTaps / 2;
    }
  }
  SPLINEBENCH_HD int centre() const {
    return ((width[0] / 2) * width[1] + width[1] / 2) * width[2] + width[2] / 2;
  }
  SPLINEBENCH_HD void unflat(long long node, int k[3]) const {
    k[2] = static_cast<int>(node % n[2]);
    node /= n[2];
    k[1] = static_cast<int>(node % n[1]);
    k[0] = static_cast<int>(node / n[1]);
  }
};

// One axis's arrays the entries read (grid_layout.hpp's touch lists, and the thin-plate
// tables placed at the canonical offsets).
struct StencilAxisData {
  const int* touch_offset = nullptr;
  const int* touch_cell = nullptr;
  const int* touch_mask = nullptr;
  const double* table = nullptr;  // table[(k * 3 + q) * 7 + d + 3]: T_q(k, fold(k + d)) on the canonical d, else 0
};

// What forming the entries reads: the geometry, the axes, the thin-plate terms, and the
// level's samples sorted by cell (cell: the flat index of (floor(x_0), floor(x_1),
// floor(x_2)), 0 on a line of one node; cell_start: nodes + 1).
struct StencilInputs {
  StencilGeometry geo;
  StencilAxisData axis[3];
  int terms = 0;
  int term_order[kMaxTerms][3] = {};
  double term_weight[kMaxTerms] = {};  // lambda * 2 / alpha!
  const double* x[3] = {nullptr, nullptr, nullptr};
  const int* cell_start = nullptr;
};

// Tap bits of node k in cell `cell` (grid_layout.hpp: bit t set when tap t folds onto k),
// 0 when the cell does not reach k.
SPLINEBENCH_HD int stencil_touch_bits(const StencilAxisData& ax, int k, int cell) {
  for (int j = ax.touch_offset[k]; j < ax.touch_offset[k + 1]; ++j)
    if (ax.touch_cell[j] == cell) return ax.touch_mask[j];
  return 0;
}

// w_k(x) w_k2(x) on one axis for a sample at fraction frac of its cell: each weight the sum
// of the taps folding onto its node in tap order (the CPU's axis_taps merges them so). A
// line of one node is the constant 1.
SPLINEBENCH_HD double stencil_pair_weight(int n, double frac, int bits_k, int bits_k2) {
  if (n == 1) return 1.0;
  double w[4];
  bspline::weights(frac, w);
  double wk = 0, wk2 = 0;
  for (int t = 0; t < 4; ++t) {
    if (bits_k >> t & 1) wk += w[t];
    if (bits_k2 >> t & 1) wk2 += w[t];
  }
  return wk * wk2;
}

// Entry e of node `node` in f64 (0 on an offset that is not its coupling's canonical one).
SPLINEBENCH_HD double stencil_entry(const StencilInputs& in, long long node, int e) {
  const StencilGeometry& g = in.geo;
  int k[3], k2[3], d[3];
  g.unflat(node, k);
  g.offsets(e, d);
  for (int a = 0; a < 3; ++a) {
    k2[a] = fold_near(g.mode[a], k[a] + d[a], g.n[a]);
    if (canonical_offset(g.mode[a], g.n[a], k[a], k2[a]) != d[a]) return 0.0;
  }
  double r = 0;
  for (int t = 0; t < in.terms; ++t) {
    double prod = in.term_weight[t];
    for (int a = 0; a < 3; ++a) prod *= in.axis[a].table[(k[a] * 3 + in.term_order[t][a]) * kStencilTaps + d[a] + 3];
    r += prod;
  }
  // F^T F: the cells reaching both nodes on every axis, ascending; their samples in order.
  const StencilAxisData* ax = in.axis;
  double s = 0;
  for (int j0 = ax[0].touch_offset[k[0]]; j0 < ax[0].touch_offset[k[0] + 1]; ++j0) {
    const int c0 = ax[0].touch_cell[j0];
    const int b0 = stencil_touch_bits(ax[0], k2[0], c0);
    if (b0 == 0) continue;
    const int a0 = ax[0].touch_mask[j0];
    for (int j1 = ax[1].touch_offset[k[1]]; j1 < ax[1].touch_offset[k[1] + 1]; ++j1) {
      const int c1 = ax[1].touch_cell[j1];
      const int b1 = stencil_touch_bits(ax[1], k2[1], c1);
      if (b1 == 0) continue;
      const int a1 = ax[1].touch_mask[j1];
      for (int j2 = ax[2].touch_offset[k[2]]; j2 < ax[2].touch_offset[k[2] + 1]; ++j2) {
        const int c2 = ax[2].touch_cell[j2];
        const int b2 = stencil_touch_bits(ax[2], k2[2], c2);
        if (b2 == 0) continue;
        const int a2 = ax[2].touch_mask[j2];
        const long long cell = (static_cast<long long>(c0) * g.n[1] + c1) * g.n[2] + c2;
        for (int i = in.cell_start[cell]; i < in.cell_start[cell + 1]; ++i)
          s += stencil_pair_weight(g.n[0], in.x[0][i] - c0, a0, b0) * stencil_pair_weight(g.n[1], in.x[1][i] - c1, a1, b1) *
               stencil_pair_weight(g.n[2], in.x[2][i] - c2, a2, b2);
      }
    }
  }
  return s + r;
}

// The folded columns of a row along each axis (W0, W1, W2: the widths, fixed so the loops
// unroll).
template <int W0, int W1, int W2>
struct StencilColumns {
  int i0[W0], i1[W1], i2[W2];
};

// The folded columns of `node`'s row (stencil_row's, and the device's staged form of it).
template <int W0, int W1, int W2>
SPLINEBENCH_HD StencilColumns<W0, W1, W2> stencil_columns(const StencilGeometry& g, long long node) {
  int k[3];
  g.unflat(node, k);
  StencilColumns<W0, W1, W2> c;
  SB_STENCIL_UNROLL
  for (int j = 0; j < W0; ++j) c.i0[j] = W0 == 1 ? 0 : fold_near(g.mode[0], k[0] + j - kStencilTaps / 2, g.n[0]);
  SB_STENCIL_UNROLL
  for (int j = 0; j < W1; ++j) c.i1[j] = W1 == 1 ? 0 : fold_near(g.mode[1], k[1] + j - kStencilTaps / 2, g.n[1]);
  SB_STENCIL_UNROLL
  for (int j = 0; j < W2; ++j) c.i2[j] = W2 == 1 ? 0 : fold_near(g.mode[2], k[2] + j - kStencilTaps / 2, g.n[2]);
  return c;
}

// The product's row at `node`: sum_e value[e][node] x[fold(node + d_e)] in f32 FMAs in
// entry order (the device runs it a thread per node; the tests run it on the host, where
// fmaf rounds once as the device's does). W0, W1, W2: the widths, fixed so the loops unroll.
template <int W0, int W1, int W2>
SPLINEBENCH_HD float stencil_row(const StencilGeometry& g, const float* value, const float* x, long long node) {
  const StencilColumns<W0, W1, W2> col = stencil_columns<W0, W1, W2>(g, node);
  const int *i0 = col.i0, *i1 = col.i1, *i2 = col.i2;
  const long long n1 = g.n[1], n2 = g.n[2];
  const float* v = value + node;
  float sum = 0.f;
  SB_STENCIL_UNROLL
  for (int a = 0; a < W0; ++a) {
    SB_STENCIL_UNROLL
    for (int b = 0; b < W1; ++b) {
      const float* row = x + (i0[a] * n1 + i1[b]) * n2;
      const float* ve = v + static_cast<long long>((a * W1 + b) * W2) * g.nodes;
      SB_STENCIL_UNROLL
      for (int c = 0; c < W2; ++c) sum = fmaf(ve[c * g.nodes], row[i2[c]], sum);
    }
  }
  return sum;
}

// Calls f.template operator()<W0, W1, W2>() with the geometry's widths.
template <typename F>
void with_stencil_widths(const StencilGeometry& g, F&& f) {
  constexpr int T = kStencilTaps;
  const bool w0 = g.width[0] > 1, w1 = g.width[1] > 1, w2 = g.width[2] > 1;
  if (w0 && w1 && w2) f.template operator()<T, T, T>();
  else if (!w0 && w1 && w2) f.template operator()<1, T, T>();
  else if (!w0 && !w1 && w2) f.template operator()<1, 1, T>();
  else if (w0 && !w1 && w2) f.template operator()<T, 1, T>();
  else if (w0 && w1 && !w2) f.template operator()<T, T, 1>();
  else if (w0 && !w1 && !w2) f.template operator()<T, 1, 1>();
  else if (!w0 && w1 && !w2) f.template operator()<1, T, 1>();
  else f.template operator()<1, 1, 1>();
}

// ---- Host: the inputs' host parts (shared by the device's formation and the tests') ----

inline StencilGeometry stencil_geometry(const GridLayout& layout) {
  StencilGeometry g;
  g.entries = 1;
  g.nodes = 1;
  for (int a = 0; a < 3; ++a) {
    g.n[a] = layout.axis[a].n;
    g.mode[a] = layout.axis[a].mode;
    g.width[a] = g.n[a] == 1 ? 1 : kStencilTaps;
    g.entries *= g.width[a];
    g.nodes *= g.n[a];
  }
  return g;
}

// Bytes of a level's f32 stencil.
inline std::uint64_t stencil_bytes(const GridLayout& layout) {
  const StencilGeometry g = stencil_geometry(layout);
  return static_cast<std::uint64_t>(g.nodes) * static_cast<std::uint64_t>(g.entries) * sizeof(float);
}

// An axis's T_0, T_1, T_2 (aligned with its pattern) placed at the canonical offsets.
inline std::vector<double> canonical_axis_table(const AxisLayout& ax) {
  std::vector<double> t(static_cast<std::size_t>(ax.n) * 3 * kStencilTaps, 0.0);
  for (int k = 0; k < ax.n; ++k)
    for (int j = ax.offset[k]; j < ax.offset[k + 1]; ++j) {
      const int d = canonical_offset(ax.mode, ax.n, k, ax.node[j]);
      if (d == kNoStencilOffset)
        fail("GPU multigrid stencil: nodes " + std::to_string(k) + " and " + std::to_string(ax.node[j]) +
             " couple beyond |d| <= 3 (a bug in the axis pattern)");
      for (int q = 0; q < 3; ++q)
        t[static_cast<std::size_t>((k * 3 + q) * kStencilTaps + d + 3)] += ax.integral[q][static_cast<std::size_t>(j)];
    }
  return t;
}

// The terms of the layout, copied into the inputs.
inline void set_stencil_terms(const GridLayout& layout, StencilInputs& in) {
  in.terms = layout.terms;
  for (int t = 0; t < layout.terms; ++t) {
    for (int a = 0; a < 3; ++a) in.term_order[t][a] = layout.term_order[t][a];
    in.term_weight[t] = layout.term_weight[t];
  }
}

// The level's samples in the device's order: stably sorted by cell (its radix sort is
// stable), the cell as the device computes it (floor(x), 0 on a line of one node).
struct HostSortedSamples {
  std::array<std::vector<double>, 3> x;
  std::vector<int> cell_start;
};

inline HostSortedSamples sort_samples_by_cell(const GridLayout& layout, const SampleArrays& samples) {
  const std::size_t count = samples.value.size();
  const auto rows = static_cast<std::size_t>(layout.rows);
  std::vector<long long> cell(count);
  for (std::size_t i = 0; i < count; ++i) {
    long long c = 0;
    for (int a = 0; a < 3; ++a) {
      const int n = layout.axis[a].n;
      c = c * n + (n == 1 ? 0 : static_cast<long long>(std::floor(samples.coord[a][i])));
    }
    if (c < 0 || c >= static_cast<long long>(rows)) fail("GPU multigrid stencil: a sample outside the level's cells");
    cell[i] = c;
  }
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return cell[l] < cell[r]; });
  HostSortedSamples out;
  for (int a = 0; a < 3; ++a) {
    out.x[a].resize(count);
    for (std::size_t i = 0; i < count; ++i) out.x[a][i] = samples.coord[a][order[i]];
  }
  out.cell_start.assign(rows + 1, 0);
  for (std::size_t i = 0; i < count; ++i) ++out.cell_start[static_cast<std::size_t>(cell[i]) + 1];
  for (std::size_t c = 0; c < rows; ++c) out.cell_start[c + 1] += out.cell_start[c];
  return out;
}

// The level's stencil formed on the host by stencil_entry (f64, entry-major): the tests'
// view of what the device forms.
inline std::vector<double> form_stencil_host(const Level& level, StencilGeometry& geo) {
  const GridLayout& layout = level.layout;
  geo = stencil_geometry(layout);
  const HostSortedSamples sorted = sort_samples_by_cell(layout, level.samples);
  std::array<std::vector<double>, 3> tables;
  StencilInputs in;
  in.geo = geo;
  for (int a = 0; a < 3; ++a) {
    tables[a] = canonical_axis_table(layout.axis[a]);
    const AxisLayout& ax = layout.axis[a];
    in.axis[a] = {ax.touch_offset.data(), ax.touch_cell.data(), ax.touch_mask.data(), tables[a].data()};
    in.x[a] = sorted.x[a].data();
  }
  in.cell_start = sorted.cell_start.data();
  set_stencil_terms(layout, in);
  std::vector<double> value(static_cast<std::size_t>(geo.nodes) * static_cast<std::size_t>(geo.entries));
  for (int e = 0; e < geo.entries; ++e)
    for (long long node = 0; node < geo.nodes; ++node)
      value[static_cast<std::size_t>(e * geo.nodes + node)] = stencil_entry(in, node, e);
  return value;
}

// y = A p on the host with the device's f32 rows (stencil_row), from f32 entries.
inline std::vector<float> apply_stencil_rows_host(const StencilGeometry& g, const std::vector<float>& value,
                                                  const std::vector<float>& p) {
  std::vector<float> y(static_cast<std::size_t>(g.nodes));
  with_stencil_widths(g, [&]<int W0, int W1, int W2>() {
    for (long long node = 0; node < g.nodes; ++node)
      y[static_cast<std::size_t>(node)] = stencil_row<W0, W1, W2>(g, value.data(), p.data(), node);
  });
  return y;
}

// y = A p from a stencil on the host in f64 (entries in the device's order).
inline std::vector<double> apply_stencil_host(const StencilGeometry& g, const std::vector<double>& value,
                                              const std::vector<double>& p) {
  std::vector<double> y(static_cast<std::size_t>(g.nodes), 0.0);
  for (long long node = 0; node < g.nodes; ++node) {
    int k[3];
    g.unflat(node, k);
    double sum = 0;
    for (int e = 0; e < g.entries; ++e) {
      int d[3], j[3];
      g.offsets(e, d);
      for (int a = 0; a < 3; ++a) j[a] = fold_near(g.mode[a], k[a] + d[a], g.n[a]);
      const long long col = (static_cast<long long>(j[0]) * g.n[1] + j[1]) * g.n[2] + j[2];
      sum += value[static_cast<std::size_t>(e * g.nodes + node)] * p[static_cast<std::size_t>(col)];
    }
    y[static_cast<std::size_t>(node)] = sum;
  }
  return y;
}

}  // namespace splinebench::scattered::gpu::detail
