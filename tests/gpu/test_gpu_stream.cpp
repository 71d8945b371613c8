// gpu_slabs' streamed prefilter (impls/gpu_slabs/stream_prefilter.hpp) against the
// whole-field f64 oracle: every mode, D = 1..3, channels 1 to 4, slab thicknesses forced
// to give 1 to 8 slabs, the last one plane thick, and every slab one plane; 2 and 3
// buffers; the caller's array registered, staged through pinned buffers, or already
// page-locked. Criterion: rel. L2 within f32_accuracy::prefilter_rel_l2_bound, no NaN
// left, the report's counts, and the array no longer page-locked afterwards unless it
// was before. Also the argument errors and running out of device memory (Unsupported,
// the array unregistered on that path too). Without a device the device tests skip.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "gpu_case.hpp"
#include "stream_cases.hpp"
#include "gpu_slabs/stream_plan.hpp"
#include "gpu_slabs/stream_prefilter.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"

namespace splinebench::gpu_tests {
namespace {

using gpu::slabs::StreamOptions;
using gpu::slabs::StreamReport;

// Whether the runtime sees `p` as page-locked host memory (registered or cudaMallocHost).
bool page_locked(const void* p) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

TEST(GpuStream, RejectsInvalidArguments) {
  // Checked before the device is looked for, so these run anywhere.
  std::vector<float> data(16);
  const GridShape shape = GridShape::make({4, 4});
  StreamReport report;
  EXPECT_THROW(gpu::slabs::prefilter_streamed(nullptr, shape, Mode::mirror, {}, report), Error);
  StreamOptions one_buffer;
  one_buffer.buffers = 1;
  EXPECT_THROW(gpu::slabs::prefilter_streamed(data.data(), shape, Mode::mirror, one_buffer, report), Error);
  StreamOptions negative;
  negative.slab_planes = -2;
  EXPECT_THROW(gpu::slabs::prefilter_streamed(data.data(), shape, Mode::mirror, negative, report), Error);
  StreamOptions fraction;
  fraction.memory_fraction = 0;
  EXPECT_THROW(gpu::slabs::prefilter_streamed(data.data(), shape, Mode::mirror, fraction, report), Error);
  EXPECT_THROW(gpu::slabs::prefilter_streamed(data.data(), GridShape::make({4, 4}, 3), Mode::mirror, {}, report),
               Unsupported);
}

TEST(GpuStream, WithoutDeviceIsUnsupported) {
  const std::string reason = gpu::cuda_unavailable_reason();
  if (reason.empty()) GTEST_SKIP() << "a CUDA device is present";
  std::vector<float> data(16, 1.0f);
  StreamReport report;
  try {
    gpu::slabs::prefilter_streamed(data.data(), GridShape::make({4, 4}), Mode::mirror, {}, report);
    ADD_FAILURE() << "no throw";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(data, std::vector<float>(16, 1.0f));  // untouched
}

TEST(GpuStream, DeviceIndexOutOfRange) {
  SB_REQUIRE_CUDA_DEVICE();
  int devices = 0;
  SB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  std::vector<float> data(16, 1.0f);
  StreamOptions o;
  o.device = devices;
  StreamReport report;
  EXPECT_THROW(gpu::slabs::prefilter_streamed(data.data(), GridShape::make({4, 4}), Mode::mirror, o, report), Error);
  EXPECT_FALSE(page_locked(data.data()));
}

using stream_tests::StreamCase;
using stream_tests::stream_case_name;
using stream_tests::thicknesses;

class GpuStreamShapes : public ::testing::TestWithParam<StreamCase> {};

TEST_P(GpuStreamShapes, MatchesTheWholeFieldOracle) {
  SB_REQUIRE_CUDA_DEVICE();
  const StreamCase& c = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t n = shape.extent[0], P = shape.stride(0);
  const std::vector<float> input =
      testing::random_values<float>(shape.values(), 11 + static_cast<std::uint64_t>(n) * 3 + static_cast<int>(c.mode));
  std::vector<double> whole = testing::to_double(input);
  oracle::prefilter(shape, 1, whole.data(), c.mode);
  const double bound = f32_accuracy::prefilter_rel_l2_bound(shape);
  struct Variant {
    int buffers;
    bool register_host;
  };
  for (std::int64_t planes : thicknesses(n))
    for (const Variant v : {Variant{3, true}, Variant{2, true}, Variant{3, false}}) {
      const std::string where = std::to_string(planes) + " planes per slab, " + std::to_string(v.buffers) +
                                " buffers, " + (v.register_host ? "registered" : "staged");
      std::vector<float> data = input;
      StreamOptions o;
      o.slab_planes = planes;
      o.buffers = v.buffers;
      o.register_host = v.register_host;
      StreamReport report;
      gpu::slabs::prefilter_streamed(data.data(), shape, c.mode, o, report);
      const std::int64_t slabs = (n + planes - 1) / planes;
      EXPECT_EQ(report.slabs, slabs) << where;
      EXPECT_EQ(report.slab_planes, planes) << where;
      EXPECT_EQ(report.buffers, std::min<std::int64_t>(v.buffers, slabs)) << where;
      EXPECT_EQ(report.bytes_to_host, n * P * 4) << where;
      EXPECT_EQ(report.bytes_to_device, (n + report.prepass_planes) * P * 4) << where;
      EXPECT_EQ(report.host_memory.rfind(v.register_host ? "registered" : "staged", 0), 0u)
          << where << ": " << report.host_memory;
      EXPECT_FALSE(page_locked(data.data())) << where << ": still page-locked after the call";
      EXPECT_EQ(testing::count_nan(data), 0) << where;
      EXPECT_LE(testing::rel_l2(data, whole), bound) << where;
      EXPECT_GE(report.total_seconds, report.sweep_seconds) << where;
    }
}

std::vector<StreamCase> stream_cases() {
  std::vector<StreamCase> out;
  for (Mode m : {Mode::mirror, Mode::half, Mode::periodic}) {
    for (const auto& e : std::vector<std::vector<std::int64_t>>{{1}, {2}, {3}, {40}, {200}, {33, 5}, {21, 4, 3}})
      out.push_back({e, 1, m});
    out.push_back({{17}, 3, m});       // D = 1: a plane is the channels of one sample
    out.push_back({{17, 3}, 2, m});
    out.push_back({{9, 6, 5}, 4, m});
    out.push_back({{170, 3}, 1, m});   // a pre-pass of ~80 planes, in chunks when slabs are thin
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuStreamShapes, ::testing::ValuesIn(stream_cases()), stream_case_name);

TEST(GpuStream, PageLockedCallerArrayIsUsedAndLeftPageLocked) {
  SB_REQUIRE_CUDA_DEVICE();
  const GridShape shape = GridShape::make({50, 7, 6});
  const std::int64_t count = shape.values();
  const std::vector<float> input = testing::random_values<float>(count, 5);
  std::vector<double> whole = testing::to_double(input);
  oracle::prefilter(shape, 1, whole.data(), Mode::mirror);
  gpu::PinnedBuffer<float> pinned(static_cast<std::size_t>(count));
  std::copy(input.begin(), input.end(), pinned.data());
  StreamOptions o;
  o.slab_planes = 9;
  StreamReport report;
  gpu::slabs::prefilter_streamed(pinned.data(), shape, Mode::mirror, o, report);
  EXPECT_EQ(report.host_memory, "already page-locked");
  EXPECT_EQ(report.pin_seconds, 0.0);
  EXPECT_TRUE(page_locked(pinned.data()));
  const std::vector<float> got(pinned.data(), pinned.data() + count);
  EXPECT_LE(testing::rel_l2(got, whole), f32_accuracy::prefilter_rel_l2_bound(shape));
}

TEST(GpuStream, AutomaticThicknessFitsAndCoversTheLine) {
  SB_REQUIRE_CUDA_DEVICE();
  const GridShape shape = GridShape::make({64, 32, 32});
  const std::vector<float> input = testing::random_values<float>(shape.values(), 9);
  std::vector<double> whole = testing::to_double(input);
  oracle::prefilter(shape, 1, whole.data(), Mode::half);
  std::vector<float> data = input;
  StreamOptions o;
  o.max_slab_bytes = 10 * 32 * 32 * 4;  // 10 planes: 7 slabs, the last 4 planes
  StreamReport report;
  gpu::slabs::prefilter_streamed(data.data(), shape, Mode::half, o, report);
  EXPECT_EQ(report.slab_planes, 10);
  EXPECT_EQ(report.slabs, 7);
  EXPECT_LE(testing::rel_l2(data, whole), f32_accuracy::prefilter_rel_l2_bound(shape));
}

TEST(GpuStreamDeviceMemory, OutOfDeviceMemoryIsUnsupportedAndUnpins) {
  SB_REQUIRE_CUDA_DEVICE();
  // Fill the device but for a little, then ask for more than that little.
  std::size_t free_bytes = 0, total_bytes = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t leave = std::size_t{64} << 20;
  gpu::DeviceBuffer<char> hog;
  for (std::size_t want = free_bytes > leave ? free_bytes - leave : 0; want > (std::size_t{1} << 30) && !hog.data();
       want -= std::size_t{256} << 20) {
    try {
      hog.resize(want);
    } catch (const Unsupported&) {
    }
  }
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes > (std::size_t{512} << 20)) GTEST_SKIP() << "could not fill the device (" << free_bytes << " bytes free)";
  // 128 planes of 1 MiB: 3 buffers of 128 planes need 384 MiB.
  const GridShape shape = GridShape::make({128, 512, 512});
  std::vector<float> data(static_cast<std::size_t>(shape.values()), 1.0f);
  StreamReport report;
  StreamOptions forced;
  forced.slab_planes = 128;
  try {
    gpu::slabs::prefilter_streamed(data.data(), shape, Mode::mirror, forced, report);
    ADD_FAILURE() << "no throw with " << free_bytes << " bytes free";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(page_locked(data.data()));
  StreamOptions automatic;
  automatic.memory_fraction = 0.001;  // not even one plane per buffer
  EXPECT_THROW(gpu::slabs::prefilter_streamed(data.data(), shape, Mode::mirror, automatic, report), Unsupported);
  EXPECT_FALSE(page_locked(data.data()));
  hog.reset();
  // The device is usable afterwards: nothing leaked that blocks a normal call.
  std::vector<float> small(static_cast<std::size_t>(8 * 4 * 4), 1.0f);
  EXPECT_NO_THROW(gpu::slabs::prefilter_streamed(small.data(), GridShape::make({8, 4, 4}), Mode::mirror, {}, report));
}

}  // namespace
}  // namespace splinebench::gpu_tests
