// Host emulation of segments.cu's arithmetic (segment_math.hpp, lane by lane) against the
// double oracle, every mode, lines from 1 to 2^20 samples: the truncated halos within the
// f32 pass-by-pass bound (f32_accuracy.hpp) or not. Exit 1 if any is over.
//   g++ -O2 -std=c++20 -I../../../impls/core/include emulate.cpp ../../../build/impls/core/libsplinebench_core.a -fopenmp -o /tmp/emulate && /tmp/emulate
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "segment_math.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"

namespace sb = splinebench;

int main() {
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> u(-1, 1);
  int failures = 0;
  for (const std::int64_t n : {1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 33, 100, 511, 512, 513, 4099, 65536, 1 << 20})
    for (const sb::Mode mode : {sb::Mode::mirror, sb::Mode::half, sb::Mode::periodic}) {
      std::vector<float> f(static_cast<std::size_t>(n));
      for (float& v : f) v = static_cast<float>(u(rng));
      std::vector<double> ref(f.begin(), f.end());
      const sb::GridShape shape = sb::GridShape::make({n});
      sb::oracle::prefilter(shape, 1, ref.data(), mode);
      std::vector<float> c(static_cast<std::size_t>(n));
      float in[segments::kHalo + segments::kSeg + segments::kHalo], out[segments::kSeg];
      for (std::int64_t s = 0; s < n; s += segments::kSeg) {
        for (int k = 0; k < segments::kHalo + segments::kSeg + segments::kHalo; ++k)
          in[k] = f[static_cast<std::size_t>(
              sb::bspline::fold_index(static_cast<int>(mode), s - segments::kHalo + k, n))];
        segments::lane_outputs(in, out);
        for (int k = 0; k < segments::kSeg && s + k < n; ++k) c[static_cast<std::size_t>(s + k)] = out[k];
      }
      double num = 0, den = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const double d = c[static_cast<std::size_t>(k)] - ref[static_cast<std::size_t>(k)];
        num += d * d;
        den += ref[static_cast<std::size_t>(k)] * ref[static_cast<std::size_t>(k)];
      }
      const double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
      const double bound = sb::f32_accuracy::prefilter_rel_l2_bound(shape);
      const bool ok = rel <= bound;
      failures += !ok;
      std::printf("n %8lld %-8s rel_l2 %.3e  bound %.3e  %s\n", static_cast<long long>(n), std::string(sb::to_string(mode)).c_str(),
                  rel, bound, ok ? "ok" : "OVER");
    }
  return failures ? 1 : 0;
}
