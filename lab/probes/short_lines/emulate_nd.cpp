// Host emulation of short_lines.cu before any device runs it: the kernels' own bodies
// (short_lines.hpp: strided_task, and the staged pass phase by phase with its shared-memory
// padding) over the same plans, on poisoned (NaN) outputs, against the double oracle, for
// every mode and segment cap (16, 32, 64), on small and odd shapes and on the probe's four
// cases. Also: fold_fast equals fold_index everywhere it is asked, and lane_outputs<16>
// is segments::lane_outputs (../prefilter_segments) bit for bit. Exit 1 on any failure.
// Limit: rel L2 <= 2e-7 for D <= 3 and 5e-7 for D >= 4 (gpu_flex's tolerance,
// impls/gpu_flex/README.md), and the f32 pass-by-pass bound of f32_accuracy.hpp.
//   g++ -O2 -std=c++20 -I../../../impls/core/include emulate_nd.cpp
//     ../../../build-hS/impls/core/libsplinebench_core.a -fopenmp -o /tmp/emulate_nd && /tmp/emulate_nd
// (any build dir's libsplinebench_core.a will do)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../prefilter_segments/segment_math.hpp"
#include "short_lines.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"

namespace sb = splinebench;
namespace sl = short_lines;

namespace {

struct Shape {
  std::vector<std::int64_t> ext;
  int C;
  std::int64_t fields;
  std::vector<int> caps;
};

std::string name(const Shape& s) {
  std::string r;
  for (auto e : s.ext) r += (r.empty() ? "" : "x") + std::to_string(e);
  if (s.C > 1) r += " " + std::to_string(s.C) + "ch";
  if (s.fields > 1) r += " x" + std::to_string(s.fields);
  return r;
}

int check_fold() {
  long long asked = 0, wrong = 0;
  for (int mode = 0; mode < 3; ++mode)
    for (int n = 1; n <= 300; ++n)
      for (int j = -3 * n - 80; j <= 4 * n + 80; ++j) {
        ++asked;
        wrong += sl::fold_fast(mode, j, n) != static_cast<int>(sb::bspline::fold_index(mode, j, n));
      }
  std::printf("fold_fast vs fold_index: %lld indices (modes x n 1..300 x j in [-3n-80, 4n+80]), %lld differ\n", asked,
              wrong);
  return wrong ? 1 : 0;
}

int check_lane16() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  long long differ = 0;
  float in[48], a[16], b[16];
  for (int lane = 0; lane < 100000; ++lane) {
    for (float& v : in) v = u(rng);
    sl::lane_outputs<16>(in, a);
    segments::lane_outputs(in, b);
    for (int k = 0; k < 16; ++k) differ += a[k] != b[k];
  }
  std::printf("lane_outputs<16> vs segments::lane_outputs: 100000 lanes, %lld outputs differ\n", differ);
  return differ ? 1 : 0;
}

}  // namespace

int main() {
  int failures = check_fold() + check_lane16();
  const std::vector<int> all = {16, 32, 64}, dflt = {32};
  const std::vector<Shape> shapes = {
      {{1}, 1, 1, all},
      {{100}, 1, 3, all},
      {{2, 3}, 1, 1, all},
      {{5, 1, 70}, 1, 2, all},
      {{7, 5, 9}, 1, 1, all},
      {{17, 33, 65}, 2, 1, all},
      {{3, 30000}, 1, 1, all},  // x rows too long to stage: the x pass falls back to strided lanes
      {{48, 48, 48}, 1, 1, all},
      {{16, 16, 16, 16}, 1, 1, all},
      {{120, 160}, 4, 3, all},
      {{9, 7, 6, 5, 4}, 1, 1, all},
      // the probe's cases (256^3 with the default cap only)
      {{128, 128, 128}, 1, 1, all},
      {{48, 48, 48, 48}, 1, 1, all},
      {{120, 160}, 4, 100, all},
      {{256, 256, 256}, 1, 1, dflt},
  };
  std::printf("\n| shape | cap | plan: S x segs per axis (x first; st = staged) | mode | rel L2 | limit | f32 bound | NaN | ok |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const Shape& sh : shapes) {
    const sb::GridShape gs = sb::GridShape::make(sh.ext, sh.C);
    const std::size_t total = static_cast<std::size_t>(gs.values() * sh.fields);
    std::vector<float> f(total);
    for (float& v : f) v = static_cast<float>(u(rng));
    const double limit = gs.dims <= 3 ? 2e-7 : 5e-7;
    const double bound = sb::f32_accuracy::prefilter_rel_l2_bound(gs);
    for (const sb::Mode mode : sb::kAllModes) {
      std::vector<double> ref(f.begin(), f.end());
      sb::oracle::prefilter(gs, sh.fields, ref.data(), mode);
      for (int cap : sh.caps) {
        const sl::Plan plan = sl::make_plan(sh.ext, sh.C, sh.fields, cap);
        std::string ptxt;
        for (int p = 0; p < plan.count; ++p)
          ptxt += (p ? ", " : "") + std::to_string(plan.pass[p].S) + "x" + std::to_string(plan.pass[p].segs) +
                  (plan.pass[p].staged ? " st" : "");
        std::vector<float> out(total, std::numeric_limits<float>::quiet_NaN()), tmp(out);
        sl::emulate_plan(plan, f.data(), out.data(), tmp.data(), static_cast<int>(mode));
        long double num = 0, den = 0;
        long long nans = 0;
        for (std::size_t k = 0; k < total; ++k) {
          if (!std::isfinite(out[k])) {
            ++nans;
            continue;
          }
          const long double d = static_cast<long double>(out[k]) - ref[k];
          num += d * d;
          den += static_cast<long double>(ref[k]) * ref[k];
        }
        const double rel = den > 0 ? static_cast<double>(std::sqrt(num / den)) : static_cast<double>(std::sqrt(num));
        const bool ok = nans == 0 && rel <= limit && rel <= bound;
        failures += !ok;
        std::printf("| %s | %d | %s | %s | %.3e | %.0e | %.2e | %lld | %s |\n", name(sh).c_str(), cap, ptxt.c_str(),
                    std::string(sb::to_string(mode)).c_str(), rel, limit, bound, nans, ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
    }
  }
  std::printf("\n%s: %d failure(s)\n", failures ? "FAILED" : "all ok", failures);
  return failures ? 1 : 0;
}
