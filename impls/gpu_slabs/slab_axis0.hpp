// The exact prefilter along axis 0 with each slab on its device: the steps of
// slab_steps.hpp in the order of oracle::prefilter_slabs, each slab's work on its own
// stream, the exchanges as peer copies ordered by events:
//   causal       1. every slab's share of the initial value (weighted_sum), gathered on
//                   slab 0's device and summed there in slab order, / the norm;
//                2. every slab's recursion from zero state (slab 0 from that value);
//                3. the carry, slab to slab in order (one plane set per boundary);
//                4. the correction of each slab's first correction_depth planes;
//   anti-causal  5. the initial value at plane n-1 on the last slab's device: mirror from
//                   planes n-1 and n-2 (n-2 is the causal carry from the previous slab
//                   when the last slab is one plane thick), half from n-1, periodic the
//                   shares of every slab gathered and summed in order;
//                6. every slab's recursion from zero state at its last plane (the last
//                   slab from that value);
//                7. the carry, slab to slab backwards;
//                8. the correction of each slab's last correction_depth planes.
// Enqueued between a fork and a join of the set (no host synchronisation inside).
#pragma once

#include "gpu_slabs/slab_devices.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::slabs {

// The set is configured for `layout`, and the slabs' interior planes hold the samples
// filtered along axes 1..D-1.
void enqueue_axis0(SlabSet& set, const SlabLayout& layout, Mode mode);

}  // namespace splinebench::gpu::slabs
