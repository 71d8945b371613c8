// The SlabComm of MPI processes (MPI_COMM_WORLD): one rank per process, started by
// mpirun or srun. Planes are small (one per slab boundary), so host buffers suffice; no
// CUDA-aware MPI is needed.
#pragma once

#include <cstdint>
#include <memory>

#include "splinebench/slab_comm.hpp"

namespace splinebench::distributed {

// MPI_Init on construction, MPI_Finalize on destruction (after every pending send).
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  slab::SlabComm& world();
  // Ends every rank's process with `code` (a rank that failed cannot leave the others
  // waiting in a collective).
  [[noreturn]] static void abort(int code);

 private:
  std::unique_ptr<slab::SlabComm> world_;
};

}  // namespace splinebench::distributed
