#include "unbuilt.hpp"

#include "splinebench/error.hpp"

namespace splinebench::impls {
namespace {

class Unbuilt final : public Implementation {
 public:
  Unbuilt(std::string name, Device device, std::string reason)
      : name_(std::move(name)), device_(device), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return reason_; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device = device_;
    return caps;
  }
  Availability availability() const override { return {false, reason_}; }
  Tolerance tolerance(const GridShape&) const override { return {}; }
  void prepare(const GridShape&, std::int64_t, const float*, Mode, bool, PhaseTimes&) override {
    throw Unsupported(name_ + ": " + reason_);
  }
  void read_coefficients(float*, PhaseTimes&) override { throw Unsupported(name_ + ": " + reason_); }
  void evaluate(const float*, std::int64_t, float*, PhaseTimes&) override {
    throw Unsupported(name_ + ": " + reason_);
  }

 private:
  std::string name_;
  Device device_;
  std::string reason_;
};

}  // namespace

ImplementationPtr make_unbuilt(std::string name, Device device, std::string reason) {
  return std::make_unique<Unbuilt>(std::move(name), device, std::move(reason));
}

}  // namespace splinebench::impls
