#include "query_bins.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>
#include <limits>

namespace splinebench::cpu {

namespace {
// One field's coefficients above this size are not L2-resident on current x86 cores.
constexpr std::int64_t kBinFromBytes = std::int64_t{2} << 20;
constexpr std::int64_t kMinQueriesPerBin = 8;
}  // namespace

BinPlan plan_bins(const GridShape& shape, std::int64_t queries) {
  BinPlan plan;
  if (shape.values() * 4 < kBinFromBytes) return plan;
  if (queries > std::numeric_limits<std::int32_t>::max()) return plan;
  plan.binned_axes = std::min(shape.dims, 3);
  // Widen the blocks until the bin count is bounded (the counting sort keeps a
  // histogram per thread).
  for (;;) {
    plan.bins = 1;
    for (int d = 0; d < plan.binned_axes; ++d) {
      plan.bins_per_axis[d] = (shape.extent[d] + plan.cells - 1) / plan.cells;
      plan.bins *= plan.bins_per_axis[d];
    }
    if (plan.bins <= kMaxBins) break;
    plan.cells *= 2;
  }
  plan.enabled = queries >= kMinQueriesPerBin * plan.bins;
  return plan;
}

void bin_queries(const BinPlan& plan, const GridShape& shape, const float* coords, std::int64_t n, int threads,
                 BinnedQueries& out) {
  const int D = shape.dims;
  const std::int64_t R = D <= 4 ? 4 : 8;  // record size in floats
  out.coords.resize(static_cast<std::size_t>(D * n));
  out.rank.resize(static_cast<std::size_t>(n));
  out.key.resize(static_cast<std::size_t>(n));
  out.records.resize(static_cast<std::size_t>(R * n));
  std::int32_t* key = out.key.data();
  float* records = out.records.data();
  const std::int64_t bins = plan.bins;
  const float inv_cells = 1.0f / static_cast<float>(plan.cells);
  threads = std::max(1, threads);
  std::vector<std::int64_t> count(static_cast<std::size_t>(bins * threads), 0);

#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const std::int64_t q0 = n * t / nt, q1 = n * (t + 1) / nt;
    // Bin of each query, one axis at a time (plain float arithmetic that the compiler
    // vectorises). Queries outside the grid (or NaN) go to the nearest edge bin:
    // their taps fold back into the grid anyway, and the order only affects speed.
    // For b >= 0 truncation is floor.
    for (int d = 0; d < plan.binned_axes; ++d) {
      const float* x = coords + d * n;
      const float last = static_cast<float>(plan.bins_per_axis[d] - 1);
      const auto scale = static_cast<std::int32_t>(plan.bins_per_axis[d]);
      for (std::int64_t q = q0; q < q1; ++q) {
        const float b = x[q] * inv_cells;
        const float clamped = b >= 0.0f ? (b < last ? b : last) : 0.0f;
        key[q] = (d == 0 ? 0 : key[q] * scale) + static_cast<std::int32_t>(clamped);
      }
    }
    std::int64_t* hist = count.data() + static_cast<std::int64_t>(t) * bins;
    for (std::int64_t q = q0; q < q1; ++q) ++hist[key[q]];
#pragma omp barrier
#pragma omp single
    {
      // Exclusive prefix over (bin, thread): thread t's queries of bin b follow those
      // of threads < t, so the sort is stable and independent of the thread count.
      std::int64_t pos = 0;
      for (std::int64_t b = 0; b < bins; ++b)
        for (int u = 0; u < nt; ++u) {
          std::int64_t& c = count[static_cast<std::int64_t>(u) * bins + b];
          const std::int64_t next = pos + c;
          c = pos;
          pos = next;
        }
    }
    for (std::int64_t q = q0; q < q1; ++q) {
      const std::int64_t i = hist[key[q]]++;
      out.rank[q] = static_cast<std::int32_t>(i);
      float rec[8] = {};
      for (int d = 0; d < D; ++d) rec[d] = coords[d * n + q];
      // Fixed-size copies: one or two vector stores, not a library call per query.
      float* dst = records + i * R;
      if (R == 4) {
        for (int j = 0; j < 4; ++j) dst[j] = rec[j];
      } else {
        for (int j = 0; j < 8; ++j) dst[j] = rec[j];
      }
    }
#pragma omp barrier
    // Records back to the (D, n) layout the kernels read, sequentially.
    for (std::int64_t i = q0; i < q1; ++i)
      for (int d = 0; d < D; ++d) out.coords.data()[d * n + i] = records[i * R + d];
  }
}

void unpermute(const std::vector<std::int32_t>& rank, std::int64_t n, int channels, const float* sorted, float* out,
               int threads) {
  const int C = channels;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (std::int64_t q = 0; q < n; ++q) {
    const float* src = sorted + static_cast<std::int64_t>(rank[q]) * C;
    for (int ch = 0; ch < C; ++ch) out[q * C + ch] = src[ch];
  }
}

}  // namespace splinebench::cpu
