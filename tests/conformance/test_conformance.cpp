// Every registered implementation against the double oracle, on every dimension count,
// boundary mode and channel count its capabilities declare, with the prefilter run by
// the implementation and with coefficients handed in: the implementation's own
// tolerance() decides. The cases come from the registry, so a new implementation (one
// folder, one line in impls/registry.def) is covered with no edit here.
//
// Per case: white-noise samples (a field batch where the implementation takes
// batches), small odd shapes with short axes (lengths 1..5), queries inside, outside
// (the mode's extension), on the edges, huge, and non-finite (NaN in every channel is
// the contract); outputs NaN-poisoned so that anything left unwritten fails.
// An implementation that cannot run on this machine (a GPU one without a device, or
// not built) has one case, which skips saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "common/accuracy.hpp"
#include "common/implementation_check.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

struct ConformanceCase {
  std::string impl;
  bool runnable = true;  // false: the one case of an implementation that cannot run here
  std::string why_not;   // availability().reason when not runnable
  int dims = 1;
  Mode mode = Mode::mirror;
  int channels = 1;
  bool prefilter = true;  // false: coefficients handed in, prepare(prefilter = false)
  bool batches = true;    // Capabilities::field_batches
};

// Readable test names: cpu_simd_3D_mirror_C2_prefilter, gpu_flex_unavailable.
std::string case_name(const ConformanceCase& c) {
  if (!c.runnable) return c.impl + "_unavailable";
  return c.impl + "_" + std::to_string(c.dims) + "D_" + std::string(to_string(c.mode)) + "_C" +
         std::to_string(c.channels) + (c.prefilter ? "_prefilter" : "_coefficients");
}

// So that gtest prints the case, not its bytes, in failure messages.
[[maybe_unused]] void PrintTo(const ConformanceCase& c, std::ostream* os) { *os << case_name(c); }

// Whether this process may run a case of `impl`. Making an implementation to ask its
// availability costs a Python start for each peer and a CUDA device query for each GPU
// implementation. ctest runs one implementation's cases per process, with a filter of
// positive patterns that each begin with the cases' prefix and the implementation's name
// ("<prefix><impl>_?D_*:<prefix><impl>_unavailable"); a single case's name is such a
// pattern too. A pattern's text up to its first wildcard can only select the
// implementations whose name plus '_' begins with that text, or begins it (gpu_flex's
// text may still select gpu_flex_fixed: made, then left out by gtest). Any other filter
// (none when listing, an exclusion, a pattern typed by hand) may select any case. The
// parameter generator runs after gtest has parsed its flags.
bool may_be_selected(const std::string& impl) {
  const std::string filter = GTEST_FLAG_GET(filter);
  const std::string prefix = "Conformance/Registry.MatchesOracleWithinItsTolerance/";
  if (filter.find('-') != std::string::npos) return true;
  const std::string name = impl + "_";
  std::size_t start = 0;
  while (start <= filter.size()) {
    const std::size_t end = std::min(filter.find(':', start), filter.size());
    const std::string pattern = filter.substr(start, end - start);
    start = end + 1;
    if (pattern.rfind(prefix, 0) != 0) return true;
    const std::string rest = pattern.substr(prefix.size());
    const std::string text = rest.substr(0, rest.find_first_of("*?"));
    if (name.rfind(text, 0) == 0 || text.rfind(name, 0) == 0) return true;
  }
  return false;
}

std::vector<ConformanceCase> registry_cases() {
  std::vector<ConformanceCase> cases;
  for (const RegistryEntry& entry : registry()) {
    if (!may_be_selected(entry.name)) continue;
    const ImplementationPtr impl = entry.make();
    const Availability avail = impl->availability();
    if (!avail.ok) {
      ConformanceCase c;
      c.impl = entry.name;
      c.runnable = false;
      c.why_not = avail.reason;
      cases.push_back(c);
      continue;
    }
    const Capabilities caps = impl->capabilities();
    for (int dims = std::max(1, caps.min_dims); dims <= std::min(kMaxDims, caps.max_dims); ++dims)
      for (const Mode mode : caps.modes)
        for (const int channels : caps.channels) {
          if (!caps.supports(dims, channels, mode)) continue;
          for (const bool prefilter : {true, false}) {
            ConformanceCase c;
            c.impl = entry.name;
            c.dims = dims;
            c.mode = mode;
            c.channels = channels;
            c.prefilter = prefilter;
            c.batches = caps.field_batches;
            cases.push_back(c);
          }
        }
  }
  return cases;
}

// Small shapes with odd lengths and every short length (1..4): the exact boundary
// initialisation of every mode, partial vectors, lines shorter than the filter's reach.
GridShape shape_for(int dims, int channels) {
  static const std::vector<std::int64_t> extents[] = {
      {37}, {9, 4}, {7, 2, 5}, {5, 3, 4, 3}, {4, 3, 1, 3, 2}, {3, 2, 3, 2, 2, 3}};
  return GridShape::make(extents[dims - 1], channels);
}

// mixed_queries plus non-finite coordinates on a rotating axis, every seventh query.
std::vector<float> conformance_queries(const GridShape& shape, std::uint64_t seed, std::int64_t& n) {
  std::vector<float> coords = mixed_queries(shape, 25, seed);
  n = static_cast<std::int64_t>(coords.size()) / shape.dims;
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (std::int64_t q = 3, k = 0; q < n; q += 7, ++k) coords[(k % shape.dims) * n + q] = specials[k % 3];
  return coords;
}

// One instance per implementation for the whole process, prepared again for each case,
// as the harness's run does (GridRun::run_case): a peer's instance is its adapter process
// (a Python start and a library import, ~0.6 s), and a second prepare on an instance must
// leave nothing of the first behind.
Implementation* made_once(const std::string& name) {
  static std::map<std::string, ImplementationPtr> made;
  ImplementationPtr& impl = made[name];
  if (!impl) impl = make_implementation(name);
  return impl.get();
}

class Registry : public ::testing::TestWithParam<ConformanceCase> {};

TEST_P(Registry, MatchesOracleWithinItsTolerance) {
  const ConformanceCase& c = GetParam();
  if (!c.runnable) GTEST_SKIP() << c.impl << " cannot run here: " << c.why_not;

  const GridShape shape = shape_for(c.dims, c.channels);
  const std::int64_t fields = c.batches ? 2 : 1;
  const std::uint64_t seed = 7000 + 100 * c.dims + 10 * c.channels + static_cast<std::uint64_t>(c.mode);
  const std::vector<float> samples = datasets::make_field(datasets::FieldKind::noise, shape, fields, seed);
  std::vector<double> oracle_coeffs = to_double(samples);
  oracle::prefilter_f64(shape, fields, oracle_coeffs.data(), c.mode);

  // Handed-in coefficients are the oracle's, rounded to float; the reference values
  // are then the oracle's evaluation of exactly those floats.
  std::vector<float> input = samples;
  if (!c.prefilter) {
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(oracle_coeffs[i]);
    oracle_coeffs = to_double(input);
  }
  std::int64_t n = 0;
  const std::vector<float> coords = conformance_queries(shape, seed + 1, n);
  std::vector<double> oracle_values(static_cast<std::size_t>(fields * n * shape.channels));
  oracle::evaluate_f64(shape, fields, oracle_coeffs.data(), c.mode, coords.data(), n, oracle_values.data());

  Implementation* impl = made_once(c.impl);
  // A peer library's documented defect is measured by its records, not hidden here.
  if (const std::string defect = impl->known_defect(shape, c.mode); c.prefilter && !defect.empty())
    GTEST_SKIP() << c.impl << " has a known defect on this case: " << defect;
  PhaseTimes times;
  try {
    impl->prepare(shape, fields, input.data(), c.mode, c.prefilter, times);
  } catch (const Unsupported& e) {
    GTEST_SKIP() << c.impl << " cannot run this case: " << e.what();
  }
  std::vector<float> coefficients(input.size());
  poison(coefficients);
  impl->read_coefficients(coefficients.data(), times);
  std::vector<float> values(oracle_values.size());
  poison(values);
  impl->evaluate(coords.data(), n, values.data(), times);
  // Asked after prepare, as the harness does: a bound may depend on the prepared data.
  const Tolerance tol = impl->tolerance(shape);

  EXPECT_EQ(count_nan(coefficients), 0) << "coefficients left unwritten (NaN poison survived)";
  EXPECT_EQ(nan_mismatches(values, oracle_values), 0)
      << "NaN exactly at the non-finite coordinates, a value everywhere else";
  if (c.prefilter) {
    EXPECT_TRUE(times.has(phase::prefilter)) << "prefilter phase not recorded";
  } else {
    EXPECT_FALSE(times.has(phase::prefilter)) << "prefilter = false must not prefilter";
    EXPECT_EQ(coefficients, input) << "handed-in coefficients must read back unchanged";
  }
  // Field by field: one good field must not hide a bad one.
  const auto slice = [](const auto& v, std::int64_t f, std::int64_t size) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    return std::vector<T>(v.begin() + f * size, v.begin() + (f + 1) * size);
  };
  for (std::int64_t f = 0; f < fields; ++f) {
    if (c.prefilter) {
      EXPECT_LE(rel_l2(slice(coefficients, f, shape.values()), slice(oracle_coeffs, f, shape.values())),
                tol.prefilter_rel_l2)
          << "field " << f << ": prefilter rel L2; tolerance basis: " << tol.basis;
    }
    const double max_f = max_abs(slice(samples, f, shape.values()));
    EXPECT_LE(max_abs_diff(slice(values, f, n * shape.channels), slice(oracle_values, f, n * shape.channels)) / max_f,
              tol.interp_max_rel_to_maxf)
        << "field " << f << ": interpolation max |s - s_ref| / max|f|; tolerance basis: " << tol.basis;
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, Registry, ::testing::ValuesIn(registry_cases()),
                         [](const ::testing::TestParamInfo<ConformanceCase>& info) { return case_name(info.param); });

// ctest lists the cases when this binary is built; one whose implementation's availability
// has changed since is not generated now, and its filter would select nothing and pass.
struct NothingSelectedFails : ::testing::EmptyTestEventListener {
  void OnTestIterationStart(const ::testing::UnitTest& unit, int) override {
    if (unit.test_to_run_count() > 0) return;
    std::cerr << "no conformance case matches the filter: an implementation's availability changed since ctest "
                 "listed the cases (at build time); rebuild test_conformance to list them again\n";
    std::exit(1);
  }
};
const bool kGuarded = (::testing::UnitTest::GetInstance()->listeners().Append(new NothingSelectedFails), true);


}  // namespace
