// The prefilter split into slabs along axis 0 (slab_prefilter.hpp) against the oracle's
// whole-field prefilter, on fresh random data: every mode, D = 1..4, 1 to 8 slabs of
// unequal thickness (slabs of one plane, slabs thinner than the ~13 planes the carry
// needs to fall below f32 rounding, a split at the first and at the last plane), two
// channels, two fields. In double the two agree to rounding (the same sums in another
// order); in float the slab result is within the f32 prefilter bound of the f64 oracle,
// as cpu_scalar's whole-line result is. The same slabs streamed through one device in one
// sweep (slab_streamed.hpp) are held to the same bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/slab_prefilter.hpp"
#include "splinebench/slab_streamed.hpp"

namespace {

using splinebench::GridShape;
using splinebench::Mode;

double rel_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

// Slab starts for `count` slabs on `n` planes: unequal, with one-plane slabs where there
// is room, always starting at 0.
std::vector<std::int64_t> slab_starts(std::int64_t n, int count, std::mt19937_64& rng) {
  std::vector<std::int64_t> starts = {0};
  if (count > n) count = static_cast<int>(n);
  std::vector<std::int64_t> cuts;
  for (std::int64_t k = 1; k < n; ++k) cuts.push_back(k);
  std::shuffle(cuts.begin(), cuts.end(), rng);
  cuts.resize(static_cast<std::size_t>(count - 1));
  std::sort(cuts.begin(), cuts.end());
  starts.insert(starts.end(), cuts.begin(), cuts.end());
  return starts;
}

struct SlabCase {
  Mode mode;
  std::vector<std::int64_t> extents;
};

// So that gtest prints the case, not its bytes.
[[maybe_unused]] void PrintTo(const SlabCase& c, std::ostream* os) {
  *os << splinebench::to_string(c.mode);
  for (auto e : c.extents) *os << ' ' << e;
}

class SlabPrefilter : public ::testing::TestWithParam<SlabCase> {};

TEST_P(SlabPrefilter, MatchesTheWholeFieldPrefilterForOneToEightSlabs) {
  const SlabCase& c = GetParam();
  const GridShape shape = GridShape::make(c.extents, 2);
  const std::int64_t fields = 2;
  std::mt19937_64 rng(1000 + static_cast<int>(c.mode) * 97 + static_cast<int>(c.extents[0]));
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> input(static_cast<std::size_t>(shape.values() * fields));
  for (double& v : input) v = uniform(rng);
  std::vector<double> whole = input;
  splinebench::oracle::prefilter(shape, fields, whole.data(), c.mode);
  const double f32_bound = splinebench::f32_accuracy::prefilter_rel_l2_bound(shape);
  const std::int64_t n = c.extents[0];
  for (int count = 1; count <= 8; ++count) {
    std::vector<std::vector<std::int64_t>> splits = {slab_starts(n, count, rng)};
    if (count == 2 && n > 2) splits.push_back({0, n - 1});  // the last plane alone
    if (count == 2 && n > 1) splits.push_back({0, 1});      // the first plane alone
    for (const auto& starts : splits) {
      std::string where;
      for (auto s : starts) {
        where += ' ';
        where += std::to_string(s);
      }
      std::vector<double> slabs = input;
      splinebench::oracle::prefilter_slabs(shape, fields, slabs.data(), c.mode, starts);
      EXPECT_LT(rel_l2(slabs, whole), 1e-13) << "double, slabs starting at" << where;

      std::vector<float> single(input.begin(), input.end());
      splinebench::oracle::prefilter_slabs(shape, fields, single.data(), c.mode, starts);
      EXPECT_LE(rel_l2(std::vector<double>(single.begin(), single.end()), whole), f32_bound)
          << "float, slabs starting at" << where;

      // The same slabs streamed through one device in one sweep.
      std::vector<double> streamed = input;
      splinebench::oracle::prefilter_streamed(shape, fields, streamed.data(), c.mode, starts);
      EXPECT_LT(rel_l2(streamed, whole), 1e-13) << "double, streamed, slabs starting at" << where;
      std::vector<float> streamed_single(input.begin(), input.end());
      splinebench::oracle::prefilter_streamed(shape, fields, streamed_single.data(), c.mode, starts);
      EXPECT_LE(rel_l2(std::vector<double>(streamed_single.begin(), streamed_single.end()), whole), f32_bound)
          << "float, streamed, slabs starting at" << where;
    }
  }
}

std::string slab_case_name(const ::testing::TestParamInfo<SlabCase>& info) {
  std::ostringstream name;
  name << splinebench::to_string(info.param.mode) << "_D" << info.param.extents.size();
  for (auto e : info.param.extents) name << '_' << e;
  return name.str();
}

std::vector<SlabCase> slab_cases() {
  std::vector<SlabCase> out;
  for (Mode m : {Mode::mirror, Mode::half, Mode::periodic})
    for (const auto& e : std::vector<std::vector<std::int64_t>>{{1}, {2}, {3}, {40}, {33, 5}, {21, 4, 3}, {17, 3, 2, 3}})
      out.push_back({m, e});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Modes, SlabPrefilter, ::testing::ValuesIn(slab_cases()), slab_case_name);

TEST(SlabPrefilterArguments, BadSlabStartsAreRefused) {
  const GridShape shape = GridShape::make({5, 2});
  std::vector<double> data(10, 1.0);
  for (const std::vector<std::int64_t>& bad :
       {std::vector<std::int64_t>{}, {1}, {0, 0}, {0, 3, 2}, {0, 5}}) {
    EXPECT_THROW(splinebench::oracle::prefilter_slabs(shape, 1, data.data(), Mode::mirror, bad),
                 std::invalid_argument);
    EXPECT_THROW(splinebench::oracle::prefilter_streamed(shape, 1, data.data(), Mode::mirror, bad),
                 std::invalid_argument);
  }
}

}  // namespace
