// gpu_slabs' inner axes (impls/gpu_slabs/slab_inner.hpp) on one slab: its
// fields x (len + 3) extended planes of fresh noise filtered along axes 1..D-1 with
// gpu_flex's tiles, as one launch with the result swapped in and in chunks of a few
// planes copied back (forced by a small share of the free memory), and with the step
// prefilter (no share of the memory for gpu_flex's output). Each against the f64
// oracle of the planes as (D-1)-dimensional fields; every mode, D = 2..4, channels 1, 2
// and 4. The gpu_flex paths run twice, as repeated prepares do, the second time into
// their kept second buffer poisoned with NaN; no value may stay NaN.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "gpu_case.hpp"
#include "gpu_slabs/slab_devices.hpp"
#include "gpu_slabs/slab_inner.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"

namespace splinebench::gpu_tests {
namespace {

using gpu::slabs::InnerMethod;
using testing::count_nan;
using testing::rel_l2;
using gpu::slabs::Slab;

enum class Path { whole, chunks, step };

struct Outcome {
  InnerMethod method;
  std::vector<float> planes;
};

// Filters the planes of `samples` (fields x (len + 3) planes of P floats) through one
// slab on device 0: the whole slab at once or in chunks of a few planes (each twice: the
// second run reuses the second buffer, poisoned first), or with the step prefilter.
Outcome filter_on_slab(const GridShape& shape, std::int64_t fields, std::int64_t len, Mode mode, Path path,
                       const std::vector<float>& samples) {
  Slab sl(0);
  sl.len = len;
  sl.P = shape.stride(0);
  sl.fields = fields;
  const std::int64_t planes = fields * (len + 3);
  sl.data.resize(static_cast<std::size_t>(planes * sl.P));
  SB_CUDA_CHECK(cudaMemcpy(sl.data.data(), samples.data(), samples.size() * sizeof(float), cudaMemcpyHostToDevice));
  double share = path == Path::step ? 0.0 : 1.0;  // no memory for one plane: the step prefilter
  if (path == Path::chunks) {
    std::size_t free_bytes = 0, total_bytes = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Room for 2.5 planes: chunks of 2 planes, or of 1 where gpu_flex also needs a
    // temporary buffer of the output's size.
    share = 2.5 * static_cast<double>(sl.P) * sizeof(float) / static_cast<double>(free_bytes);
  }
  Outcome out;
  out.method = gpu::slabs::enqueue_inner_axes(sl, shape, fields, mode, share);
  if (path != Path::step && out.method.flex) {
    SB_CUDA_CHECK(cudaStreamSynchronize(sl.stream));
    SB_CUDA_CHECK(cudaMemset(sl.inner_out.data(), 0xFF, sl.inner_out.bytes()));
    SB_CUDA_CHECK(cudaMemcpy(sl.data.data(), samples.data(), samples.size() * sizeof(float), cudaMemcpyHostToDevice));
    const std::size_t kept = sl.inner_out.size();
    const InnerMethod first = out.method;
    out.method = gpu::slabs::enqueue_inner_axes(sl, shape, fields, mode, share);
    EXPECT_EQ(sl.inner_out.size(), kept) << "the second run reuses the second buffer";
    EXPECT_EQ(out.method.chunk_planes, first.chunk_planes) << "and filters as many planes per launch";
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(sl.stream));
  out.planes.assign(samples.size(), 0.0f);
  SB_CUDA_CHECK(cudaMemcpy(out.planes.data(), sl.data.data(), samples.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

struct InnerCase {
  std::vector<std::int64_t> extents;
  int channels;
  std::int64_t fields;
  std::int64_t len;
};

class SlabInner : public ::testing::TestWithParam<InnerCase> {};

TEST_P(SlabInner, MatchesTheOracleWholeAndInChunks) {
  SB_REQUIRE_CUDA_DEVICE();
  const InnerCase c = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const GridShape inner = gpu::slabs::inner_shape(shape);
  const std::int64_t planes = c.fields * (c.len + 3);
  GridShape planes_shape = shape;
  planes_shape.extent[0] = planes;
  const std::vector<float> samples = datasets::make_field(datasets::FieldKind::noise, planes_shape, 1, 17);
  std::vector<double> expected;
  for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
    expected.assign(samples.begin(), samples.end());
    oracle::prefilter(inner, planes, expected.data(), mode);
    const double bound = f32_accuracy::prefilter_rel_l2_bound(inner);
    for (Path path : {Path::whole, Path::chunks, Path::step}) {
      const std::string what = shape.to_string() + " C" + std::to_string(c.channels) + " " +
                               std::string(to_string(mode)) +
                               (path == Path::whole ? " whole" : path == Path::chunks ? " chunks" : " step");
      const Outcome got = filter_on_slab(shape, c.fields, c.len, mode, path, samples);
      if (path == Path::step) {
        EXPECT_FALSE(got.method.flex) << what << ": no memory for gpu_flex's output";
        EXPECT_NE(got.method.why_step.find("memory"), std::string::npos) << what << ": " << got.method.why_step;
      } else {
        ASSERT_TRUE(got.method.flex) << what << ": " << got.method.why_step;
        if (path == Path::whole)
          EXPECT_EQ(got.method.chunk_planes, planes) << what;
        else
          EXPECT_LT(got.method.chunk_planes, planes) << what << ": the small share must force chunks";
      }
      EXPECT_EQ(got.method.planes, planes) << what;
      EXPECT_EQ(count_nan(got.planes), 0) << what;
      EXPECT_LE(rel_l2(got.planes, expected), bound) << what << " (" << gpu::slabs::describe(got.method) << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SlabInner,
                         ::testing::Values(InnerCase{{9, 70}, 1, 1, 5}, InnerCase{{6, 33, 40}, 1, 2, 3},
                                           InnerCase{{4, 17, 12}, 2, 1, 1}, InnerCase{{3, 20, 9}, 4, 1, 2},
                                           InnerCase{{5, 6, 7, 9}, 1, 1, 2}, InnerCase{{2, 300}, 1, 3, 4}));

}  // namespace
}  // namespace splinebench::gpu_tests
