// `cpu_slabs`: the field split along axis 0 into slabs, one per thread rank, as ranks on
// several devices or hosts hold it (slab_ranks.hpp through ThreadSlabGroup): each rank
// prefilters its slab exchanging one plane per boundary (no halo), keeps a 3-plane
// overlap, and evaluates the queries whose footprint its slab holds. The harness's view
// of the multi-device scheme's arithmetic: the same steps the GPU and MPI ranks run.
#include <algorithm>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/implementation.hpp"
#include "splinebench/slab_comm.hpp"
#include "splinebench/slab_ranks.hpp"

namespace splinebench::impls {
namespace {

class CpuSlabs final : public Implementation {
 public:
  std::string_view name() const override { return "cpu_slabs"; }
  std::string_view description() const override {
    return "float32, axis 0 split into slabs, one thread rank each (at least 2): exact prefilter with one plane "
           "exchanged per boundary, queries routed to the slab holding their footprint";
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.threads = true;
    return c;
  }
  Availability availability() const override { return {}; }
  Tolerance tolerance(const GridShape& shape) const override {
    Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
    t.basis = "cpu_scalar's float recursion per slab; the carries add one rounding per corrected plane and are "
              "truncated below f32 rounding (slab_steps.hpp): " + t.basis;
    return t;
  }
  std::string evaluation() const override { return "f32 coefficients, f64 tap sums"; }
  std::vector<std::pair<std::string, int>> threads_used() const override {
    return {{"prefilter", ranks_}, {"evaluate", ranks_}};
  }
  void configure(const Options& options) override { threads_ = std::max(1, options.threads); }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    shape.validate();
    shape_ = shape;
    fields_ = fields;
    mode_ = mode;
    const std::int64_t n = shape.extent[0], P = shape.stride(0);
    // Two ranks at least, so the exchange always runs; no more than planes.
    ranks_ = static_cast<int>(std::min<std::int64_t>(std::max(2, threads_), n));
    starts_ = slab::balanced_starts(n, ranks_);
    std::vector<std::vector<float>> slabs(static_cast<std::size_t>(ranks_));
    {
      ScopedPhase p(times, phase::upload);
      for (int r = 0; r < ranks_; ++r) {
        const slab::SlabSpan s = slab::span_of(starts_, r, n, P);
        for (std::int64_t f = 0; f < fields; ++f) {
          const float* from = input + f * shape.values() + s.start * P;
          slabs[r].insert(slabs[r].end(), from, from + s.len * P);
        }
      }
    }
    extended_.assign(static_cast<std::size_t>(ranks_), {});
    for (int r = 0; r < ranks_; ++r)
      extended_[r].resize(static_cast<std::size_t>(fields * (slab::span_of(starts_, r, n, P).len + 3) * P));
    if (prefilter) {
      ScopedPhase p(times, phase::prefilter);
      on_ranks([&](slab::SlabComm& comm) {
        slab::prefilter_rank(comm, shape_, fields_, slabs[comm.rank()].data(), mode_, starts_);
      });
    }
    ScopedPhase p(times, phase::bind);  // the overlap planes from their owners
    on_ranks([&](slab::SlabComm& comm) {
      slab::extend_rank(comm, shape_, fields_, slabs[comm.rank()].data(), mode_, starts_,
                        extended_[comm.rank()].data());
    });
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::readback);
    const std::int64_t n = shape_.extent[0], P = shape_.stride(0);
    for (int r = 0; r < ranks_; ++r) {
      const slab::SlabSpan s = slab::span_of(starts_, r, n, P);
      for (std::int64_t f = 0; f < fields_; ++f) {
        const float* from = extended_[r].data() + (f * (s.len + 3) + 1) * P;  // local plane 1 is plane start
        std::copy(from, from + s.len * P, out + f * shape_.values() + s.start * P);
      }
    }
  }

  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::evaluate);
    on_ranks([&](slab::SlabComm& comm) {
      const bool root = comm.rank() == 0;
      slab::evaluate_ranks(comm, shape_, fields_, extended_[comm.rank()].data(), mode_, starts_,
                           root ? coords : nullptr, root ? n : 0, root ? out : nullptr);
    });
  }

  void release() override { extended_ = {}; }

 private:
  template <typename Body>
  void on_ranks(Body body) {
    slab::run_thread_ranks(ranks_, body);
  }

  GridShape shape_;
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  int threads_ = 1;
  int ranks_ = 1;
  std::vector<std::int64_t> starts_;
  std::vector<std::vector<float>> extended_;
};

}  // namespace

ImplementationPtr make_cpu_slabs() { return std::make_unique<CpuSlabs>(); }

}  // namespace splinebench::impls
