#include "gpu_slabs/slab_halo.hpp"

#include "gpu_slabs/slab_kernels.hpp"

namespace splinebench::gpu::slabs {

void enqueue_halos(SlabSet& set) {
  const int S = set.count();
  // Every pack first, so no slab's stream waits behind another's unpacks.
  for (int s = 0; s < S; ++s)
    for (HaloLink& link : set.slab(s).halo) {
      Slab& owner = set.slab(link.owner);
      DeviceGuard g(owner.device);
      copy_planes({owner.P, owner.fields}, owner.interior() + link.owner_plane * owner.P, owner.pitch(),
                  link.send.data(), owner.P, owner.stream);
      link.packed->record(owner.stream);
    }
  for (int s = 0; s < S; ++s) {
    Slab& sl = set.slab(s);
    DeviceGuard g(sl.device);
    for (HaloLink& link : sl.halo) {
      link.packed->make_wait(sl.stream);
      peer_copy(link.recv.data(), sl.device, link.send.data(), link.send_device, sl.set_values(), sl.stream);
      copy_planes({sl.P, sl.fields}, link.recv.data(), sl.P, sl.ext() + link.ext_plane * sl.P, sl.pitch(), sl.stream);
    }
  }
}

}  // namespace splinebench::gpu::slabs
