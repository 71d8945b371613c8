// Threads for the CPU vector implementations: one call's work items run on the calling
// thread plus up to `threads - 1` pool workers, and the call waits only for work that
// was taken, never for a thread that has not started.
//
// Why not an OpenMP parallel region: a region ends only when every thread of its team
// has arrived, and libgomp's threads spin while they wait. On a machine where other
// processes hold cores (a CI runner, a shared host) a team thread is often not running
// when the region starts; the others then spin, taking the core it needs, until the
// scheduler runs it. Each region then costs scheduler time slices (milliseconds)
// instead of microseconds, whatever its work. Here a worker that wakes late finds the
// items taken and goes back to sleep; waiting threads sleep (no spinning), so a busy
// machine costs at most the work a worker took.
//
// Items are handed out in contiguous ranges of decreasing size (OpenMP's "guided"
// schedule): long runs of neighbouring blocks at first, for the hardware prefetchers,
// and small ones at the end, so that participants finish together.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <type_traits>

namespace splinebench::cpu {

// Hardware threads this process may run on (its CPU affinity mask), at least 1.
int hardware_threads();

// Threads worth using for `work` units: at most `requested`, at most
// hardware_threads(), and at most one per `work_per_thread` units (at least 1). The
// units are the caller's (bytes, taps); the point is that a thread's share of the work
// must dwarf the cost of waking it and of sharing the result through the caches.
int threads_for_work(int requested, double work, double work_per_thread);

namespace detail {

struct Job {
  void (*call)(void* body, std::int64_t first, std::int64_t last, int slot) = nullptr;
  void* body = nullptr;
  std::int64_t items = 0;
  int threads = 1;  // participants, the caller included
  std::atomic<std::int64_t> next{0};
  // Changed under the pool's mutex; `inside` is also read without it by the caller's
  // brief spin at the end of the job.
  int seated = 1;               // seats taken; the caller holds seat 0
  std::atomic<int> inside{0};   // workers that took a seat and have not left
  // The first exception a participant threw; the caller rethrows it.
  std::atomic<bool> failed{false};
  std::exception_ptr error;

  // Takes the next range of items; false when none is left.
  bool claim(std::int64_t& first, std::int64_t& last);
  // Runs ranges on seat `slot` until none is left.
  void work(int slot) noexcept;
};

void run_job(Job& job);

}  // namespace detail

// Runs body(first, last, slot) over ranges that together cover [0, items) once each,
// on up to `threads` participants; `slot` in [0, threads) is unique among the
// participants of this call (per-thread scratch). Returns when every range is done;
// rethrows the first exception a range threw (the others still running finish first).
// A call from inside a body runs inline on that thread. One call uses the pool at a
// time; concurrent callers wait for each other.
template <class Body>
void parallel_for(int threads, std::int64_t items, Body&& body) {
  if (items <= 0) return;
  if (threads <= 1 || items == 1) {
    body(std::int64_t{0}, items, 0);
    return;
  }
  using B = std::remove_reference_t<Body>;
  detail::Job job;
  job.call = [](void* b, std::int64_t first, std::int64_t last, int slot) {
    (*static_cast<B*>(b))(first, last, slot);
  };
  job.body = const_cast<void*>(static_cast<const void*>(std::addressof(body)));
  job.items = items;
  job.threads = threads;
  detail::run_job(job);
}

}  // namespace splinebench::cpu
