// A float array aligned to 64 bytes (one cache line, one AVX-512 vector), so that
// full-vector loads of aligned rows never straddle two cache lines.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace splinebench::cpu {

class AlignedFloats {
 public:
  static constexpr std::size_t kAlignment = 64;

  AlignedFloats() = default;
  // Contents are uninitialised; the caller writes every element before reading.
  void resize(std::size_t count) {
    if (count == size_) return;
    data_.reset();
    size_ = 0;
    if (count == 0) return;
    const std::size_t bytes = (count * sizeof(float) + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, bytes);
    if (p == nullptr) throw std::bad_alloc();
    data_.reset(static_cast<float*>(p));
    size_ = count;
  }
  void clear() { resize(0); }
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace splinebench::cpu
