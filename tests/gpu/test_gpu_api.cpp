// The GPU implementations' contracts beyond accuracy sweeps: availability without a
// device, the public device-pointer APIs (evaluate_global, TextureField) writing every
// element, slab tiling (folding over the texture limits: test_gpu_texture_fold.cpp),
// out-of-memory as Unsupported, bad input, the recorded phases, and evaluation of
// given coefficients (no prefilter).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "common/accuracy.hpp"
#include "gpu_case.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/prefilter_step.hpp"
#include "gpu_common/texture_field.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::gpu_tests {
namespace {

using gpu::DeviceBuffer;

TEST(GpuAvailability, ReportsMissingDevice) {
  const std::string reason = gpu::cuda_unavailable_reason();
  for (const char* name : {"gpu_naive", "gpu_texture", "gpu_texture_binned"}) {
    const auto impl = make_implementation(name);
    EXPECT_EQ(impl->capabilities().device, Device::gpu);
    const Availability a = impl->availability();
    EXPECT_EQ(a.ok, reason.empty()) << name;
    EXPECT_EQ(a.reason, reason) << name;
  }
}

template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  DeviceBuffer<T> d(host.size());
  SB_CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
std::vector<T> to_host(const DeviceBuffer<T>& d) {
  std::vector<T> host(d.size());
  SB_CUDA_CHECK(cudaMemcpy(host.data(), d.data(), d.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

struct Problem {
  GridShape shape;
  std::int64_t fields;
  Mode mode;
  std::int64_t n;
  std::vector<float> samples, coords;
  std::vector<double> ref_coeffs, ref_values;
};

Problem make_problem(std::vector<std::int64_t> extents, int channels, std::int64_t fields, Mode mode,
                     std::int64_t n, std::uint64_t seed) {
  Problem p{GridShape::make(extents, channels), fields, mode, n, {}, {}, {}, {}};
  p.samples = datasets::make_field(datasets::FieldKind::noise, p.shape, fields, seed);
  p.coords = make_test_queries(p.shape, n, seed + 1);
  p.ref_coeffs = testing::to_double(p.samples);
  oracle::prefilter_f64(p.shape, fields, p.ref_coeffs.data(), mode);
  p.ref_values.resize(static_cast<std::size_t>(fields * n * channels));
  oracle::evaluate_f64(p.shape, fields, p.ref_coeffs.data(), mode, p.coords.data(), n, p.ref_values.data());
  return p;
}

// The public device API: step prefilter + evaluate_global, output poisoned on the
// device first; a query count that is not a multiple of the block size; 3 fields; the
// coefficient pointer also offset by one sample (C-aligned, as the layout promises,
// but not 16-byte aligned).
TEST(GpuApi, EvaluateGlobalWritesEveryElement) {
  SB_REQUIRE_CUDA_DEVICE();
  for (int channels : {1, 2})
    for (int misalign : {0, 1}) {
      const Problem p = make_problem({9, 14, 11}, channels, 3, Mode::half, 70001, 11);
      DeviceBuffer<float> d_coeffs(p.samples.size() + 2);
      float* coeffs = d_coeffs.data() + misalign * channels;
      SB_CUDA_CHECK(cudaMemcpy(coeffs, p.samples.data(), p.samples.size() * sizeof(float), cudaMemcpyHostToDevice));
      auto d_coords = to_device(p.coords);
      DeviceBuffer<float> d_out(p.ref_values.size());
      SB_CUDA_CHECK(cudaMemset(d_out.data(), 0xFF, d_out.bytes()));
      gpu::prefilter_step(p.shape, p.fields, p.mode, coeffs, nullptr);
      gpu::evaluate_global(p.shape, p.fields, p.mode, coeffs, d_coords.data(), p.n, d_out.data(), nullptr);
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      const auto out = to_host(d_out);
      const std::string what = "C=" + std::to_string(channels) + " misalign " + std::to_string(misalign);
      EXPECT_EQ(testing::nan_mismatches(out, p.ref_values), 0) << what;
      const double tol = make_implementation("cpu_scalar")->tolerance(p.shape).interp_max_rel_to_maxf;
      EXPECT_LE(testing::max_abs_diff(out, p.ref_values) / testing::max_abs(p.samples), tol) << what;
    }
}

// TextureField on its own: bind, evaluate, bind another batch (2-D layered, 4
// channels), evaluate again, release.
TEST(GpuApi, TextureFieldRebinds) {
  SB_REQUIRE_CUDA_DEVICE();
  gpu::TextureField field;
  for (const auto& [extents, channels, fields, mode] :
       {std::tuple{std::vector<std::int64_t>{12, 7, 10}, 1, std::int64_t{2}, Mode::mirror},
        std::tuple{std::vector<std::int64_t>{33, 18}, 4, std::int64_t{3}, Mode::periodic}}) {
    const Problem p = make_problem(extents, channels, fields, mode, 5001, 21);
    auto d_coeffs = to_device(p.samples);
    auto d_coords = to_device(p.coords);
    DeviceBuffer<float> d_out(p.ref_values.size());
    SB_CUDA_CHECK(cudaMemset(d_out.data(), 0xFF, d_out.bytes()));
    gpu::prefilter_step(p.shape, p.fields, p.mode, d_coeffs.data(), nullptr);
    field.bind(p.shape, p.fields, p.mode, d_coeffs.data(), nullptr);
    ASSERT_TRUE(field.bound());
    field.evaluate(d_coords.data(), p.n, d_out.data(), nullptr);
    SB_CUDA_CHECK(cudaDeviceSynchronize());
    const auto out = to_host(d_out);
    EXPECT_EQ(testing::nan_mismatches(out, p.ref_values), 0);
    const double dc = max_neighbour_difference(p.shape, p.fields, p.mode, p.ref_coeffs);
    const double bound = gpu::TextureField::interp_error_factor(p.shape, p.fields, p.mode) * dc +
                         (8.0 * p.shape.dims + 16) * 0x1p-24 * testing::max_abs(p.ref_coeffs) +
                         make_implementation("cpu_scalar")->tolerance(p.shape).interp_max_rel_to_maxf *
                             testing::max_abs(p.samples);
    EXPECT_LE(testing::max_abs_diff(out, p.ref_values), bound);
    // The device-side statistics agree with the oracle's (float vs double rounding).
    const auto stats = gpu::coefficient_stats(p.shape, p.fields, p.mode, d_coeffs.data(), nullptr);
    EXPECT_NEAR(stats.max_neighbour_difference, dc, 1e-5 * dc);
    EXPECT_NEAR(stats.max_abs, testing::max_abs(p.ref_coeffs), 1e-5 * testing::max_abs(p.ref_coeffs));
  }
  field.release();
  EXPECT_FALSE(field.bound());
}

// More slabs than the 3-D depth limit holds: the array tiles them along height too.
TEST(GpuLimits, TextureTilesSlabsBeyondDepthLimit) {
  SB_REQUIRE_CUDA_DEVICE();
  int dev = 0, depth = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&depth, cudaDevAttrMaxTexture3DDepth, dev));
  const std::int64_t dz = depth / 16 + 3;  // 17 slabs of this depth overflow the limit
  for (Mode mode : {Mode::mirror, Mode::periodic})
    for (const auto& [extents, fields] : {std::pair{std::vector<std::int64_t>{17, dz, 2, 3}, std::int64_t{1}},
                                          std::pair{std::vector<std::int64_t>{dz, 3, 2}, std::int64_t{17}}}) {
      CaseSpec spec;
      spec.impl = "gpu_texture";
      spec.extents = extents;
      spec.fields = fields;
      spec.mode = mode;
      spec.queries = 3000;
      const CaseResult r = run_case(spec);
      EXPECT_EQ(r.nan_mismatches, 0) << case_name(spec);
      EXPECT_EQ(r.unwritten, 0) << case_name(spec);
      EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << case_name(spec);
    }
}

// Running out of device memory is Unsupported (the harness skips the case), and the
// implementation keeps working afterwards.
TEST(GpuErrors, OutOfMemoryIsUnsupported) {
  SB_REQUIRE_CUDA_DEVICE();
  // 1 TiB of coefficients in a shape the texture limits accept, so that both
  // implementations get as far as the device allocation.
  const GridShape huge = GridShape::make({16384, 16384, 1024});
  const std::vector<float> dummy(16, 1.0f);  // never read: the device allocation fails first
  for (const char* name : {"gpu_naive", "gpu_texture"}) {
    auto impl = make_implementation(name);
    PhaseTimes times;
    try {
      impl->prepare(huge, 1, dummy.data(), Mode::mirror, true, times);
      ADD_FAILURE() << name << ": expected Unsupported";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
    }
    CaseSpec spec;
    spec.impl = name;
    spec.extents = {6, 7};
    const CaseResult r = run_case(spec);
    EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << name;
  }
}

TEST(GpuErrors, BadInputIsReported) {
  SB_REQUIRE_CUDA_DEVICE();
  for (const char* name : {"gpu_naive", "gpu_texture", "gpu_texture_binned"}) {
    auto impl = make_implementation(name);
    PhaseTimes times;
    std::vector<float> buf(64, 0.5f);
    EXPECT_THROW(impl->evaluate(buf.data(), 1, buf.data(), times), Error) << name;
    EXPECT_THROW(impl->read_coefficients(buf.data(), times), Error) << name;
    EXPECT_THROW(impl->prepare(GridShape::make({4}, 3), 1, buf.data(), Mode::mirror, true, times), Unsupported)
        << name;
    EXPECT_THROW(impl->prepare(GridShape::make({4}), 0, buf.data(), Mode::mirror, true, times), Error) << name;
    impl->prepare(GridShape::make({4, 4}), 1, buf.data(), Mode::mirror, true, times);
    EXPECT_NO_THROW(impl->evaluate(buf.data(), 0, buf.data(), times)) << name;  // no queries: nothing to do
  }
}

// Phases: upload, prefilter and its per-axis parts (which add up to it), bind for the
// texture, query_upload / evaluate / download for the queries, readback.
TEST(GpuPhases, RecordedSeparately) {
  SB_REQUIRE_CUDA_DEVICE();
  const GridShape shape = GridShape::make({40, 30, 20});
  const auto samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, 5);
  const auto coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, 1000, 6);
  for (const char* name : {"gpu_naive", "gpu_texture"}) {
    auto impl = make_implementation(name);
    PhaseTimes prep, eval, back;
    impl->prepare(shape, 1, samples.data(), Mode::mirror, true, prep);
    std::vector<float> out(1000), coeffs(samples.size());
    impl->evaluate(coords.data(), 1000, out.data(), eval);
    impl->read_coefficients(coeffs.data(), back);
    for (const char* ph : {phase::upload, phase::prefilter, "prefilter_axis0", "prefilter_axis1", "prefilter_axis2"})
      EXPECT_TRUE(prep.has(ph)) << name << " " << ph;
    EXPECT_EQ(prep.has(phase::bind), std::string(name) == "gpu_texture") << name;
    const double axes = prep.get("prefilter_axis0") + prep.get("prefilter_axis1") + prep.get("prefilter_axis2");
    EXPECT_NEAR(axes, prep.get(phase::prefilter), 5e-6) << name;
    for (const char* ph : {phase::query_upload, phase::evaluate, phase::download})
      EXPECT_GT(eval.get(ph), 0.0) << name << " " << ph;
    EXPECT_FALSE(eval.has(phase::upload)) << name;
    EXPECT_TRUE(back.has(phase::readback)) << name;
  }
}

// prepare(prefilter = false): the input already holds coefficients.
TEST(GpuApi, EvaluatesGivenCoefficients) {
  SB_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem({13, 6, 5, 4}, 1, 2, Mode::periodic, 3001, 31);
  const std::vector<float> coeffs(p.ref_coeffs.begin(), p.ref_coeffs.end());
  for (const char* name : {"gpu_naive", "gpu_texture"}) {
    auto impl = make_implementation(name);
    PhaseTimes times;
    impl->prepare(p.shape, p.fields, coeffs.data(), p.mode, false, times);
    EXPECT_FALSE(times.has(phase::prefilter)) << name;
    std::vector<float> out(p.ref_values.size());
    testing::poison(out);
    impl->evaluate(p.coords.data(), p.n, out.data(), times);
    EXPECT_EQ(testing::nan_mismatches(out, p.ref_values), 0) << name;
    EXPECT_LE(testing::max_abs_diff(out, p.ref_values) / testing::max_abs(p.samples),
              impl->tolerance(p.shape).interp_max_rel_to_maxf)
        << name << ": " << impl->tolerance(p.shape).basis;
  }
}

}  // namespace
}  // namespace splinebench::gpu_tests
