// splinebench/cuda/captured_graph.hpp, which MG-PCG's V-cycle graph and the prefilter
// benchmark's graph row stand on: work captured once replays what it enqueued, each time;
// a capture that fails says why, leaves the stream usable and nothing pending, and its
// replay is refused. Skips without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gpu_case.hpp"
#include "splinebench/cuda/captured_graph.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr std::size_t kBytes = 1 << 20;

class CapturedGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SB_REQUIRE_CUDA_DEVICE();
    SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    a_.resize(kBytes);
    b_.resize(kBytes);
  }
  void TearDown() override {
    if (stream_) SB_CUDA_CHECK(cudaStreamDestroy(stream_));
  }
  // Both buffers poisoned (0xFF), then the stream drained.
  void poison() {
    SB_CUDA_CHECK(cudaMemsetAsync(a_.data(), 0xFF, kBytes, stream_));
    SB_CUDA_CHECK(cudaMemsetAsync(b_.data(), 0xFF, kBytes, stream_));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  std::vector<std::uint8_t> read_b() {
    std::vector<std::uint8_t> host(kBytes);
    SB_CUDA_CHECK(cudaMemcpy(host.data(), b_.data(), kBytes, cudaMemcpyDeviceToHost));
    return host;
  }
  cudaStream_t stream_ = nullptr;
  DeviceBuffer<std::uint8_t> a_, b_;
};

TEST_F(CapturedGraphTest, ReplaysWhatTheWorkEnqueuedEachTime) {
  poison();
  const CapturedGraph graph(stream_, [&] {
    SB_CUDA_CHECK(cudaMemsetAsync(a_.data(), 0x5A, kBytes, stream_));
    SB_CUDA_CHECK(cudaMemcpyAsync(b_.data(), a_.data(), kBytes, cudaMemcpyDeviceToDevice, stream_));
  });
  ASSERT_TRUE(graph.captured()) << graph.why();
  EXPECT_TRUE(graph.why().empty());
  // Capturing ran nothing: the buffers still hold the poison.
  SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (const std::uint8_t v : read_b()) ASSERT_EQ(v, 0xFF) << "the capture ran the work";
  for (int replay = 0; replay < 3; ++replay) {
    poison();
    graph.replay();
    SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (const std::uint8_t v : read_b()) ASSERT_EQ(v, 0x5A) << "replay " << replay;
  }
}

TEST_F(CapturedGraphTest, ACaptureThatFailsSaysWhyAndLeavesTheStreamUsable) {
  poison();
  // A synchronisation of the captured stream is not allowed while it is captured.
  const CapturedGraph graph(stream_, [&] {
    SB_CUDA_CHECK(cudaMemsetAsync(a_.data(), 0x5A, kBytes, stream_));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  });
  EXPECT_FALSE(graph.captured());
  EXPECT_FALSE(graph.why().empty());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed capture left an error behind";
  EXPECT_THROW(graph.replay(), Error);
  // The stream works as before, and the work of the failed capture never ran.
  SB_CUDA_CHECK(cudaMemcpyAsync(b_.data(), a_.data(), kBytes, cudaMemcpyDeviceToDevice, stream_));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (const std::uint8_t v : read_b()) ASSERT_EQ(v, 0xFF) << "work of the failed capture ran";
}

TEST_F(CapturedGraphTest, WorkThatThrowsIsAFailedCaptureWithItsMessage) {
  const CapturedGraph graph(stream_, [&] {
    SB_CUDA_CHECK(cudaMemsetAsync(a_.data(), 0, kBytes, stream_));
    throw std::runtime_error("the work refused");
  });
  EXPECT_FALSE(graph.captured());
  EXPECT_EQ(graph.why(), "the work refused");
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace
}  // namespace splinebench::gpu
