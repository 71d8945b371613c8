#include "splinebench/iir2d/coefficients.hpp"

#include <cmath>
#include <random>

#include "splinebench/error.hpp"

namespace splinebench::iir2d {

namespace {

void check_M(int M) {
  if (M < 1 || M > kMaxWindow)
    throw Error("iir2d: window size M = " + std::to_string(M) + " is outside [1, " + std::to_string(kMaxWindow) + "]");
}

// Scales b (b(0,0) = 0) to sum |b| = gain, in double, then rounds to float.
Window scaled(int M, const std::vector<double>& raw, double gain) {
  double s = 0;
  for (double v : raw) s += std::fabs(v);
  Window w{M, std::vector<float>(raw.size(), 0.0f)};
  if (s > 0)
    for (std::size_t n = 0; n < raw.size(); ++n) w.b[n] = static_cast<float>(raw[n] * gain / s);
  return w;
}

}  // namespace

Window gauss_window(int M, double gain) {
  check_M(M);
  const double sigma = M / 3.0;
  std::vector<double> raw(static_cast<std::size_t>(M) * M, 0.0);
  for (int k = 0; k < M; ++k)
    for (int l = 0; l < M; ++l)
      if (k || l) raw[static_cast<std::size_t>(k) * M + l] = std::exp(-(k * k + l * l) / (2 * sigma * sigma));
  return scaled(M, raw, gain);
}

Window random_window(int M, std::uint64_t seed, double gain) {
  check_M(M);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> raw(static_cast<std::size_t>(M) * M, 0.0);
  for (std::size_t n = 1; n < raw.size(); ++n) raw[n] = u(rng);
  return scaled(M, raw, gain);
}

SeparableWindow separable_window(int M) {
  check_M(M);
  // c(z) = prod_r (1 - p_r z^-1), c[0] = 1.
  static constexpr double kPoles[] = {0.5, -0.5, 0.25, -0.25};
  std::vector<double> c{1.0};
  for (int r = 0; r < M - 1; ++r) {
    const double p = kPoles[r % 4];
    std::vector<double> next(c.size() + 1, 0.0);
    for (std::size_t n = 0; n < c.size(); ++n) {
      next[n] += c[n];
      next[n + 1] -= p * c[n];
    }
    c = std::move(next);
  }
  SeparableWindow s;
  s.ar.assign(static_cast<std::size_t>(M), 0.0);
  for (int m = 1; m < M; ++m) s.ar[m] = -c[m];
  // 1 - sum b z1^-k z2^-l = c(z1) c(z2)  =>  b(k, l) = -c_k c_l, b(0, 0) = 1 - 1 = 0.
  s.window.M = M;
  s.window.b.assign(static_cast<std::size_t>(M) * M, 0.0f);
  for (int k = 0; k < M; ++k)
    for (int l = 0; l < M; ++l)
      if (k || l) s.window.b[static_cast<std::size_t>(k) * M + l] = static_cast<float>(-c[k] * c[l]);
  return s;
}

Window impulse_pq_window(double p, double q) {
  return Window{2, {0.0f, static_cast<float>(q), static_cast<float>(p), static_cast<float>(-p * q)}};
}

Window bspline_quadrant_window() {
  const double z = std::sqrt(3.0) - 2.0;
  return impulse_pq_window(z, z);
}

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names{"gauss", "random", "separable", "bspline_quadrant"};
  return names;
}

Window make_window(const std::string& family, int M, std::uint64_t seed) {
  if (family == "gauss") return gauss_window(M);
  if (family == "random") return random_window(M, seed);
  if (family == "separable") return separable_window(M).window;
  if (family == "bspline_quadrant") {
    if (M != 2) throw Error("iir2d: the bspline_quadrant family has M = 2 only");
    return bspline_quadrant_window();
  }
  throw Error("iir2d: unknown coefficient family '" + family + "' (gauss, random, separable, bspline_quadrant)");
}

}  // namespace splinebench::iir2d
