// What ranks holding one slab each exchange: sums of planes over all ranks and planes
// passed between two ranks. Implemented by threads of one process (ThreadSlabGroup,
// below) and by MPI processes (tools/slab_mpi/).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
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

// Thrown in the ranks left waiting when another rank of a ThreadSlabGroup failed.
struct PeerRankFailed : std::runtime_error {
  PeerRankFailed() : std::runtime_error("another rank failed") {}
};

// The ranks of one process, one thread each: make the group, give rank(r) to thread r
// (run_thread_ranks below does both).
class ThreadSlabGroup {
 public:
  explicit ThreadSlabGroup(int ranks);
  ~ThreadSlabGroup();
  ThreadSlabGroup(const ThreadSlabGroup&) = delete;
  ThreadSlabGroup& operator=(const ThreadSlabGroup&) = delete;
  SlabComm& rank(int r);
  // A rank failed: every rank waiting for a message or a sum, now or later, throws
  // PeerRankFailed instead of waiting for ever.
  void fail();

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
  bool failed_ = false;
};

// Runs body(comm) on `ranks` threads, one rank each; rethrows the failing rank's own
// exception (not the PeerRankFailed of the ranks it left waiting).
template <typename Body>
void run_thread_ranks(int ranks, Body body) {
  ThreadSlabGroup group(ranks);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&group, &errors, &body, r] {
      try {
        body(group.rank(r));
      } catch (const PeerRankFailed&) {
        errors[r] = std::current_exception();
      } catch (...) {
        errors[r] = std::current_exception();
        group.fail();
      }
    });
  for (auto& t : threads) t.join();
  std::exception_ptr peer_only;
  for (auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const PeerRankFailed&) {
      peer_only = e;
    } catch (...) {
      throw;
    }
  }
  if (peer_only) std::rethrow_exception(peer_only);
}

}  // namespace splinebench::slab
