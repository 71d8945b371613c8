#include "query_bins.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "eval_grid.hpp"
#include "work_pool.hpp"
#include "splinebench/error.hpp"

namespace splinebench::cpu {

namespace {
// One field's coefficients above this size are not L2-resident on current x86 cores.
constexpr std::int64_t kBinFromBytes = std::int64_t{2} << 20;
constexpr std::int64_t kMinQueriesPerBin = 8;
// Keys are computed this many queries at a time into a buffer on the stack (plain
// float arithmetic the compiler vectorises), once for the histogram and again for
// the scatter, instead of through an n-long key array.
constexpr std::int64_t kKeyBlock = 512;

// Bins of queries [q, q + m) into key[0, m), one axis at a time. Queries outside the
// grid (or NaN) go to the nearest edge bin: their taps fold back into the grid
// anyway, and the order only affects speed. For b >= 0 truncation is floor.
void block_keys(const BinPlan& plan, const float* coords, std::int64_t n, std::int64_t q, std::int64_t m,
                std::int32_t* key) {
  const float inv_cells = 1.0f / static_cast<float>(plan.cells);
  for (int d = 0; d < plan.binned_axes; ++d) {
    const float* x = coords + d * n + q;
    const float last = static_cast<float>(plan.bins_per_axis[d] - 1);
    const auto scale = static_cast<std::int32_t>(plan.bins_per_axis[d]);
    for (std::int64_t i = 0; i < m; ++i) {
      const float b = x[i] * inv_cells;
      const float clamped = b >= 0.0f ? (b < last ? b : last) : 0.0f;
      key[i] = (d == 0 ? 0 : key[i] * scale) + static_cast<std::int32_t>(clamped);
    }
  }
}

// The record of query q: D coordinates, then q's bits in the last float.
template <int D, int R>
inline void write_record(const float* coords, std::int64_t n, std::int64_t q, float* dst) {
  float rec[R] = {};
  for (int d = 0; d < D; ++d) rec[d] = coords[d * n + q];
  const auto index = static_cast<std::int32_t>(q);
  std::memcpy(&rec[R - 1], &index, sizeof index);
  // Fixed-size copy: one or two vector stores, not a library call per query.
  for (int j = 0; j < R; ++j) dst[j] = rec[j];
}

template <int D>
void scatter_records(const BinPlan& plan, const float* coords, std::int64_t n, std::int64_t q0, std::int64_t q1,
                     std::int64_t* next, float* records) {
  constexpr int R = query_record_floats(D);
  std::int32_t key[kKeyBlock];
  for (std::int64_t q = q0; q < q1; q += kKeyBlock) {
    const std::int64_t m = std::min(kKeyBlock, q1 - q);
    block_keys(plan, coords, n, q, m, key);
    for (std::int64_t i = 0; i < m; ++i) write_record<D, R>(coords, n, q + i, records + next[key[i]]++ * R);
  }
}
}  // namespace

BinPolicy bin_policy_from_env() {
  const char* v = std::getenv("SPLINEBENCH_QUERY_BINNING");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "auto") == 0) return BinPolicy::automatic;
  if (std::strcmp(v, "on") == 0) return BinPolicy::on;
  if (std::strcmp(v, "off") == 0) return BinPolicy::off;
  throw Error(std::string("SPLINEBENCH_QUERY_BINNING must be auto, on or off, got '") + v + "'");
}

std::string to_string(BinPolicy policy) {
  switch (policy) {
    case BinPolicy::on: return "on";
    case BinPolicy::off: return "off";
    case BinPolicy::automatic: break;
  }
  return "auto";
}

BinPlan plan_bins(const GridShape& shape, std::int64_t queries, BinPolicy policy) {
  BinPlan plan;
  if (policy == BinPolicy::off) return plan;
  if (queries > std::numeric_limits<std::int32_t>::max()) return plan;
  if (policy == BinPolicy::automatic && shape.values() * 4 < kBinFromBytes) return plan;
  plan.binned_axes = std::min(shape.dims, 3);
  // Widen the blocks until the bin count is bounded (the counting sort keeps a
  // histogram per block of queries).
  for (;;) {
    plan.bins = 1;
    for (int d = 0; d < plan.binned_axes; ++d) {
      plan.bins_per_axis[d] = (shape.extent[d] + plan.cells - 1) / plan.cells;
      plan.bins *= plan.bins_per_axis[d];
    }
    if (plan.bins <= kMaxBins) break;
    plan.cells *= 2;
  }
  plan.enabled = policy == BinPolicy::on ? queries > 0 : queries >= kMinQueriesPerBin * plan.bins;
  return plan;
}

void bin_queries(const BinPlan& plan, const GridShape& shape, const float* coords, std::int64_t n, int threads,
                 BinnedQueries& out) {
  const int D = shape.dims;
  const std::int64_t R = query_record_floats(D);
  out.records.resize(static_cast<std::size_t>(R * n));
  float* records = out.records.data();
  const std::int64_t bins = plan.bins;
  // One block of consecutive queries per thread, each with its own histogram. Blocks
  // are items of the pool, not threads: a thread that starts late leaves its block to
  // the others.
  const std::int64_t blocks = std::min<std::int64_t>(std::max(1, threads), n);
  std::vector<std::int64_t> count(static_cast<std::size_t>(bins * blocks), 0);
  auto block_range = [&](std::int64_t u, std::int64_t& q0, std::int64_t& q1) {
    q0 = n * u / blocks;
    q1 = n * (u + 1) / blocks;
  };
  parallel_for(threads, blocks, [&](std::int64_t first, std::int64_t last, int) {
    std::int32_t key[kKeyBlock];
    for (std::int64_t u = first; u < last; ++u) {
      std::int64_t q0, q1;
      block_range(u, q0, q1);
      std::int64_t* hist = count.data() + u * bins;
      for (std::int64_t q = q0; q < q1; q += kKeyBlock) {
        const std::int64_t m = std::min(kKeyBlock, q1 - q);
        block_keys(plan, coords, n, q, m, key);
        for (std::int64_t i = 0; i < m; ++i) ++hist[key[i]];
      }
    }
  });
  // Exclusive prefix over (bin, block): block u's queries of bin b follow those of
  // blocks < u, so the sort is stable and independent of the block count.
  std::int64_t pos = 0;
  for (std::int64_t b = 0; b < bins; ++b)
    for (std::int64_t u = 0; u < blocks; ++u) {
      std::int64_t& c = count[static_cast<std::size_t>(u * bins + b)];
      const std::int64_t next = pos + c;
      c = pos;
      pos = next;
    }
  parallel_for(threads, blocks, [&](std::int64_t first, std::int64_t last, int) {
    for (std::int64_t u = first; u < last; ++u) {
      std::int64_t q0, q1;
      block_range(u, q0, q1);
      std::int64_t* next = count.data() + u * bins;
      switch (D) {
        case 1: scatter_records<1>(plan, coords, n, q0, q1, next, records); break;
        case 2: scatter_records<2>(plan, coords, n, q0, q1, next, records); break;
        case 3: scatter_records<3>(plan, coords, n, q0, q1, next, records); break;
        case 4: scatter_records<4>(plan, coords, n, q0, q1, next, records); break;
        case 5: scatter_records<5>(plan, coords, n, q0, q1, next, records); break;
        case 6: scatter_records<6>(plan, coords, n, q0, q1, next, records); break;
      }
    }
  });
}

}  // namespace splinebench::cpu
