// The extended planes of every slab (slab_route.hpp): after the prefilter (or the upload
// of coefficients), each slab's halo planes 0, len + 1 and len + 2 receive the planes the
// mode's extension puts there: the neighbouring slabs' boundary planes, or at the ends of
// the line the folded planes (for periodic, the far end's). Each halo plane set is packed
// on its owner's device, copied to the slab's device with a peer copy, and unpacked.
// Enqueued between a fork and a join of the set.
#pragma once

#include "gpu_slabs/slab_devices.hpp"

namespace splinebench::gpu::slabs {

// The set is configured (halo links placed) and every slab's interior planes are final.
void enqueue_halos(SlabSet& set);

}  // namespace splinebench::gpu::slabs
