// What ranks holding one slab each exchange: sums of planes over all ranks and planes
// passed between two ranks. Implemented by threads of one process (ThreadSlabGroup,
// below) and by MPI processes (tools/slab_mpi/).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace splinebench::slab {

class SlabComm {
 public:
  virtual ~SlabComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Element-wise sum over all ranks, the result on every rank; every rank calls it.
  virtual void allreduce_sum(double* values, std::int64_t count) = 0;
  virtual void allreduce_sum(float* values, std::int64_t count) = 0;
  // Point to point: `send` returns without waiting for the receiver (the bytes are
  // copied); messages from one rank to another with one tag arrive in order.
  virtual void send(int to, int tag, const void* bytes, std::int64_t size) = 0;
  virtual void recv(int from, int tag, void* bytes, std::int64_t size) = 0;
};

template <typename Real>
void send_values(SlabComm& comm, int to, int tag, const Real* values, std::int64_t count) {
  comm.send(to, tag, values, count * static_cast<std::int64_t>(sizeof(Real)));
}
template <typename Real>
void recv_values(SlabComm& comm, int from, int tag, Real* values, std::int64_t count) {
  comm.recv(from, tag, values, count * static_cast<std::int64_t>(sizeof(Real)));
}

// The ranks of one process, one thread each: make the group, give rank(r) to thread r.
class ThreadSlabGroup {
 public:
  explicit ThreadSlabGroup(int ranks);
  ~ThreadSlabGroup();
  ThreadSlabGroup(const ThreadSlabGroup&) = delete;
  ThreadSlabGroup& operator=(const ThreadSlabGroup&) = delete;
  SlabComm& rank(int r);

 private:
  friend class ThreadSlabRank;
  template <typename Real>
  void allreduce(int r, Real* values, std::int64_t count);

  int ranks_;
  std::vector<std::unique_ptr<SlabComm>> endpoints_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Mailboxes by (from, to, tag), each a queue of messages.
  std::map<std::tuple<int, int, int>, std::vector<std::vector<unsigned char>>> mail_;
  // The all-reduce: ranks add into `sum_` in turn; the last to arrive publishes.
  std::vector<double> sum_;
  int arrived_ = 0;
  int left_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace splinebench::slab
