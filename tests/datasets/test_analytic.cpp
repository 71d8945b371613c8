// Analytic fields (datasets/analytic.hpp): values at points worked out by hand, the
// position convention per mode, the extension claims each function makes (the mode's
// extension of its samples equals the samples of its continuation, and the oracle
// spline converges at O(h^4) over the whole line and beyond it), determinism, and
// clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "splinebench/datasets.hpp"
#include "splinebench/datasets/analytic.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/oracle_batch.hpp"

using namespace splinebench;
using namespace splinebench::datasets;

namespace {

constexpr double kPi = std::numbers::pi;

double at(std::string_view name, std::vector<double> x) {
  return analytic_function(name).value(x.data(), static_cast<int>(x.size()));
}

// Index k of the mode's extension of a line of n samples, brought back into [0, n).
std::int64_t extended_index(std::int64_t k, std::int64_t n, Mode mode) {
  if (mode == Mode::periodic) return ((k % n) + n) % n;
  const std::int64_t period = mode == Mode::mirror ? 2 * (n - 1) : 2 * n;
  if (period == 0) return 0;
  std::int64_t r = ((k % period) + period) % period;
  if (mode == Mode::mirror) return r < n ? r : period - r;
  return r < n ? r : period - 1 - r;
}

// Max |s(u) - f(x(u))| of the f64 oracle spline of f's samples (one line of n), over
// u = k + {1/8, 3/8, 5/8, 7/8} for k in [-4, n + 3]: inside and outside the grid,
// through the faces.
double line_error(const AnalyticFunction& f, std::int64_t n, Mode mode) {
  const GridShape shape = GridShape::make({n});
  std::vector<double> c = sample_analytic_f64(f, shape, mode);
  oracle::prefilter_f64(shape, 1, c.data(), mode);
  double worst = 0;
  for (std::int64_t k = -4; k < n + 4; ++k)
    for (const double a : {0.125, 0.375, 0.625, 0.875}) {
      const double u = k + a;
      double s = 0;
      oracle::evaluate_point<double>(shape, c.data(), mode, &u, &s);
      worst = std::max(worst, std::abs(s - analytic_value_at(f, shape, mode, &u)));
    }
  return worst;
}

double fitted_order(const AnalyticFunction& f, Mode mode) {
  std::vector<double> lh, le;
  for (std::int64_t n : {24, 48, 96, 192}) {
    lh.push_back(std::log(unit_spacing(n, mode)));
    le.push_back(std::log(line_error(f, n, mode)));
  }
  const double m = static_cast<double>(lh.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < lh.size(); ++i) sx += lh[i], sy += le[i], sxx += lh[i] * lh[i], sxy += lh[i] * le[i];
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

}  // namespace

TEST(AnalyticPositions, EachModePutsTheFacesAtZeroAndOne) {
  EXPECT_DOUBLE_EQ(unit_position(0, 5, Mode::mirror), 0.0);
  EXPECT_DOUBLE_EQ(unit_position(4, 5, Mode::mirror), 1.0);
  EXPECT_DOUBLE_EQ(unit_position(0, 1, Mode::mirror), 0.0);
  EXPECT_DOUBLE_EQ(unit_position(-0.5, 4, Mode::half), 0.0);
  EXPECT_DOUBLE_EQ(unit_position(3.5, 4, Mode::half), 1.0);
  EXPECT_DOUBLE_EQ(unit_position(4, 4, Mode::periodic), 1.0);
  EXPECT_DOUBLE_EQ(unit_spacing(5, Mode::mirror), 0.25);
  EXPECT_DOUBLE_EQ(unit_spacing(4, Mode::half), 0.25);
  EXPECT_DOUBLE_EQ(unit_spacing(4, Mode::periodic), 0.25);
  EXPECT_THROW(unit_position(0, 0, Mode::mirror), Error);
}

TEST(AnalyticValues, CosineProductsAtKnownPoints) {
  EXPECT_DOUBLE_EQ(at("cos_product", {0, 0, 0, 0, 0, 0}), 1.0);
  EXPECT_NEAR(at("cos_product", {0.25}), 0.0, 1e-15);                 // cos(pi/2)
  EXPECT_NEAR(at("cos_product", {0.5, 0.25}), 1.0, 1e-15);            // cos(pi) cos(pi)
  EXPECT_NEAR(at("cos_product", {0.5, 0.5, 0.0}), -1.0, 1e-15);       // m = 1, 2, 1
  EXPECT_NEAR(at("cos_product", {0.125, 0.0}), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(at("cos_pi_product", {1.0, 1.0, 1.0}), -1.0, 1e-15);
  EXPECT_NEAR(at("cos_pi_product", {1.0 / 3, 0.0}), 0.5, 1e-15);
}

TEST(AnalyticValues, PeriodicGaussianAtKnownPoints) {
  // At the centre: the image j = 0 gives 1, j = +-1 give exp(-1/(2 s^2)) each.
  const double s2 = 0.15 * 0.15;
  const double centre = 1 + 2 * std::exp(-1 / (2 * s2)) + 2 * std::exp(-4 / (2 * s2));
  EXPECT_NEAR(at("gauss_product", {0.5}), centre, 1e-15);
  // At a face: the images at distance 1/2 (j = 0, -1 seen from x = 0) dominate.
  const double face = 2 * std::exp(-0.25 / (2 * s2)) + 2 * std::exp(-2.25 / (2 * s2));
  EXPECT_NEAR(at("gauss_product", {0.0}), face, 1e-16);
  EXPECT_NEAR(at("gauss_product", {0.5, 0.0}), centre * face, 1e-15);
  EXPECT_NEAR(at("gauss_product", {0.3}), at("gauss_product", {1.3}), 1e-15);
}

TEST(AnalyticValues, MarschnerLobbAtKnownPoints) {
  // Centre (r = 0, Z = 0): rho_r = cos(12 pi) = 1, so (1 + 0.25 * 2) / 2.5 = 0.6.
  EXPECT_NEAR(at("marschner_lobb", {0.5, 0.5, 0.5}), 0.6, 1e-15);
  // Top of the axis (Z = 1): (1 - 1 + 0.5) / 2.5 = 0.2.
  EXPECT_NEAR(at("marschner_lobb", {0.5, 0.5, 1.0}), 0.2, 1e-15);
  // r = 1, Z = -1: cos(pi r / 2) = 0, rho_r = 1: (1 + 1 + 0.5) / 2.5 = 1.
  EXPECT_NEAR(at("marschner_lobb", {1.0, 0.5, 0.0}), 1.0, 1e-15);
  // r = 1/3: cos(pi/6) = sqrt(3)/2, rho_r = cos(6 sqrt(3) pi).
  const double rho = std::cos(6 * std::sqrt(3.0) * kPi);
  EXPECT_NEAR(at("marschner_lobb", {0.5 + 1.0 / 6, 0.5, 0.5}), (1 + 0.25 * (1 + rho)) / 2.5, 1e-15);
  // The classical 41^3 sampling (mirror: -1..1 in steps of 0.05) stays in [0, 1].
  const auto s = sample_analytic_f64(analytic_function("marschner_lobb"), GridShape::make({41, 41, 41}), Mode::mirror);
  EXPECT_GE(*std::min_element(s.begin(), s.end()), 0.0);
  EXPECT_LE(*std::max_element(s.begin(), s.end()), 1.0);
  EXPECT_NEAR(s[(20 * 41 + 20) * 41 + 20], 0.6, 1e-15);
}

TEST(AnalyticValues, SireneTableAtAHandWorkedPoint) {
  // R = 1 m, theta = phi = pi/2 (cos psi = 0), t = 0, E = 1 TeV (the 4-D slice).
  const double A = 0.05 + 0.95 / 4, w = std::exp(-1.0 / 20), tau = 5.5;
  const double n = (1 + std::log(3.0)) * A * std::exp(-1.0 / 40) * (w / 3 + (1 - w) / (tau * (tau + 1)));
  EXPECT_NEAR(at("sirene_table", {0, 0.5, 0.5, 0}), std::log10(n), 1e-14);
  // The 4-D table is the 5-D one at log10(E / GeV) = 3, i.e. x4 = 1/4.
  for (const std::vector<double>& x : {std::vector<double>{0.3, 0.1, 0.7, 0.2}, {0.9, 0.8, 0.05, 0.6}})
    EXPECT_DOUBLE_EQ(at("sirene_table", x), at("sirene_table", {x[0], x[1], x[2], x[3], 0.25}));
  // Photons fall with distance at every other coordinate, and rise with energy.
  EXPECT_GT(at("sirene_table", {0.2, 0.3, 0.4, 0.1}), at("sirene_table", {0.4, 0.3, 0.4, 0.1}));
  EXPECT_LT(at("sirene_table", {0.2, 0.3, 0.4, 0.1, 0.1}), at("sirene_table", {0.2, 0.3, 0.4, 0.1, 0.9}));
  // The documented range, about [-10, 0.5], over a 9^5 sampling of the cube (corners
  // included: far, late and dim at one end, near, prompt and bright at the other).
  const auto s = sample_analytic_f64(analytic_function("sirene_table"), GridShape::make({9, 9, 9, 9, 9}), Mode::mirror);
  EXPECT_GE(*std::min_element(s.begin(), s.end()), -10.5);
  EXPECT_LE(*std::max_element(s.begin(), s.end()), 0.5);
  EXPECT_LT(*std::min_element(s.begin(), s.end()), -9.0);
  EXPECT_GT(*std::max_element(s.begin(), s.end()), 0.0);
}

// For every function and mode it claims smooth: the function at grid coordinate k
// outside [0, n-1] equals its sample at the extended index (1-D and across the axes of
// a 3-D grid), so the mode's extension of the samples is the function's continuation.
TEST(AnalyticExtension, SmoothClaimsHoldSampleBySample) {
  for (const auto& f : analytic_functions())
    for (Mode mode : kAllModes) {
      if (!f.smooth_under(mode)) continue;
      for (std::int64_t n : {1, 2, 5, 8}) {
        const int D = std::max(3, f.min_dims);
        std::vector<std::int64_t> extents(static_cast<std::size_t>(D), n);
        extents[0] = 6;  // a second extent, so axes differ
        const GridShape shape = GridShape::make(extents);
        for (std::int64_t k = -2 * n - 3; k <= 3 * n + 3; ++k) {
          double u[kMaxDims], v[kMaxDims];
          for (int d = 0; d < D; ++d) {
            const std::int64_t kd = k + d;  // a different offset per axis
            u[d] = static_cast<double>(kd);
            v[d] = static_cast<double>(extended_index(kd, shape.extent[d], mode));
          }
          EXPECT_NEAR(analytic_value_at(f, shape, mode, u), analytic_value_at(f, shape, mode, v), 1e-13)
              << f.name << " " << to_string(mode) << " n " << n << " k " << k;
        }
      }
    }
}

// Smooth extension means O(h^4) convergence over the whole line, faces and outside
// included; a function whose extension jumps (cos(pi x) under periodic) does not converge
// there, which is why the claim matters for a convergence study.
TEST(AnalyticExtension, SmoothClaimsGiveFourthOrderUpToAndBeyondTheFaces) {
  for (const char* name : {"cos_product", "cos_pi_product", "gauss_product"}) {
    const auto& f = analytic_function(name);
    for (Mode mode : kAllModes) {
      const double order = fitted_order(f, mode);
      if (f.smooth_under(mode)) {
        EXPECT_GE(order, 3.8) << name << " " << to_string(mode);
        EXPECT_LE(order, 4.2) << name << " " << to_string(mode);
      } else {
        EXPECT_LT(order, 1.0) << name << " " << to_string(mode) << ": a jump at the seam does not converge";
      }
    }
  }
}

TEST(AnalyticFields, SamplesAreDeterministicAndFillEveryChannelAndField) {
  const auto& f = analytic_function("gauss_product");
  const GridShape shape = GridShape::make({5, 4, 3}, 2);
  const auto a = sample_analytic(f, shape, Mode::half, 3);
  const auto b = sample_analytic(f, shape, Mode::half, 3);
  ASSERT_EQ(a.size(), static_cast<std::size_t>(5 * 4 * 3 * 2 * 3));
  EXPECT_EQ(a, b);
  const auto f64 = sample_analytic_f64(f, shape, Mode::half, 3);
  for (std::int64_t p = 0; p < shape.points(); ++p) {
    const std::int64_t k0 = p / 12, k1 = (p / 3) % 4, k2 = p % 3;
    const double u[3] = {static_cast<double>(k0), static_cast<double>(k1), static_cast<double>(k2)};
    const double want = analytic_value_at(f, shape, Mode::half, u);
    for (int fld = 0; fld < 3; ++fld)
      for (int c = 0; c < 2; ++c) {
        const std::size_t i = static_cast<std::size_t>((fld * shape.points() + p) * 2 + c);
        EXPECT_EQ(f64[i], want);
        EXPECT_EQ(a[i], static_cast<float>(want));
      }
  }
  // Through make_field: the seed plays no part, the mode does.
  EXPECT_EQ(make_field(parse_field_source("gauss_product"), shape, 3, 1, Mode::half), a);
  EXPECT_EQ(make_field(parse_field_source("gauss_product"), shape, 3, 99, Mode::half), a);
  EXPECT_NE(make_field(parse_field_source("gauss_product"), shape, 3, 1, Mode::mirror), a);
}

TEST(AnalyticErrors, UnknownNamesAndDimsAreRefusedClearly) {
  try {
    analytic_function("cosine");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: cos_product, cos_pi_product, gauss_product, marschner_lobb, "
                                         "sirene_table"),
              std::string::npos)
        << e.what();
  }
  try {
    sample_analytic(analytic_function("marschner_lobb"), GridShape::make({4, 4}), Mode::mirror);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "analytic function 'marschner_lobb' is defined for D = 3, not D = 2");
  }
  EXPECT_THROW(sample_analytic(analytic_function("sirene_table"), GridShape::make({3, 3, 3, 3, 3, 3}), Mode::mirror),
               Error);
  EXPECT_TRUE(analytic_function("sirene_table").supports(4));
  EXPECT_TRUE(analytic_function("sirene_table").supports(5));
}

TEST(AnalyticFields, ValuesAtQueriesAreThoseAtEachPoint) {
  const auto& f = analytic_function("cos_product");
  const GridShape shape = GridShape::make({9, 7});
  const std::int64_t n = 50;
  const auto coords = make_queries(QueryPattern::outside, shape, n, 3);
  const auto values = analytic_values_at(f, shape, Mode::periodic, coords.data(), n);
  ASSERT_EQ(values.size(), static_cast<std::size_t>(n));
  for (std::int64_t q = 0; q < n; ++q) {
    const double u[2] = {coords[q], coords[n + q]};
    EXPECT_EQ(values[q], analytic_value_at(f, shape, Mode::periodic, u));
    EXPECT_NEAR(values[q], std::cos(2 * kPi * u[0] / 9) * std::cos(4 * kPi * u[1] / 7), 1e-14);
  }
}
