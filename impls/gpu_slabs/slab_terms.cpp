#include "gpu_slabs/slab_terms.hpp"

#include <algorithm>
#include <string>

#include "splinebench/error.hpp"
#include "splinebench/oracle.hpp"

namespace splinebench::gpu::slabs {
namespace {

// Past this power every z^k, formed as a product in double, is 0 (|z|^k < 2^-1075 from
// k = 566 on).
constexpr std::int64_t kPowerTable = 1200;

void push_term(PlaneTerms& t, std::int64_t plane, double weight) {
  const float w = static_cast<float>(weight);
  if (w == 0.0f) return;  // 0 * plane adds nothing
  if (t.count == kMaxTerms) throw Error("gpu_slabs: more than " + std::to_string(kMaxTerms) + " plane terms");
  t.plane[t.count] = static_cast<int>(plane);
  t.weight[t.count] = w;
  ++t.count;
}

// The slab's planes within reach of either end of the line, in increasing order: the only
// ones with a nonzero weight in a share.
template <typename Weight>
PlaneTerms share_terms(std::int64_t n, std::int64_t start, std::int64_t len, const PolePowers& z, Weight weight) {
  PlaneTerms t;
  const std::int64_t reach = z.reach();
  const std::int64_t head_end = std::min(start + len, reach);              // planes [start, head_end)
  const std::int64_t tail_begin = std::max({start, n - reach, head_end});  // planes [tail_begin, start + len)
  for (std::int64_t k = start; k < head_end; ++k) push_term(t, k - start, weight(k));
  for (std::int64_t k = tail_begin; k < start + len; ++k) push_term(t, k - start, weight(k));
  return t;
}

}  // namespace

PolePowers::PolePowers(std::int64_t count)
    : table_(oracle::pole_powers<double>(std::min(count, kPowerTable))) {}

PlaneTerms causal_share_terms(Mode mode, std::int64_t n, std::int64_t start, std::int64_t len, const PolePowers& z) {
  // slab::causal_weight in double.
  return share_terms(n, start, len, z, [&](std::int64_t k) {
    switch (mode) {
      case Mode::mirror:
        if (k == 0) return 1.0;
        if (k == n - 1) return z(n - 1);
        return z(k) + z(2 * n - 2 - k);
      case Mode::half:
        return k == 0 ? 1.0 + z(1) : z(k + 1) + z(2 * n - k);
      case Mode::periodic:
        return k == 0 ? 1.0 : z(n - k);
    }
    return 0.0;
  });
}

PlaneTerms periodic_share_terms(std::int64_t n, std::int64_t start, std::int64_t len, const PolePowers& z) {
  return share_terms(n, start, len, z, [&](std::int64_t k) { return z((k + 1) % n); });
}

PlaneTerms causal_correction_terms(std::int64_t len, std::int64_t depth, const PolePowers& z) {
  PlaneTerms t;
  for (std::int64_t j = 0; j < std::min(len, depth); ++j) push_term(t, j, z(j + 1));
  return t;
}

PlaneTerms anticausal_correction_terms(std::int64_t len, std::int64_t depth, const PolePowers& z) {
  PlaneTerms t;
  for (std::int64_t j = std::max<std::int64_t>(0, len - depth); j < len; ++j) push_term(t, j, z(len - j));
  return t;
}

}  // namespace splinebench::gpu::slabs
