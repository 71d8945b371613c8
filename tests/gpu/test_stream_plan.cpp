// The host side of the streamed prefilter (impls/gpu_slabs/stream_plan.hpp), which needs
// no CUDA: the argument checks, the slab thickness (forced, or from the device's free
// memory), the slab starts, and the step after the sweep (the anti-causal carries and
// the corrections in host memory). The sweep itself is played on the CPU here with
// slab_steps.hpp's float steps in the order the device runs them (what the device
// downloads), then correct_on_host finishes it; the result must match
// oracle::prefilter_streamed and the whole-field f64 prefilter within the f32 bound, for
// every mode, D = 1..3 and 1 to 8 slabs down to one plane.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "stream_cases.hpp"
#include "gpu_slabs/stream_plan.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/slab_plan.hpp"
#include "splinebench/slab_steps.hpp"
#include "splinebench/slab_streamed.hpp"

namespace splinebench::gpu::slabs {
namespace {

TEST(StreamPlan, RejectsInvalidArguments) {
  std::vector<float> data(8);
  const GridShape shape = GridShape::make({2, 4});
  StreamOptions ok;
  EXPECT_NO_THROW(check_stream_arguments(data.data(), shape, ok));
  EXPECT_THROW(check_stream_arguments(nullptr, shape, ok), Error);
  GridShape bad = shape;
  bad.extent[1] = 0;
  EXPECT_THROW(check_stream_arguments(data.data(), bad, ok), Error);
  for (int buffers : {-1, 0, 1, kMaxStreamBuffers + 1}) {
    StreamOptions o;
    o.buffers = buffers;
    EXPECT_THROW(check_stream_arguments(data.data(), shape, o), Error) << buffers << " buffers";
  }
  StreamOptions o;
  o.slab_planes = -1;
  EXPECT_THROW(check_stream_arguments(data.data(), shape, o), Error);
  for (double fraction : {0.0, -0.5, 1.5, std::nan("")}) {
    StreamOptions f;
    f.memory_fraction = fraction;
    EXPECT_THROW(check_stream_arguments(data.data(), shape, f), Error) << fraction;
  }
  StreamOptions cap;
  cap.max_slab_bytes = -1;
  EXPECT_THROW(check_stream_arguments(data.data(), shape, cap), Error);
  StreamOptions dev;
  dev.device = -1;
  EXPECT_THROW(check_stream_arguments(data.data(), shape, dev), Error);
  // The step prefilter of the inner axes takes 1, 2 or 4 channels; D = 1 has no inner axis.
  EXPECT_THROW(check_stream_arguments(data.data(), GridShape::make({2, 4}, 3), ok), Unsupported);
  EXPECT_NO_THROW(check_stream_arguments(data.data(), GridShape::make({8}, 3), ok));
}

TEST(StreamPlan, SlabThicknessForcedOrFromFreeMemory) {
  StreamOptions o;
  o.slab_planes = 7;
  EXPECT_EQ(choose_slab_planes(100, 10, o, 0), 7);  // forced: free memory not consulted
  EXPECT_EQ(choose_slab_planes(5, 10, o, 0), 5);    // at most the line

  // P = 1000 floats = 4000 bytes a plane; 3 buffers, 4 plane sets.
  StreamOptions a;
  a.buffers = 3;
  a.memory_fraction = 1.0;
  a.max_slab_bytes = 0;
  const std::int64_t plane = 4000;
  EXPECT_EQ(choose_slab_planes(1000, 1000, a, 100 * plane), (100 - kStreamPlaneSets) / 3);
  EXPECT_EQ(choose_slab_planes(10, 1000, a, 100 * plane), 10);
  a.memory_fraction = 0.5;
  EXPECT_EQ(choose_slab_planes(1000, 1000, a, 100 * plane), (50 - kStreamPlaneSets) / 3);
  a.memory_fraction = 1.0;
  a.max_slab_bytes = 10 * plane + 1;  // the cap, in whole planes
  EXPECT_EQ(choose_slab_planes(1000, 1000, a, 100 * plane), 10);
  a.max_slab_bytes = plane / 2;  // a cap below one plane still leaves one
  EXPECT_EQ(choose_slab_planes(1000, 1000, a, 100 * plane), 1);
  a.max_slab_bytes = 0;
  a.buffers = 2;
  EXPECT_EQ(choose_slab_planes(1000, 1000, a, (kStreamPlaneSets + 2) * plane), 1);
  EXPECT_THROW(choose_slab_planes(1000, 1000, a, (kStreamPlaneSets + 1) * plane), Unsupported);
  try {
    choose_slab_planes(1000, 1000, a, 0);
    ADD_FAILURE() << "no throw";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
  }
}

TEST(StreamPlan, SlabStartsWithTheRemainderLast) {
  EXPECT_EQ(stream_slab_starts(10, 4), (std::vector<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(stream_slab_starts(9, 4), (std::vector<std::int64_t>{0, 4, 8}));  // last slab one plane
  EXPECT_EQ(stream_slab_starts(3, 1), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(stream_slab_starts(3, 3), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(stream_slab_starts(1, 1), (std::vector<std::int64_t>{0}));
  EXPECT_THROW(stream_slab_starts(0, 1), Error);
  EXPECT_THROW(stream_slab_starts(4, 0), Error);
}

TEST(StreamPlan, CorrectOnHostRejectsBadStarts) {
  std::vector<float> data(10);
  EXPECT_THROW(correct_on_host(data.data(), 10, 1, {}), Error);
  EXPECT_THROW(correct_on_host(data.data(), 10, 1, {1, 4}), Error);
  EXPECT_THROW(correct_on_host(data.data(), 10, 1, {0, 4, 4}), Error);
  EXPECT_THROW(correct_on_host(data.data(), 10, 1, {0, 10}), Error);
  EXPECT_EQ(correct_on_host(data.data(), 10, 1, {0}), 0);  // one slab: nothing to carry
}

// What the device leaves in host memory after the sweep (stream_prefilter.cpp's order,
// oracle::prefilter_streamed's arithmetic in float, powers rounded once from double as
// the device's are), then correct_on_host unless `correct` is false. Returns the planes
// it corrected.
std::int64_t stream_on_cpu(const GridShape& shape, float* host, Mode mode, std::int64_t planes, bool correct = true) {
  const std::int64_t n = shape.extent[0];
  const std::int64_t P = shape.stride(0);
  const std::vector<std::int64_t> starts = stream_slab_starts(n, planes);
  const std::vector<slab::SlabSpan> spans = slab::spans_of(starts, n, P);
  if (n == 1 && mode == Mode::mirror) {
    slab::filter_inner_axes(shape, 1, host, mode);
    return 0;
  }
  const std::vector<float> zpow = oracle::rounded_pole_powers<float>(2 * n + 1);
  const float z = zpow[1];
  std::vector<float> init(P, 0.0f), plane(P), previous(P), anti_sum(P, 0.0f), buffer;
  for (std::int64_t k = 0; k < n; ++k) {  // the pre-pass
    const float w = slab::causal_weight(mode, n, k, zpow);
    if (w == 0.0f) continue;
    std::copy(host + k * P, host + (k + 1) * P, plane.begin());
    slab::filter_inner_axes(shape, 1, plane.data(), mode);
    for (std::int64_t p = 0; p < P; ++p) init[p] += w * plane[p];
  }
  const float norm = slab::causal_norm(mode, n, zpow);
  for (float& v : init) v /= norm;
  for (std::size_t s = 0; s < spans.size(); ++s) {  // the sweep
    const slab::SlabSpan& sp = spans[s];
    const bool last = s + 1 == spans.size();
    buffer.assign(host + sp.start * P, host + (sp.start + sp.len) * P);
    slab::filter_inner_axes(shape, sp.len, buffer.data(), mode);
    if (s == 0)
      slab::causal_from_zero(buffer.data(), sp, init.data(), z);
    else
      slab::causal_from_state(buffer.data(), sp, previous.data(), z);
    if (mode == Mode::periodic) {
      slab::periodic_anticausal_share(buffer.data(), sp, zpow, plane.data());
      for (std::int64_t p = 0; p < P; ++p) anti_sum[p] += plane[p];
    }
    if (last) {
      if (mode == Mode::periodic) {
        slab::anticausal_periodic(anti_sum.data(), n, P, zpow);
      } else {
        const float* n2 = sp.len >= 2 ? buffer.data() + (sp.len - 2) * P : previous.data();
        slab::anticausal_last(mode, z, buffer.data() + (sp.len - 1) * P, n2, P, anti_sum.data());
      }
    } else {
      std::copy(buffer.end() - P, buffer.end(), previous.begin());
    }
    slab::anticausal_from_zero(buffer.data(), sp, last ? anti_sum.data() : nullptr, z);
    std::copy(buffer.begin(), buffer.end(), host + sp.start * P);  // the download
  }
  return correct ? correct_on_host(host, n, P, starts) : 0;
}

using stream_tests::StreamCase;
using stream_tests::stream_case_name;
using stream_tests::thicknesses;

class StreamHost : public ::testing::TestWithParam<StreamCase> {};

TEST_P(StreamHost, SweepThenHostCorrectionsMatchTheOracles) {
  const StreamCase& c = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t n = shape.extent[0];
  const std::vector<float> input = testing::random_values<float>(shape.values(), 7 + static_cast<std::uint64_t>(n));
  std::vector<double> whole = testing::to_double(input);
  oracle::prefilter(shape, 1, whole.data(), c.mode);
  const double bound = f32_accuracy::prefilter_rel_l2_bound(shape);
  const std::int64_t depth = slab::correction_depth<float>();
  for (std::int64_t planes : thicknesses(n)) {
    const std::vector<std::int64_t> starts = stream_slab_starts(n, planes);
    std::vector<float> got = input;
    const std::int64_t corrected = stream_on_cpu(shape, got.data(), c.mode, planes);
    std::int64_t expected_corrected = 0;
    if (!(n == 1 && c.mode == Mode::mirror))
      for (std::size_t s = 0; s + 1 < starts.size(); ++s) expected_corrected += std::min(starts[s + 1] - starts[s], depth);
    EXPECT_EQ(corrected, expected_corrected) << planes << " planes per slab";
    EXPECT_EQ(testing::count_nan(got), 0) << planes << " planes per slab";
    EXPECT_LE(testing::rel_l2(got, whole), bound) << planes << " planes per slab (" << starts.size() << " slabs)";
    std::vector<float> oracle_streamed = input;
    oracle::prefilter_streamed(shape, 1, oracle_streamed.data(), c.mode, starts);
    EXPECT_LE(testing::rel_l2(got, testing::to_double(oracle_streamed)), 4 * bound)
        << planes << " planes per slab, against oracle::prefilter_streamed<float>";
  }
}

// The check can tell: without the host corrections, or with them applied twice, the
// slabs' last planes are wrong by far more than the bound.
TEST(StreamHostSensitivity, TheHostCorrectionsAreNeededOnce) {
  for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
    const GridShape shape = GridShape::make({40, 3});
    const std::int64_t n = 40, P = shape.stride(0);
    const double bound = f32_accuracy::prefilter_rel_l2_bound(shape);
    const std::vector<float> input = testing::random_values<float>(shape.values(), 3);
    std::vector<double> whole = testing::to_double(input);
    oracle::prefilter(shape, 1, whole.data(), mode);
    std::vector<float> uncorrected = input;
    stream_on_cpu(shape, uncorrected.data(), mode, 8, false);
    EXPECT_GT(testing::rel_l2(uncorrected, whole), 100 * bound) << to_string(mode) << ", no corrections";
    std::vector<float> twice = input;
    stream_on_cpu(shape, twice.data(), mode, 8);
    correct_on_host(twice.data(), n, P, stream_slab_starts(n, 8));
    EXPECT_GT(testing::rel_l2(twice, whole), 100 * bound) << to_string(mode) << ", corrections applied twice";
  }
}

std::vector<StreamCase> stream_cases() {
  std::vector<StreamCase> out;
  for (Mode m : {Mode::mirror, Mode::half, Mode::periodic}) {
    for (const auto& e : std::vector<std::vector<std::int64_t>>{{1}, {2}, {3}, {40}, {200}, {33, 5}, {21, 4, 3}})
      out.push_back({e, 1, m});
    out.push_back({{17, 3}, 2, m});
    out.push_back({{170, 3}, 1, m});  // a pre-pass of ~80 planes, in several chunks on the device
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Shapes, StreamHost, ::testing::ValuesIn(stream_cases()), stream_case_name);

}  // namespace
}  // namespace splinebench::gpu::slabs
