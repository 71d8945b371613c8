// The inner axes 1..D-1 of every slab with gpu_flex's single-launch tiles. A line along
// an inner axis lies inside one plane, so a slab's `fields x (len + 3)` extended planes
// are that many independent (D-1)-dimensional fields, filtered as one batch. gpu_flex
// works out of place, so each slab keeps a second buffer: the whole slab's size when the
// device has room (the result is then swapped in as the slab's data, no copy), otherwise
// a chunk of planes filtered and copied back chunk by chunk. Where gpu_flex cannot take
// the planes (channels other than 1, 2, 4; a tile that does not fit; no memory for one
// plane) the slab falls back to gpu_common's step prefilter, one launch per axis.
#pragma once

#include <cstdint>
#include <string>

#include "gpu_slabs/slab_devices.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::slabs {

// How one slab's inner axes were filtered in the last enqueue_inner_axes.
struct InnerMethod {
  bool flex = false;            // gpu_flex tiles (else the step prefilter)
  std::int64_t chunk_planes = 0;  // planes per gpu_flex launch (== all: swapped in)
  std::int64_t planes = 0;      // fields x (len + 3)
  std::string why_step;         // why the step prefilter, when it is used
};

// The planes' shape as a (D-1)-dimensional field: extents 1..D-1, the same channels.
GridShape inner_shape(const GridShape& shape);

// Enqueues on the slab's stream (its device made current for the call) the prefilter
// along axes 1..D-1 of all of the slab's extended planes (the halo planes' lines too:
// the halo exchange overwrites them). `share_of_free` is the fraction of the device's
// free memory this slab may take for its second buffer (slabs sharing a device split
// it). May replace `slab.data` by the slab's second buffer (the pointers taken before
// the call are then stale).
InnerMethod enqueue_inner_axes(Slab& slab, const GridShape& shape, std::int64_t fields, Mode mode,
                               double share_of_free);

// "gpu_flex tiles, whole slab" / "gpu_flex tiles, chunks of K planes" / "step (why)".
std::string describe(const InnerMethod& m);

}  // namespace splinebench::gpu::slabs
