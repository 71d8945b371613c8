#include "gpu_case.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "common/accuracy.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::gpu_tests {

std::vector<float> make_test_queries(const GridShape& shape, std::int64_t n, std::uint64_t seed) {
  const int D = shape.dims;
  const std::int64_t half = n / 2;
  const auto inside = datasets::make_queries(datasets::QueryPattern::uniform, shape, half, seed);
  const auto outside = datasets::make_queries(datasets::QueryPattern::outside, shape, n - half, seed + 7);
  std::vector<float> coords(static_cast<std::size_t>(D * n));
  for (int d = 0; d < D; ++d) {
    std::copy_n(inside.begin() + d * half, half, coords.begin() + d * n);
    std::copy_n(outside.begin() + d * (n - half), n - half, coords.begin() + d * n + half);
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Specials on one axis each (the others keep their random values), so a NaN on any
  // axis must poison the whole query.
  const float specials[] = {nan, inf, -inf, 1e30f, -3.7e7f, 1.0e6f + 0.25f, -0.0f, -1e-30f};
  const std::int64_t count = std::min<std::int64_t>(n, std::size(specials) * D + D);
  for (std::int64_t i = 0; i < count; ++i) {
    const int axis = static_cast<int>(i % D);
    const std::int64_t which = i / D;
    if (which < static_cast<std::int64_t>(std::size(specials)))
      coords[axis * n + i] = specials[which];
    else  // the upper border N-1 exactly on every axis
      for (int d = 0; d < D; ++d) coords[d * n + i] = static_cast<float>(shape.extent[d] - 1);
  }
  return coords;
}

double max_neighbour_difference(const GridShape& shape, std::int64_t fields, Mode mode,
                                const std::vector<double>& coeffs) {
  const int D = shape.dims, C = shape.channels;
  const int axes = std::min(D, 3);
  double worst = 0;
  const std::int64_t total = fields * shape.values();
  for (std::int64_t i = 0; i < total; ++i)
    for (int a = D - axes; a < D; ++a) {
      const std::int64_t stride = shape.stride(a), n = shape.extent[a];
      const std::int64_t k = (i / stride) % n;
      if (k + 1 < n)
        worst = std::max(worst, std::abs(coeffs[i + stride] - coeffs[i]));
      else if (mode == Mode::periodic && n > 1)
        worst = std::max(worst, std::abs(coeffs[i - k * stride] - coeffs[i]));
    }
  (void)C;
  return worst;
}

std::string case_name(const CaseSpec& spec) {
  std::ostringstream s;
  s << spec.impl << "_D" << spec.extents.size() << "_";
  for (std::size_t d = 0; d < spec.extents.size(); ++d) s << (d ? "x" : "") << spec.extents[d];
  s << "_C" << spec.channels << "_F" << spec.fields << "_" << to_string(spec.mode);
  return s.str();
}

CaseResult run_case(const CaseSpec& spec) {
  const GridShape shape = GridShape::make(spec.extents, spec.channels);
  const int D = shape.dims, C = shape.channels;
  const std::int64_t n = spec.coords.empty() ? spec.queries : static_cast<std::int64_t>(spec.coords.size()) / D;
  const auto samples = datasets::make_field(datasets::FieldKind::noise, shape, spec.fields, spec.seed);
  const auto coords = spec.coords.empty() ? make_test_queries(shape, n, spec.seed + 1) : spec.coords;

  auto impl = make_implementation(spec.impl);
  PhaseTimes times;
  impl->prepare(shape, spec.fields, samples.data(), spec.mode, true, times);

  CaseResult r;
  r.tolerance = impl->tolerance(shape);
  std::vector<float> coeffs(samples.size());
  testing::poison(coeffs);
  impl->read_coefficients(coeffs.data(), times);
  std::vector<float> values(static_cast<std::size_t>(spec.fields * n * C));
  testing::poison(values);
  impl->evaluate(coords.data(), n, values.data(), times);

  std::vector<double> ref_coeffs = testing::to_double(samples);
  oracle::prefilter_f64(shape, spec.fields, ref_coeffs.data(), spec.mode);
  std::vector<double> ref_values(values.size());
  oracle::evaluate_f64(shape, spec.fields, ref_coeffs.data(), spec.mode, coords.data(), n, ref_values.data());

  r.prefilter_rel_l2 = testing::rel_l2(coeffs, ref_coeffs);
  r.max_f = testing::max_abs(samples);
  r.max_coeff = testing::max_abs(ref_coeffs);
  r.max_coeff_diff = max_neighbour_difference(shape, spec.fields, spec.mode, ref_coeffs);
  r.nan_mismatches = testing::nan_mismatches(values, ref_values);
  r.interp_max_rel_to_maxf = testing::max_abs_diff(values, ref_values) / r.max_f;
  for (std::int64_t f = 0; f < spec.fields; ++f)
    for (std::int64_t q = 0; q < n; ++q) {
      bool finite = true;
      for (int d = 0; d < D; ++d) finite = finite && std::isfinite(coords[d * n + q]);
      for (int c = 0; c < C; ++c) r.unwritten += finite && std::isnan(values[(f * n + q) * C + c]);
    }
  impl->release();
  return r;
}

}  // namespace splinebench::gpu_tests
