// The "temp array" GPU prefilter (Ruijters & Thevenaz's first variant): one thread per
// line copies the line into a per-thread local array, runs the causal and anti-causal
// recursions there, and writes the coefficients back; one launch per axis. The line
// array has a compile-time size, so lines longer than kMaxTempLine are refused.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "splinebench/types.hpp"

namespace splinebench::gpu {

// Longest line the local array holds (samples; each a Vec of the channel count).
inline constexpr std::int64_t kMaxTempLine = 2048;

// Empty when every axis of `shape` fits the local array; otherwise why not.
std::string temp_array_why_not(const GridShape& shape);

// Filters every line along `axis` of `fields` fields of `shape`: reads the samples from
// d_src and writes the coefficients to d_dst (device pointers, layout as in
// splinebench/implementation.hpp). d_src may equal d_dst: a thread reads its whole line
// before writing it, and lines are disjoint. Enqueued on `stream`, checked at launch.
// Unsupported when the axis is longer than kMaxTempLine.
void prefilter_axis_temp(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_src, float* d_dst,
                         int axis, cudaStream_t stream);

}  // namespace splinebench::gpu
