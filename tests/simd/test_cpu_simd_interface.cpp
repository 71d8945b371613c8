// cpu_sse and cpu_simd behind the Implementation interface: threads (results do not
// depend on the thread count, bit for bit), run facts, per-axis prefilter phases,
// the given-coefficients path, independent fields, and clear errors on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "common/implementation_check.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "cpu_common/work_pool.hpp"

using namespace splinebench;
using namespace splinebench::testing;
using datasets::FieldKind;

namespace {

std::string fact(const Implementation& impl, const std::string& key) {
  for (const std::string& f : impl.run_facts())
    if (f.rfind(key + "=", 0) == 0) return f.substr(key.size() + 1);
  return "";
}

struct Outputs {
  std::vector<float> coefficients, values;
};

Outputs run(Implementation& impl, const GridShape& shape, std::int64_t fields, Mode mode, std::int64_t per_pattern) {
  const std::vector<float> input = datasets::make_field(FieldKind::noise, shape, fields, 9);
  const std::vector<float> coords = mixed_queries(shape, per_pattern, 10);
  const std::int64_t n = static_cast<std::int64_t>(coords.size()) / shape.dims;
  PhaseTimes times;
  impl.prepare(shape, fields, input.data(), mode, true, times);
  Outputs o;
  o.coefficients.resize(input.size());
  poison(o.coefficients);
  impl.read_coefficients(o.coefficients.data(), times);
  o.values.resize(static_cast<std::size_t>(fields * n * shape.channels));
  poison(o.values);
  impl.evaluate(coords.data(), n, o.values.data(), times);
  return o;
}

}  // namespace

// Also with bin-sorted queries (the 96^3 grid is larger than L2, 18000 queries).
TEST(CpuSimd, ThreadCountDoesNotChangeResults) {
  for (const auto& extents :
       {std::vector<std::int64_t>{300}, {37, 41}, {19, 23, 35}, {5, 7, 6, 9}, {96, 96, 96}}) {
    const GridShape shape = GridShape::make(extents, extents.size() == 3 && extents[0] == 96 ? 1 : 2);
    const std::int64_t per_pattern = shape.points() > 100000 ? 6000 : 3000;
    ImplementationPtr one = make_implementation("cpu_simd");
    one->configure(Options{1});
    const Outputs ref = run(*one, shape, 2, Mode::periodic, per_pattern);
    for (const int threads : {2, 3, 0}) {
      ImplementationPtr many = make_implementation("cpu_simd");
      many->configure(Options{threads});
      const Outputs got = run(*many, shape, 2, Mode::periodic, per_pattern);
      EXPECT_EQ(got.coefficients, ref.coefficients) << shape.to_string() << " threads=" << threads;
      EXPECT_EQ(got.values, ref.values) << shape.to_string() << " threads=" << threads;
      EXPECT_EQ(count_nan(got.values), 0);
    }
  }
}

TEST(CpuSimd, CapabilitiesAndRunFacts) {
  ImplementationPtr simd = make_implementation("cpu_simd");
  EXPECT_TRUE(simd->capabilities().threads);
  EXPECT_EQ(fact(*simd, "hardware_threads"), std::to_string(cpu::hardware_threads()));
  EXPECT_FALSE(fact(*simd, "isa").empty());
  EXPECT_TRUE(simd->threads_used().empty()) << "nothing ran yet";
  EXPECT_THROW(simd->configure(Options{-1}), Error);

  ImplementationPtr sse = make_implementation("cpu_sse");
  EXPECT_TRUE(sse->availability().ok) << sse->availability().reason;
  EXPECT_FALSE(sse->capabilities().threads);
  sse->configure(Options{4});  // not honoured: stays single-threaded
  EXPECT_EQ(fact(*sse, "threads"), "1");
  EXPECT_EQ(fact(*sse, "isa"), "SSE4.1");
}

namespace {

int used(const Implementation& impl, const std::string& phase_name) {
  for (const auto& [name, n] : impl.threads_used())
    if (name == phase_name) return n;
  return 0;
}

}  // namespace

// Options::threads is a ceiling: each phase runs on at most the hardware threads and
// on one thread per kPrefilterBytesPerThread / kEvalTapsPerThread of work, and says so.
TEST(CpuSimd, ThreadsFollowTheWork) {
  const int hw = cpu::hardware_threads();
  struct Case {
    std::vector<std::int64_t> extents;
    std::int64_t queries;
    int threads;
    int prefilter, evaluate;  // expected before the hardware cap
  };
  // 16^3: 16 KiB, 4096 x 64 taps = 2^18; 128^3: 8 MiB (8 shares); 2^16 queries x 64 taps
  // = 2^22 (4 shares); a 1-D line is one work item of the prefilter, whatever its size
  // (2^20 1-D queries: 4 taps each, 4 shares).
  const Case cases[] = {{{16, 16, 16}, 4096, 0, 1, 1},
                        {{128, 128, 128}, 65536, 0, 8, 4},
                        {{128, 128, 128}, 65536, 2, 2, 2},
                        {{128, 128, 128}, 65536, 1, 1, 1},
                        {{1 << 21}, 1 << 20, 0, 1, 4}};
  for (const Case& c : cases) {
    const GridShape shape = GridShape::make(c.extents);
    const std::vector<float> input = datasets::make_field(FieldKind::noise, shape, 1, 3);
    const std::vector<float> coords =
        datasets::make_queries(datasets::QueryPattern::uniform, shape, c.queries, 4);
    std::vector<float> out(static_cast<std::size_t>(c.queries));
    ImplementationPtr simd = make_implementation("cpu_simd");
    simd->configure(Options{c.threads});
    PhaseTimes times;
    simd->prepare(shape, 1, input.data(), Mode::mirror, true, times);
    simd->evaluate(coords.data(), c.queries, out.data(), times);
    const int cap = c.threads == 0 ? hw : std::min(hw, c.threads);
    EXPECT_EQ(used(*simd, phase::prefilter), std::min(cap, c.prefilter)) << shape.to_string() << " T" << c.threads;
    EXPECT_EQ(used(*simd, phase::evaluate), std::min(cap, c.evaluate)) << shape.to_string() << " T" << c.threads;
  }
}

// Ruijters-style per-axis times: one phase per axis next to the total, which covers them.
TEST(CpuSimd, PerAxisPrefilterPhases) {
  for (const std::string name : {"cpu_sse", "cpu_simd", "cpu_scalar"}) {
    const GridShape shape = GridShape::make({20, 30, 40});
    const std::vector<float> input = datasets::make_field(FieldKind::noise, shape, 1, 3);
    ImplementationPtr impl = make_implementation(name);
    PhaseTimes times;
    impl->prepare(shape, 1, input.data(), Mode::mirror, true, times);
    ASSERT_TRUE(times.has(phase::prefilter)) << name;
    double sum = 0;
    for (int axis = 0; axis < shape.dims; ++axis) {
      ASSERT_TRUE(times.has(phase::prefilter_axis(axis))) << name << " axis " << axis;
      sum += times.get(phase::prefilter_axis(axis));
    }
    EXPECT_FALSE(times.has(phase::prefilter_axis(3))) << name;
    EXPECT_LE(sum, times.get(phase::prefilter)) << name;
  }
}

TEST(CpuSimd, GivenCoefficientsPathMatchesPrefilterPath) {
  for (const std::string name : {"cpu_sse", "cpu_simd"})
    for (const Mode mode : kAllModes) {
      const GridShape shape = GridShape::make({6, 5, 7}, 2);
      const std::vector<float> input = datasets::make_field(FieldKind::noise, shape, 2, 21);
      const std::vector<float> coords = mixed_queries(shape, 50, 22);
      const std::int64_t n = static_cast<std::int64_t>(coords.size()) / shape.dims;
      PhaseTimes times;
      ImplementationPtr a = make_implementation(name);
      a->prepare(shape, 2, input.data(), mode, true, times);
      std::vector<float> coeffs(input.size());
      a->read_coefficients(coeffs.data(), times);
      std::vector<float> va(static_cast<std::size_t>(2 * n * 2));
      a->evaluate(coords.data(), n, va.data(), times);

      ImplementationPtr b = make_implementation(name);
      PhaseTimes tb;
      b->prepare(shape, 2, coeffs.data(), mode, false, tb);
      EXPECT_FALSE(tb.has(phase::prefilter)) << "prefilter=false must not prefilter";
      std::vector<float> vb(va.size());
      poison(vb);
      b->evaluate(coords.data(), n, vb.data(), tb);
      EXPECT_EQ(va, vb) << name << " " << to_string(mode);
    }
}

TEST(CpuSimd, FieldsInABatchAreIndependent) {
  for (const std::string name : {"cpu_sse", "cpu_simd"}) {
    const GridShape shape = GridShape::make({5, 4, 3}, 4);
    const std::int64_t fields = 3;
    const std::vector<float> batch = datasets::make_field(FieldKind::noise, shape, fields, 5);
    const std::vector<float> coords = mixed_queries(shape, 60, 8);
    const std::int64_t n = static_cast<std::int64_t>(coords.size()) / shape.dims;
    PhaseTimes times;
    ImplementationPtr impl = make_implementation(name);
    impl->prepare(shape, fields, batch.data(), Mode::half, true, times);
    std::vector<float> all(static_cast<std::size_t>(fields * n * shape.channels));
    impl->evaluate(coords.data(), n, all.data(), times);
    for (std::int64_t f = 0; f < fields; ++f) {
      ImplementationPtr single = make_implementation(name);
      single->prepare(shape, 1, batch.data() + f * shape.values(), Mode::half, true, times);
      std::vector<float> one(static_cast<std::size_t>(n * shape.channels));
      single->evaluate(coords.data(), n, one.data(), times);
      EXPECT_TRUE(std::equal(one.begin(), one.end(), all.begin() + f * n * shape.channels)) << name << " field " << f;
    }
  }
}

TEST(CpuSimd, RejectsBadInput) {
  for (const std::string name : {"cpu_sse", "cpu_simd"}) {
    ImplementationPtr impl = make_implementation(name);
    PhaseTimes times;
    const std::vector<float> data(64, 1.0f);
    std::vector<float> out(64);
    EXPECT_THROW(impl->evaluate(data.data(), 1, out.data(), times), Error) << "evaluate before prepare";
    EXPECT_THROW(impl->read_coefficients(out.data(), times), Error) << "read before prepare";
    GridShape empty_axis = GridShape::make({4, 4});
    empty_axis.extent[1] = 0;
    EXPECT_THROW(impl->prepare(empty_axis, 1, data.data(), Mode::mirror, true, times), Error);
    EXPECT_THROW(impl->prepare(GridShape::make({4}, 3), 1, data.data(), Mode::mirror, true, times), Unsupported);
    EXPECT_THROW(impl->prepare(GridShape::make({4}), 0, data.data(), Mode::mirror, true, times), Error);
    EXPECT_THROW(impl->prepare(GridShape::make({4}), 1, nullptr, Mode::mirror, true, times), Error);
    impl->prepare(GridShape::make({4, 4}), 1, data.data(), Mode::mirror, true, times);
    EXPECT_THROW(impl->evaluate(data.data(), -1, out.data(), times), Error);
    impl->evaluate(data.data(), 0, out.data(), times);  // nothing to do, not an error
    impl->release();
    EXPECT_THROW(impl->evaluate(data.data(), 1, out.data(), times), Error) << "evaluate after release";
  }
}
