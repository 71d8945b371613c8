#include "splinebench/datasets/analytic.hpp"

#include <cmath>
#include <numbers>

#include "splinebench/error.hpp"

namespace splinebench::datasets {
namespace {

constexpr double kPi = std::numbers::pi;

// Product of cos(2 pi m_d x_d), m_d = 1, 2, 1, 2, ...: even about x = 0 and x = 1 and of
// period 1, so every mode extends it smoothly.
double cos_product(const double* x, int dims) {
  double v = 1;
  for (int d = 0; d < dims; ++d) v *= std::cos(2 * kPi * (1 + d % 2) * x[d]);
  return v;
}

// Product of cos(pi x_d): even about x = 0 and x = 1 (mirror, half), but
// cos(pi (x + 1)) = -cos(pi x), so its periodic extension jumps at the seam.
double cos_pi_product(const double* x, int dims) {
  double v = 1;
  for (int d = 0; d < dims; ++d) v *= std::cos(kPi * x[d]);
  return v;
}

// A Gaussian of width sigma centred at 1/2, made periodic by summing its images
// (x reduced to [0, 1) first, so the period is exact). The images j = -2..2 are
// symmetric about 1/2, so the sum is even about 1/2, hence (with period 1) even about 0
// and 1. The first image left out lies 2.5 away: exp(-2.5^2 / (2 sigma^2)) = e^-139,
// far below double precision.
double periodic_gaussian(double x) {
  constexpr double kSigma = 0.15;
  const double r = x - std::floor(x);
  double v = 0;
  for (int j = -2; j <= 2; ++j) {
    const double t = (r - 0.5 - j) / kSigma;
    v += std::exp(-0.5 * t * t);
  }
  return v;
}

double gauss_product(const double* x, int dims) {
  double v = 1;
  for (int d = 0; d < dims; ++d) v *= periodic_gaussian(x[d]);
  return v;
}

// Marschner & Lobb (1994), "An evaluation of reconstruction filters for volume
// rendering", with their parameters f_M = 6, alpha = 0.25, on [-1, 1]^3 (the unit cube
// mapped by X = 2x - 1; axes 0, 1, 2 are X, Y, Z). Values lie in [0, 1]. The classical
// sampling, 41 samples per axis from -1 to 1, is the mirror convention with n = 41.
double marschner_lobb(const double* x, int /*dims*/) {
  constexpr double kFm = 6, kAlpha = 0.25;
  const double X = 2 * x[0] - 1, Y = 2 * x[1] - 1, Z = 2 * x[2] - 1;
  const double r = std::sqrt(X * X + Y * Y);
  const double rho_r = std::cos(2 * kPi * kFm * std::cos(kPi * r / 2));
  return (1 - std::sin(kPi * Z / 2) + kAlpha * (1 + rho_r)) / (2 * (1 + kAlpha));
}

// A photon-expectation table of the kind a neutrino-telescope simulator (SIRENE)
// interpolates: log10 of the expected photon density on a photomultiplier near a muon
// track, as a function of
//   axis 0: distance to the track     R = 10^(2 x0) m          (1 .. 100 m, log-spaced)
//   axis 1: PMT zenith to the track   theta = pi x1
//   axis 2: PMT azimuth               phi = pi x2
//   axis 3: time residual             t = 100 x3 ns
//   axis 4 (5-D only): muon energy    log10(E / GeV) = 2 + 4 x4 (100 GeV .. 1 PeV;
//                                     the 4-D table is the slice E = 1 TeV)
// Model (smooth, physically shaped, not a fit to any detector):
//   n = Y(E) * A(theta, phi) * exp(-R / 40 m) / R
//       * [ w exp(-t / 3 ns) / 3 ns + (1 - w) (t + 1 ns) exp(-t / tau) / (tau (tau + 1 ns)) ]
//   A = 0.05 + 0.95 (1 + cos psi)^2 / 4, cos psi = cos theta cos theta_c
//       + sin theta sin theta_c cos phi, cos theta_c = 1 / 1.35 (Cherenkov angle in water)
//   w = exp(-R / 20 m) (direct light), tau = 5 ns + 0.5 ns/m * R (scattered light)
//   Y = 1 + ln(1 + E / 500 GeV)
// Values lie in about [-10, 0.5] (the 4-D slice in about [-9.8, -0.2]).
double sirene_table(const double* x, int dims) {
  const double R = std::pow(10.0, 2 * x[0]);
  const double theta = kPi * x[1], phi = kPi * x[2];
  const double t = 100 * x[3];
  const double E = dims >= 5 ? std::pow(10.0, 2 + 4 * x[4]) : 1000.0;
  constexpr double kCosC = 1 / 1.35;
  const double kSinC = std::sqrt(1 - kCosC * kCosC);
  const double cos_psi = std::cos(theta) * kCosC + std::sin(theta) * kSinC * std::cos(phi);
  const double A = 0.05 + 0.95 * (1 + cos_psi) * (1 + cos_psi) / 4;
  const double w = std::exp(-R / 20);
  const double tau = 5 + 0.5 * R;
  const double direct = std::exp(-t / 3) / 3;
  const double scattered = (t + 1) * std::exp(-t / tau) / (tau * (tau + 1));
  const double Y = 1 + std::log1p(E / 500);
  return std::log10(Y * A * std::exp(-R / 40) / R * (w * direct + (1 - w) * scattered));
}

const std::vector<AnalyticFunction> kFunctions = {
    {"cos_product", "prod_d cos(2 pi m_d x_d), m_d = 1, 2, 1, 2, ...", 1, kMaxDims, {true, true, true}, cos_product},
    {"cos_pi_product", "prod_d cos(pi x_d)", 1, kMaxDims, {true, true, false}, cos_pi_product},
    {"gauss_product", "prod_d sum_{j=-2..2} exp(-(frac(x_d) - 1/2 - j)^2 / (2 * 0.15^2))", 1, kMaxDims,
     {true, true, true}, gauss_product},
    {"marschner_lobb",
     "(1 - sin(pi Z / 2) + 0.25 (1 + cos(12 pi cos(pi r / 2)))) / 2.5, r = |(X, Y)|, (X, Y, Z) = 2x - 1", 3, 3,
     {false, false, false}, marschner_lobb},
    {"sirene_table", "log10 photon density near a muon track (R, theta, phi, t[, E]); datasets/README.md", 4, 5,
     {false, false, false}, sirene_table},
};

}  // namespace

double unit_position(double k, std::int64_t n, Mode mode) {
  if (n < 1) throw Error("unit_position: a line needs n >= 1 samples");
  switch (mode) {
    case Mode::mirror: return n == 1 ? 0.0 : k / static_cast<double>(n - 1);
    case Mode::half: return (k + 0.5) / static_cast<double>(n);
    case Mode::periodic: return k / static_cast<double>(n);
  }
  throw Error("unit_position: unknown mode");
}

double unit_spacing(std::int64_t n, Mode mode) {
  if (n < 1) throw Error("unit_spacing: a line needs n >= 1 samples");
  if (mode == Mode::mirror) return n == 1 ? 1.0 : 1.0 / static_cast<double>(n - 1);
  return 1.0 / static_cast<double>(n);
}

const std::vector<AnalyticFunction>& analytic_functions() { return kFunctions; }

const AnalyticFunction* find_analytic_function(std::string_view name) {
  for (const auto& f : kFunctions)
    if (f.name == name) return &f;
  return nullptr;
}

const AnalyticFunction& analytic_function(std::string_view name) {
  if (const auto* f = find_analytic_function(name)) return *f;
  std::string known;
  for (const auto& f : kFunctions) known += (known.empty() ? "" : ", ") + std::string(f.name);
  throw Error("unknown analytic function '" + std::string(name) + "' (known: " + known + ")");
}

namespace {
void require_dims(const AnalyticFunction& f, int dims) {
  if (!f.supports(dims))
    throw Error("analytic function '" + std::string(f.name) + "' is defined for D = " + std::to_string(f.min_dims) +
                (f.max_dims > f.min_dims ? ".." + std::to_string(f.max_dims) : std::string()) + ", not D = " +
                std::to_string(dims));
}
}  // namespace

double analytic_value_at(const AnalyticFunction& f, const GridShape& shape, Mode mode, const double* u) {
  require_dims(f, shape.dims);
  double x[kMaxDims];
  for (int d = 0; d < shape.dims; ++d) x[d] = unit_position(u[d], shape.extent[d], mode);
  return f.value(x, shape.dims);
}

std::vector<double> analytic_values_at(const AnalyticFunction& f, const GridShape& shape, Mode mode,
                                       const float* coords, std::int64_t n) {
  require_dims(f, shape.dims);
  if (n < 0) throw Error("analytic_values_at: n must be >= 0");
  std::vector<double> out(static_cast<std::size_t>(n));
  double u[kMaxDims];
  for (std::int64_t q = 0; q < n; ++q) {
    for (int d = 0; d < shape.dims; ++d) u[d] = coords[d * n + q];
    out[q] = analytic_value_at(f, shape, mode, u);
  }
  return out;
}

std::vector<double> sample_analytic_f64(const AnalyticFunction& f, const GridShape& shape, Mode mode,
                                        std::int64_t fields) {
  shape.validate();
  require_dims(f, shape.dims);
  if (fields < 1) throw Error("sample_analytic: fields must be >= 1");
  const int D = shape.dims, C = shape.channels;
  const std::int64_t points = shape.points();
  // Positions per axis once; the point loop walks a C-order index like an odometer.
  std::vector<std::vector<double>> pos(static_cast<std::size_t>(D));
  for (int d = 0; d < D; ++d)
    for (std::int64_t k = 0; k < shape.extent[d]; ++k)
      pos[d].push_back(unit_position(static_cast<double>(k), shape.extent[d], mode));
  std::vector<double> out(static_cast<std::size_t>(points * C * fields));
  std::int64_t idx[kMaxDims] = {};
  double x[kMaxDims];
  for (std::int64_t p = 0; p < points; ++p) {
    for (int d = 0; d < D; ++d) x[d] = pos[d][idx[d]];
    const double v = f.value(x, D);
    for (std::int64_t fld = 0; fld < fields; ++fld)
      for (int c = 0; c < C; ++c) out[(fld * points + p) * C + c] = v;
    for (int d = D - 1; d >= 0 && ++idx[d] == shape.extent[d]; --d) idx[d] = 0;
  }
  return out;
}

std::vector<float> sample_analytic(const AnalyticFunction& f, const GridShape& shape, Mode mode,
                                   std::int64_t fields) {
  const std::vector<double> f64 = sample_analytic_f64(f, shape, mode, fields);
  return std::vector<float>(f64.begin(), f64.end());
}

}  // namespace splinebench::datasets
