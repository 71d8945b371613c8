#include "splinebench/slab_comm.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace splinebench::slab {

class ThreadSlabRank final : public SlabComm {
 public:
  ThreadSlabRank(ThreadSlabGroup& group, int r) : group_(group), rank_(r) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.ranks_; }
  void allreduce_sum(double* values, std::int64_t count) override { group_.allreduce(rank_, values, count); }
  void allreduce_sum(float* values, std::int64_t count) override { group_.allreduce(rank_, values, count); }

  void send(int to, int tag, const void* bytes, std::int64_t size) override {
    check_peer(to);
    const auto* b = static_cast<const unsigned char*>(bytes);
    std::lock_guard<std::mutex> lock(group_.mutex_);
    group_.mail_[{rank_, to, tag}].emplace_back(b, b + size);
    group_.changed_.notify_all();
  }

  void recv(int from, int tag, void* bytes, std::int64_t size) override {
    check_peer(from);
    std::unique_lock<std::mutex> lock(group_.mutex_);
    auto& queue = group_.mail_[{from, rank_, tag}];
    group_.changed_.wait(lock, [&] { return !queue.empty() || group_.failed_; });
    if (queue.empty()) throw PeerRankFailed();
    if (static_cast<std::int64_t>(queue.front().size()) != size)
      throw std::logic_error("ThreadSlabGroup: rank " + std::to_string(rank_) + " expected " + std::to_string(size) +
                             " bytes from rank " + std::to_string(from) + ", got " +
                             std::to_string(queue.front().size()));
    std::memcpy(bytes, queue.front().data(), static_cast<std::size_t>(size));
    queue.erase(queue.begin());
  }

 private:
  void check_peer(int r) const {
    if (r < 0 || r >= group_.ranks_ || r == rank_)
      throw std::logic_error("ThreadSlabGroup: rank " + std::to_string(rank_) + " cannot talk to rank " +
                             std::to_string(r));
  }
  ThreadSlabGroup& group_;
  int rank_;
};

ThreadSlabGroup::ThreadSlabGroup(int ranks) : ranks_(ranks) {
  if (ranks < 1) throw std::invalid_argument("ThreadSlabGroup: at least one rank");
  for (int r = 0; r < ranks; ++r) endpoints_.push_back(std::make_unique<ThreadSlabRank>(*this, r));
}

ThreadSlabGroup::~ThreadSlabGroup() = default;

SlabComm& ThreadSlabGroup::rank(int r) { return *endpoints_.at(static_cast<std::size_t>(r)); }

void ThreadSlabGroup::fail() {
  std::lock_guard<std::mutex> lock(mutex_);
  failed_ = true;
  changed_.notify_all();
}

template <typename Real>
void ThreadSlabGroup::allreduce(int r, Real* values, std::int64_t count) {
  (void)r;
  std::unique_lock<std::mutex> lock(mutex_);
  // A rank that runs ahead waits until every rank has read the previous sum.
  changed_.wait(lock, [&] { return left_ == 0 || failed_; });
  if (failed_) throw PeerRankFailed();
  if (arrived_ == 0) sum_.assign(static_cast<std::size_t>(count), 0.0);
  if (static_cast<std::int64_t>(sum_.size()) != count)
    throw std::logic_error("ThreadSlabGroup: ranks reduce different counts");
  for (std::int64_t i = 0; i < count; ++i) sum_[i] += static_cast<double>(values[i]);
  const std::uint64_t generation = generation_;
  if (++arrived_ == ranks_) {
    arrived_ = 0;
    left_ = ranks_;
    ++generation_;
    changed_.notify_all();
  } else {
    changed_.wait(lock, [&] { return generation_ != generation || failed_; });
    if (generation_ == generation) throw PeerRankFailed();
  }
  for (std::int64_t i = 0; i < count; ++i) values[i] = static_cast<Real>(sum_[i]);
  if (--left_ == 0) changed_.notify_all();
}

template void ThreadSlabGroup::allreduce<float>(int, float*, std::int64_t);
template void ThreadSlabGroup::allreduce<double>(int, double*, std::int64_t);

}  // namespace splinebench::slab
