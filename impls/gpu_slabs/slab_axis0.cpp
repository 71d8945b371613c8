#include "gpu_slabs/slab_axis0.hpp"

#include <vector>

#include "gpu_slabs/slab_kernels.hpp"
#include "gpu_slabs/slab_terms.hpp"
#include "splinebench/bspline_math.hpp"
#include "splinebench/slab_steps.hpp"

namespace splinebench::gpu::slabs {
namespace {

// Copies slab `from`'s scratch set `what` into `into` (a set on slab `to`'s device), on
// slab `to`'s stream after `ready` (recorded on `from`'s stream).
void pull_set(SlabSet& set, int from, Scratch what, const SyncEvent& ready, int to, float* into) {
  Slab& src = set.slab(from);
  Slab& dst = set.slab(to);
  DeviceGuard g(dst.device);
  ready.make_wait(dst.stream);
  peer_copy(into, dst.device, src.set(what), src.device, dst.set_values(), dst.stream);
}

}  // namespace

void enqueue_axis0(SlabSet& set, const SlabLayout& layout, Mode mode) {
  const std::int64_t n = layout.n;
  if (n == 1 && mode == Mode::mirror) return;  // c = f, as prefilter_line
  const int S = set.count();
  const int last = S - 1;
  const PolePowers zp(2 * n + 1);
  const double zd = bspline::kPole;
  const float z = static_cast<float>(zd);
  const float gain = static_cast<float>(bspline::kGain);
  const std::int64_t depth = slab::correction_depth<float>();
  auto geometry = [&](const Slab& sl) { return PlaneGeometry{sl.P, sl.fields}; };

  // Step 1 on every slab, then (slabs 1..S-1) step 2 from zero state.
  for (int s = 0; s < S; ++s) {
    Slab& sl = set.slab(s);
    DeviceGuard g(sl.device);
    weighted_sum(geometry(sl), causal_share_terms(mode, n, sl.start, sl.len, zp), sl.interior(), sl.pitch(),
                 sl.set(kShareCausal), sl.stream);
    sl.share_ready->record(sl.stream);
    if (s > 0) causal_from_zero(geometry(sl), sl.interior(), sl.pitch(), sl.len, nullptr, z, gain, sl.stream);
  }

  // The shares summed in slab order on slab 0, the initial value, slab 0's recursion and
  // its carry.
  {
    Slab& s0 = set.slab(0);
    for (int s = 0; s < S; ++s)
      pull_set(set, s, kShareCausal, *set.slab(s).share_ready, 0, s0.gather.data() + s * s0.set_values());
    DeviceGuard g(s0.device);
    const double norm = mode == Mode::mirror ? 1.0 - zp(2 * n - 2) : mode == Mode::half ? 1.0 - zp(2 * n) : 1.0 - zp(n);
    sum_shares(geometry(s0), s0.gather.data(), S, 1.0f, static_cast<float>(norm), s0.set(kInitCausal), s0.stream);
    causal_from_zero(geometry(s0), s0.interior(), s0.pitch(), s0.len, s0.set(kInitCausal), z, gain, s0.stream);
    plane_carry(geometry(s0), s0.interior() + (s0.len - 1) * s0.P, s0.pitch(), nullptr, 0.0f, s0.set(kCarryCausalOut),
                s0.stream);
    s0.carry_ready->record(s0.stream);
  }

  // Steps 3 and 4, slab to slab forwards: the carry before the correction changes the
  // planes it reads.
  for (int s = 1; s < S; ++s) {
    Slab& sl = set.slab(s);
    pull_set(set, s - 1, kCarryCausalOut, *set.slab(s - 1).carry_ready, s, sl.set(kCarryCausalIn));
    DeviceGuard g(sl.device);
    plane_carry(geometry(sl), sl.interior() + (sl.len - 1) * sl.P, sl.pitch(), sl.set(kCarryCausalIn),
                zp.as_float(sl.len), sl.set(kCarryCausalOut), sl.stream);
    sl.carry_ready->record(sl.stream);
    add_weighted(geometry(sl), causal_correction_terms(sl.len, depth, zp), sl.interior(), sl.pitch(),
                 sl.set(kCarryCausalIn), sl.stream);
  }

  // Step 5: the anti-causal initial value on the last slab.
  Slab& sl_last = set.slab(last);
  if (mode == Mode::periodic) {
    for (int s = 0; s < S; ++s) {
      Slab& sl = set.slab(s);
      DeviceGuard g(sl.device);
      weighted_sum(geometry(sl), periodic_share_terms(n, sl.start, sl.len, zp), sl.interior(), sl.pitch(),
                   sl.set(kShareAnticausal), sl.stream);
      sl.anti_share_ready->record(sl.stream);
    }
    for (int s = 0; s < S; ++s)
      pull_set(set, s, kShareAnticausal, *set.slab(s).anti_share_ready, last,
           sl_last.gather.data() + s * sl_last.set_values());
    DeviceGuard g(sl_last.device);
    sum_shares(geometry(sl_last), sl_last.gather.data(), S, -z, static_cast<float>(1.0 - zp(n)),
               sl_last.set(kInitAnticausal), sl_last.stream);
  } else {
    DeviceGuard g(sl_last.device);
    const float* n1 = sl_last.interior() + (sl_last.len - 1) * sl_last.P;
    const float* n2 = nullptr;
    std::int64_t n2_pitch = 0;
    if (mode == Mode::mirror) {
      // Plane n-2: in the last slab, or the causal carry it received, which is the
      // previous slab's last plane after its correction.
      if (sl_last.len >= 2) {
        n2 = sl_last.interior() + (sl_last.len - 2) * sl_last.P;
        n2_pitch = sl_last.pitch();
      } else {
        n2 = sl_last.set(kCarryCausalIn);
        n2_pitch = sl_last.P;
      }
    }
    const double scale = mode == Mode::mirror ? zd / (zd * zd - 1.0) : zd / (zd - 1.0);
    anticausal_last(geometry(sl_last), n1, sl_last.pitch(), n2, n2_pitch, z, static_cast<float>(scale),
                    sl_last.set(kInitAnticausal), sl_last.stream);
  }

  // Step 6 on every slab (the last from the initial value).
  for (int s = 0; s < S; ++s) {
    Slab& sl = set.slab(s);
    DeviceGuard g(sl.device);
    anticausal_from_zero(geometry(sl), sl.interior(), sl.pitch(), sl.len, s == last ? sl.set(kInitAnticausal) : nullptr,
                         z, sl.stream);
  }

  // Steps 7 and 8, slab to slab backwards.
  {
    DeviceGuard g(sl_last.device);
    plane_carry(geometry(sl_last), sl_last.interior(), sl_last.pitch(), nullptr, 0.0f, sl_last.set(kCarryAntiOut),
                sl_last.stream);
    sl_last.anti_carry_ready->record(sl_last.stream);
  }
  for (int s = last - 1; s >= 0; --s) {
    Slab& sl = set.slab(s);
    pull_set(set, s + 1, kCarryAntiOut, *set.slab(s + 1).anti_carry_ready, s, sl.set(kCarryAntiIn));
    DeviceGuard g(sl.device);
    plane_carry(geometry(sl), sl.interior(), sl.pitch(), sl.set(kCarryAntiIn), zp.as_float(sl.len),
                sl.set(kCarryAntiOut), sl.stream);
    sl.anti_carry_ready->record(sl.stream);
    add_weighted(geometry(sl), anticausal_correction_terms(sl.len, depth, zp), sl.interior(), sl.pitch(),
                 sl.set(kCarryAntiIn), sl.stream);
  }
}

}  // namespace splinebench::gpu::slabs
