#include "splinebench/distributed/mpi_slab_comm.hpp"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <list>
#include <stdexcept>
#include <string>
#include <vector>

namespace splinebench::distributed {
namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(length)));
}

int as_count(std::int64_t n) {
  if (n < 0 || n > INT_MAX) throw std::invalid_argument("MPI message of " + std::to_string(n) + " elements");
  return static_cast<int>(n);
}

class MpiSlabComm final : public slab::SlabComm {
 public:
  MpiSlabComm() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  ~MpiSlabComm() override { wait_sends(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(double* v, std::int64_t count) override {
    check(MPI_Allreduce(MPI_IN_PLACE, v, as_count(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  }
  void allreduce_sum(float* v, std::int64_t count) override {
    check(MPI_Allreduce(MPI_IN_PLACE, v, as_count(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  }
  // The bytes are copied and sent without waiting; finished sends are reaped as new ones
  // start, the rest before MPI_Finalize.
  void send(int to, int tag, const void* bytes, std::int64_t size) override {
    reap_sends();
    pending_.emplace_back();
    Pending& p = pending_.back();
    const auto* b = static_cast<const unsigned char*>(bytes);
    p.bytes.assign(b, b + size);
    check(MPI_Isend(p.bytes.data(), as_count(size), MPI_BYTE, to, tag, MPI_COMM_WORLD, &p.request), "MPI_Isend");
  }
  void recv(int from, int tag, void* bytes, std::int64_t size) override {
    MPI_Status status;
    check(MPI_Recv(bytes, as_count(size), MPI_BYTE, from, tag, MPI_COMM_WORLD, &status), "MPI_Recv");
    int got = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &got), "MPI_Get_count");
    if (got != size)
      throw std::logic_error("MPI rank " + std::to_string(rank_) + " expected " + std::to_string(size) +
                             " bytes from rank " + std::to_string(from) + ", got " + std::to_string(got));
  }
  void wait_sends() {
    for (Pending& p : pending_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
    pending_.clear();
  }

 private:
  struct Pending {
    std::vector<unsigned char> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  void reap_sends() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int done = 0;
      check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      it = done ? pending_.erase(it) : std::next(it);
    }
  }
  int rank_ = 0, size_ = 1;
  std::list<Pending> pending_;  // a list: a request's buffer must not move while in flight
};

}  // namespace

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw std::logic_error("MpiSession: MPI is already initialised");
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  world_ = std::make_unique<MpiSlabComm>();
}

MpiSession::~MpiSession() {
  world_.reset();
  MPI_Finalize();
}

slab::SlabComm& MpiSession::world() { return *world_; }

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace splinebench::distributed
