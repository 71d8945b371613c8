// The matrix-free operator A = F^T F + lambda R (gpu_operator.hpp) as a device object that
// solvers build on: it holds the grid, the samples sorted by cell and their f32 fractions,
// and applies A to device vectors without forming a matrix. Vectors are f32 on the device,
// in the grid's C order (rows() values); every call is asynchronous on `stream` unless it
// returns a host value.
//
// Deterministic: no float atomics, every sum in a fixed order, so a run repeats bit for bit.
#pragma once

#include <memory>

#include "grid_layout.hpp"

struct CUstream_st;
using cudaStream_t = CUstream_st*;  // as cuda_runtime_api.h declares it

namespace splinebench::scattered::gpu::detail {

class DeviceGrid;
struct DeviceSamples;

class MatrixFreeOperator {
 public:
  // Uploads and sorts the samples (throws Unsupported when the device lacks the memory).
  MatrixFreeOperator(const GridLayout& layout, const SampleArrays& samples);
  ~MatrixFreeOperator();
  MatrixFreeOperator(const MatrixFreeOperator&) = delete;
  MatrixFreeOperator& operator=(const MatrixFreeOperator&) = delete;

  long long rows() const;
  long long samples() const;
  const GridLayout& layout() const;

  // ap = A p (device pointers, rows() each; p and ap must not alias).
  void apply(const float* p, float* ap, cudaStream_t stream = nullptr);
  // d = diag(A) = sum over the samples of w_k(s)^2 + lambda R_kk, summed in f64, rounded once.
  void diagonal(float* d, cudaStream_t stream = nullptr);
  // b = F^T f summed in f64, rounded once; returns ||F^T f|| of the f64 vector (synchronises).
  double rhs(float* b, cudaStream_t stream = nullptr);

  // The grid and the samples sorted by cell that the operator holds (device_grid.cuh), for
  // the level's stencil formed from the same samples (stencil_level.cuh).
  const DeviceGrid& device_grid() const;
  const DeviceSamples& sorted_samples() const;

  double upload_s = 0;  // host to device copy of the samples (wall)
  double sort_s = 0;    // sort by cell and the fractions (device)

  struct Impl;

 private:
  friend struct OperatorProfiler;  // times the two kernels of apply() one by one
  std::unique_ptr<Impl> impl_;
};

}  // namespace splinebench::scattered::gpu::detail
