// Test-only implementations (never in the registry): a delegating wrapper whose
// results can be corrupted on purpose, and small fakes for plan and skip tests.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "splinebench/error.hpp"
#include "splinebench/implementation.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::testing {

// Forwards to a real implementation and then, optionally, damages its output.
class Tampered final : public Implementation {
 public:
  enum class Damage { none, one_coefficient, one_value, unwritten_value, first_repetition_only_unwritten };

  Tampered(std::string_view inner, Damage damage) : inner_(make_implementation(inner)), damage_(damage) {}

  std::string_view name() const override { return "tampered"; }
  std::string_view description() const override { return "test wrapper that damages results on purpose"; }
  Capabilities capabilities() const override { return inner_->capabilities(); }
  Availability availability() const override { return inner_->availability(); }
  Tolerance tolerance(const GridShape& shape) const override { return inner_->tolerance(shape); }
  void configure(const Options& o) override { inner_->configure(o); }
  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    values_ = shape.values() * fields;
    channels_ = shape.channels;
    inner_->prepare(shape, fields, input, mode, prefilter, times);
  }
  void read_coefficients(float* out, PhaseTimes& times) override {
    inner_->read_coefficients(out, times);
    // A 1e-3 error in one coefficient out of many: far above any float rounding.
    if (damage_ == Damage::one_coefficient) out[values_ / 2] += 1e-3f;
  }
  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    inner_->evaluate(coords, n, out, times);
    ++evaluations_;
    if (damage_ == Damage::one_value) out[(n / 2) * channels_] += 1e-3f;
    // Leave one output as it was handed over (the harness poisons it with NaN).
    if (damage_ == Damage::unwritten_value) out[n - 1] = std::numeric_limits<float>::quiet_NaN();
    if (damage_ == Damage::first_repetition_only_unwritten && evaluations_ == 1)
      out[0] = std::numeric_limits<float>::quiet_NaN();
  }
  void release() override { inner_->release(); }

 private:
  ImplementationPtr inner_;
  Damage damage_;
  std::int64_t values_ = 0;
  int channels_ = 1;
  int evaluations_ = 0;
};

// Minimal implementation with configurable capabilities and behaviour; its results
// are never checked by the tests that use it for planning or skipping.
class Fake final : public Implementation {
 public:
  Fake(std::string name, Capabilities caps, Availability avail = {}) : name_(std::move(name)), caps_(caps), avail_(avail) {}
  std::function<void()> on_prepare;  // e.g. throw Unsupported / runtime_error
  int prepares = 0;

  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "test fake"; }
  Capabilities capabilities() const override { return caps_; }
  Availability availability() const override { return avail_; }
  Tolerance tolerance(const GridShape&) const override { return {1, 1, "test fake"}; }
  void prepare(const GridShape&, std::int64_t, const float*, Mode, bool, PhaseTimes& times) override {
    times.add(phase::prefilter, 0.0);
    ++prepares;
    if (on_prepare) on_prepare();
  }
  void read_coefficients(float*, PhaseTimes&) override {}
  void evaluate(const float*, std::int64_t, float*, PhaseTimes&) override {}

 private:
  std::string name_;
  Capabilities caps_;
  Availability avail_;
};

inline Capabilities threaded_caps() {
  Capabilities c;
  c.threads = true;
  return c;
}
inline Capabilities gpu_caps() {
  Capabilities c;
  c.device = Device::gpu;
  return c;
}

// A registry for plan tests, independent of what the build registers.
inline const std::vector<RegistryEntry>& fake_registry() {
  static const std::vector<RegistryEntry> entries = {
      {"cpu_a", Device::cpu, [] { return ImplementationPtr(new Fake("cpu_a", Capabilities{})); }},
      {"cpu_mt", Device::cpu, [] { return ImplementationPtr(new Fake("cpu_mt", threaded_caps())); }},
      {"gpu_x", Device::gpu,
       [] { return ImplementationPtr(new Fake("gpu_x", gpu_caps(), {false, "not available: no CUDA device"})); }},
  };
  return entries;
}

}  // namespace splinebench::testing
