#include "work_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace splinebench::cpu {

int hardware_threads() {
  static const int count = [] {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return count;
}

int threads_for_work(int requested, double work, double work_per_thread) {
  const int cap = std::max(1, std::min(requested, hardware_threads()));
  if (!(work_per_thread > 0)) return cap;
  const double shares = std::floor(work / work_per_thread);
  return shares >= cap ? cap : std::max(1, static_cast<int>(shares));
}

namespace detail {

bool Job::claim(std::int64_t& first, std::int64_t& last) {
  std::int64_t at = next.load(std::memory_order_relaxed);
  for (;;) {
    if (at >= items) return false;
    // Guided: a share of what is left, so the first ranges are long and the last short.
    const std::int64_t take = std::max<std::int64_t>(1, (items - at) / (2 * threads));
    if (next.compare_exchange_weak(at, at + take, std::memory_order_relaxed)) {
      first = at;
      last = at + take;
      return true;
    }
  }
}

namespace {

// Set while a thread runs ranges, so that a parallel_for inside a body runs inline
// instead of waiting for the pool it is part of.
thread_local bool t_in_job = false;

}  // namespace

void Job::work(int slot) noexcept {
  const bool outer = t_in_job;  // a nested call returns into its outer job's range
  t_in_job = true;
  try {
    std::int64_t first = 0, last = 0;
    while (claim(first, last)) call(body, first, last, slot);
  } catch (...) {
    if (!failed.exchange(true)) error = std::current_exception();
    next.store(items, std::memory_order_relaxed);  // the others stop after their range
  }
  t_in_job = outer;
}

namespace {

// How long the caller spins for the last ranges before it sleeps (Pool::run).
constexpr std::chrono::microseconds kCallerSpin{200};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  void run(Job& job) {
    std::lock_guard<std::mutex> one_job(run_mutex_);
    const int helpers = add_workers(job.threads - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    if (helpers >= static_cast<int>(workers_.size())) {
      wake_.notify_all();
    } else {
      for (int i = 0; i < helpers; ++i) wake_.notify_one();
    }
    job.work(0);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = nullptr;  // no seat is given from here on
    }
    // Wait for the workers that took a seat: they are finishing one range each, tens to
    // hundreds of microseconds. Spin first: a caller that sleeps gives its core away,
    // and on a machine where other processes wait for cores it gets one back only after
    // their time slices (milliseconds). Sleep if it takes longer (a worker preempted
    // in its range), so as not to hold a core the worker may need.
    const auto spin_until = std::chrono::steady_clock::now() + kCallerSpin;
    while (job.inside.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < spin_until)
      cpu_relax();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      left_.wait(lock, [&] { return job.inside.load(std::memory_order_relaxed) == 0; });
    }
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  Pool() = default;

  // Starts workers until there are `wanted` (never fewer are kept); returns how many
  // there are, which is fewer when the system refuses a thread.
  int add_workers(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) {
      std::uint64_t seen;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        seen = generation_;
      }
      try {
        workers_.emplace_back([this, seen] { worker_loop(seen); });
      } catch (const std::system_error&) {
        break;  // the caller and the workers it has do the work
      }
    }
    return std::min(wanted, static_cast<int>(workers_.size()));
  }

  void worker_loop(std::uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      Job* job = job_;
      if (job == nullptr || job->seated >= job->threads || job->next.load(std::memory_order_relaxed) >= job->items)
        continue;  // late: the job is over, full, or has nothing left to take
      const int slot = job->seated++;
      ++job->inside;
      lock.unlock();
      job->work(slot);
      lock.lock();
      if (--job->inside == 0) left_.notify_all();
    }
  }

  std::mutex run_mutex_;  // one job at a time
  std::mutex mutex_;      // guards job_, generation_, stop_ and the job's seats
  std::condition_variable wake_;
  std::condition_variable left_;
  std::vector<std::thread> workers_;  // touched only under run_mutex_ (and at exit)
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace

void run_job(Job& job) {
  if (t_in_job) {
    job.work(0);  // nested: this thread is already one of a job's participants
    if (job.error) std::rethrow_exception(job.error);
    return;
  }
  Pool::instance().run(job);
}

}  // namespace detail
}  // namespace splinebench::cpu
