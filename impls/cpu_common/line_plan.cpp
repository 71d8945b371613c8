#include "line_plan.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "splinebench/bspline_math.hpp"

namespace splinebench::cpu {
namespace {

// Why dropping terms below kDropBelow (tau = 2^-34) is harmless. Every weight below is
// one or two powers of z over a denominator >= 1 - z^2 = 0.928:
//   mirror   (z^k + z^(2N-2-k)): same signs, so each power is < tau when the sum is;
//   half     (z^(k+1) + z^(2N-k)): opposite signs, |sum| >= (1-|z|) max power, so each
//            power is < tau / 0.732;
//   periodic (z^k), anti-causal periodic (z^(j+1)): one power.
// The dropped powers of each series form a geometric tail, sum <= first/(1-|z|), so the
// dropped weight is at most 2 (tau/0.732)/0.732/0.928 < 4 tau. With the gain 6 the
// causal start value moves by at most 24 tau max|f| = 1.4e-9 max|f| (1/40 of 2^-24),
// and the anti-causal one by 1.4 tau max|c+| <= 1.4 tau * 8.2 max|f|; both then decay
// by |z| per sample. Lines shorter than ~20 keep every term, which covers the short
// lengths (N = 1, 2, 3, ...) where the closed forms matter most.
constexpr int kWindow = 24;  // |z|^24 = 5.5e-14 < tau: no kept term lies further in

double zpow(double e) { return std::pow(bspline::kPole, e); }

// Candidate indices: the first and last kWindow samples of the line (every weight
// that can exceed tau lives there, see above).
std::vector<std::int64_t> candidates(std::int64_t n) {
  std::vector<std::int64_t> ks;
  for (std::int64_t k = 0; k < std::min<std::int64_t>(n, kWindow); ++k) ks.push_back(k);
  for (std::int64_t k = std::max<std::int64_t>(kWindow, n - kWindow); k < n; ++k) ks.push_back(k);
  return ks;
}

void keep_if_significant(std::vector<InitTerm>& terms, std::int64_t index, double weight, double scale) {
  if (std::abs(weight) >= kDropBelow) terms.push_back({index, static_cast<float>(weight * scale)});
}

}  // namespace

LinePlan make_line_plan(std::int64_t n, Mode mode) {
  LinePlan plan;
  plan.n = n;
  plan.mode = mode;
  plan.z = static_cast<float>(bspline::kPole);
  plan.gain = static_cast<float>(bspline::kGain);
  if (n == 1 && mode == Mode::mirror) {
    plan.identity = true;
    return plan;
  }
  const double z = bspline::kPole;
  const double gain = bspline::kGain;
  const auto N = static_cast<double>(n);
  switch (mode) {
    case Mode::mirror: {
      // c+[0] = lambda (f[0] + z^(N-1) f[N-1] + sum_{k=1}^{N-2} (z^k + z^(2N-2-k)) f[k]) / (1 - z^(2N-2))
      const double scale = gain / (1.0 - zpow(2 * N - 2));
      for (std::int64_t k : candidates(n)) {
        double w;
        if (k == 0) w = 1.0;
        else if (k == n - 1) w = zpow(N - 1);
        else w = zpow(static_cast<double>(k)) + zpow(2 * N - 2 - static_cast<double>(k));
        keep_if_significant(plan.causal, k, w, scale);
      }
      // c[N-1] = z/(z^2-1) (c+[N-1] + z c+[N-2])
      plan.anticausal.push_back({n - 1, static_cast<float>(z / (z * z - 1.0))});
      plan.anticausal.push_back({n - 2, static_cast<float>(z * z / (z * z - 1.0))});
      break;
    }
    case Mode::half: {
      // c+[0] = lambda (f[0] + sum_{k=0}^{N-1} z^(k+1) f[k] + sum_{k=1}^{N-1} z^(2N-k) f[k]) / (1 - z^(2N))
      const double scale = gain / (1.0 - zpow(2 * N));
      for (std::int64_t k : candidates(n)) {
        const auto kd = static_cast<double>(k);
        const double w = (k == 0 ? 1.0 + z : zpow(kd + 1) + zpow(2 * N - kd));
        keep_if_significant(plan.causal, k, w, scale);
      }
      // c[N-1] = z/(z-1) c+[N-1]
      plan.anticausal.push_back({n - 1, static_cast<float>(z / (z - 1.0))});
      break;
    }
    case Mode::periodic: {
      // c+[0] = lambda sum_{k=0}^{N-1} z^k f[(-k) mod N] / (1 - z^N): sample m = N-k has z^(N-m).
      const double scale = gain / (1.0 - zpow(N));
      for (std::int64_t m : candidates(n)) {
        const double w = (m == 0 ? 1.0 : zpow(N - static_cast<double>(m)));
        keep_if_significant(plan.causal, m, w, scale);
      }
      // c[N-1] = -z sum_{j=0}^{N-1} z^j c+[(N-1+j) mod N] / (1 - z^N): j = 0 is sample N-1,
      // j >= 1 is sample j-1.
      const double ascale = -z / (1.0 - zpow(N));
      for (std::int64_t m : candidates(n)) {
        const double w = (m == n - 1 ? 1.0 : zpow(static_cast<double>(m) + 1));
        keep_if_significant(plan.anticausal, m, w, ascale);
      }
      break;
    }
  }
  return plan;
}

std::shared_ptr<const LinePlan> line_plan(std::int64_t n, Mode mode) {
  // Per thread, so that concurrent callers share nothing; a handful of entries covers the
  // axes of the grids a thread works on in turn.
  constexpr std::size_t kKept = 8;
  thread_local std::vector<std::shared_ptr<const LinePlan>> kept;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]->n == n && kept[i]->mode == mode) {
      std::shared_ptr<const LinePlan> found = kept[i];
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      kept.push_back(found);  // the most recent last
      return found;
    }
  }
  auto made = std::make_shared<const LinePlan>(make_line_plan(n, mode));
  if (kept.size() == kKept) kept.erase(kept.begin());
  kept.push_back(made);
  return made;
}

}  // namespace splinebench::cpu
