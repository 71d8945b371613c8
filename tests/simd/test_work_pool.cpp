// The CPU implementations' work pool (cpu_common/work_pool.hpp) and thread rule: every
// item runs exactly once on a seat no other running range holds, whatever the thread
// count; many back-to-back calls (where workers wake late and find a later job),
// concurrent callers, nested calls and exceptions; threads_for_work's caps; and the
// drivers built on the pool give the same bits on any thread count.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <tuple>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cpu_common/cpu_vector_base.hpp"
#include "cpu_common/prefilter_driver.hpp"
#include "cpu_common/query_bins.hpp"
#include "cpu_common/work_pool.hpp"
#include "cpu_simd/simd_kernels.hpp"
#include "splinebench/datasets.hpp"

using namespace splinebench;
using cpu::parallel_for;

namespace {

// Runs parallel_for and checks each item ran once and no two ranges ran on one seat at a time.
void check_once(int threads, std::int64_t items) {
  std::vector<std::atomic<int>> runs(static_cast<std::size_t>(items));
  std::vector<std::atomic<int>> seat_busy(static_cast<std::size_t>(std::max(1, threads)));
  std::atomic<int> overlaps{0}, bad_seats{0};
  parallel_for(threads, items, [&](std::int64_t first, std::int64_t last, int slot) {
    if (slot < 0 || slot >= std::max(1, threads)) {
      ++bad_seats;
      return;
    }
    if (seat_busy[slot].fetch_add(1) != 0) ++overlaps;
    for (std::int64_t i = first; i < last; ++i) runs[static_cast<std::size_t>(i)].fetch_add(1);
    seat_busy[slot].fetch_sub(1);
  });
  EXPECT_EQ(bad_seats.load(), 0) << threads << " threads, " << items << " items";
  EXPECT_EQ(overlaps.load(), 0) << threads << " threads, " << items << " items";
  std::int64_t wrong = 0;
  for (const auto& r : runs) wrong += r.load() != 1;
  EXPECT_EQ(wrong, 0) << threads << " threads, " << items << " items: items not run exactly once";
}

}  // namespace

TEST(WorkPool, EveryItemOnceOnItsOwnSeat) {
  for (const int threads : {1, 2, 3, 8})
    for (const std::int64_t items : {0, 1, 2, 7, 1000, 100000}) check_once(threads, items);
}

// Workers that wake after their job is over must not touch the next one's seats or
// items: thousands of tiny jobs back to back.
TEST(WorkPool, ManyShortCallsInARow) {
  for (int call = 0; call < 5000; ++call) check_once(2 + call % 3, 1 + call % 17);
}

TEST(WorkPool, ConcurrentCallersEachGetTheirWork) {
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 3; ++c)
    callers.emplace_back([&failures, c] {
      for (int call = 0; call < 300; ++call) {
        std::vector<std::atomic<int>> runs(257);
        parallel_for(2 + c, 257, [&](std::int64_t first, std::int64_t last, int) {
          for (std::int64_t i = first; i < last; ++i) runs[static_cast<std::size_t>(i)].fetch_add(1);
        });
        for (const auto& r : runs) failures += r.load() != 1;
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(WorkPool, NestedCallRunsInline) {
  std::vector<std::atomic<int>> runs(64 * 32);
  parallel_for(4, 64, [&](std::int64_t first, std::int64_t last, int) {
    for (std::int64_t i = first; i < last; ++i)
      parallel_for(4, 32, [&](std::int64_t a, std::int64_t b, int slot) {
        EXPECT_EQ(slot, 0) << "a nested call runs on the thread that makes it";
        for (std::int64_t j = a; j < b; ++j) runs[static_cast<std::size_t>(i * 32 + j)].fetch_add(1);
      });
  });
  for (const auto& r : runs) ASSERT_EQ(r.load(), 1);
}

TEST(WorkPool, ExceptionReachesTheCallerAndThePoolStillWorks) {
  for (const int threads : {1, 2, 4}) {
    EXPECT_THROW(parallel_for(threads, 1000,
                              [](std::int64_t first, std::int64_t last, int) {
                                if (first <= 500 && 500 < last) throw std::runtime_error("item 500");
                              }),
                 std::runtime_error)
        << threads << " threads";
    check_once(threads, 1000);
  }
}

TEST(WorkPool, ThreadsForWork) {
  const int hw = cpu::hardware_threads();
  ASSERT_GE(hw, 1);
  EXPECT_EQ(cpu::threads_for_work(1, 1e12, 1), 1) << "never more than asked";
  EXPECT_EQ(cpu::threads_for_work(1000, 1e12, 1), hw) << "never more than the hardware threads";
  EXPECT_EQ(cpu::threads_for_work(8, 0, 100), 1) << "no work: one thread";
  EXPECT_EQ(cpu::threads_for_work(8, 99, 100), 1) << "less than one share: one thread";
  EXPECT_EQ(cpu::threads_for_work(8, 250, 100), std::min(2, hw)) << "one thread per whole share";
  EXPECT_EQ(cpu::threads_for_work(0, 1e12, 1), 1) << "a request below one is one";
}

// The prefilter driver on the pool: the same bits at every thread count, for shapes
// whose passes have one, a few and many work items (explicit thread counts: the
// implementations' rule would run these small shapes on one).
TEST(WorkPool, PrefilterDriverBitsDoNotDependOnThreads) {
  const cpu::PrefilterKernels kernels = cpu::simd::prefilter_kernels();
  for (const auto& extents : {std::vector<std::int64_t>{5000}, {37, 41}, {19, 23, 35}, {5, 7, 6, 9}, {2, 3, 300, 500}})
    for (const Mode mode : kAllModes) {
      const GridShape shape = GridShape::make(extents, 2);
      const std::vector<float> input = datasets::make_field(datasets::FieldKind::noise, shape, 3, 41);
      std::vector<float> ref = input;
      PhaseTimes times;
      EXPECT_EQ(cpu::prefilter_blocked(shape, 3, ref.data(), mode, kernels, 1, times), 1);
      for (const int threads : {2, 3, 7}) {
        std::vector<float> got = input;
        const int used = cpu::prefilter_blocked(shape, 3, got.data(), mode, kernels, threads, times);
        EXPECT_GE(used, 1);
        EXPECT_LE(used, threads);
        EXPECT_EQ(std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)), 0)
            << shape.to_string() << " " << to_string(mode) << " threads=" << threads;
      }
    }
}

// The bin sort: the same records in the same order at every thread count (stable).
TEST(WorkPool, BinSortDoesNotDependOnThreads) {
  const GridShape shape = GridShape::make({96, 96, 96});
  const std::int64_t n = 50000;
  const std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::outside, shape, n, 5);
  const cpu::BinPlan plan = cpu::plan_bins(shape, n, cpu::BinPolicy::on);
  ASSERT_TRUE(plan.enabled);
  cpu::BinnedQueries ref;
  cpu::bin_queries(plan, shape, coords.data(), n, 1, ref);
  for (const int threads : {2, 3, 8}) {
    cpu::BinnedQueries got;
    cpu::bin_queries(plan, shape, coords.data(), n, threads, got);
    ASSERT_EQ(got.records.size(), ref.records.size());
    EXPECT_EQ(std::memcmp(got.records.data(), ref.records.data(), ref.records.size() * sizeof(float)), 0)
        << "threads=" << threads;
  }
}

namespace {

// cpu_simd's kernels behind CpuVectorBase, recording every kernel call: the thread it ran
// on and its arguments (what the drivers chunked), so two runs can be compared call by call.
struct KernelCall {
  std::thread::id thread;
  int kind;  // 0 columns, 1 rows, 2 evaluate
  std::int64_t a, b, c;
  bool operator==(const KernelCall& o) const {
    return std::tie(thread, kind, a, b, c) == std::tie(o.thread, o.kind, o.a, o.b, o.c);
  }
};
std::mutex g_calls_mutex;
std::vector<KernelCall> g_calls;
void record(int kind, std::int64_t a, std::int64_t b, std::int64_t c) {
  std::lock_guard<std::mutex> lock(g_calls_mutex);
  g_calls.push_back({std::this_thread::get_id(), kind, a, b, c});
}

class RecordingSimd final : public cpu::CpuVectorBase {
 public:
  std::string_view name() const override { return "recording_simd"; }
  std::string_view description() const override { return "cpu_simd kernels, calls recorded"; }
  Availability availability() const override { return {}; }

 protected:
  bool uses_threads() const override { return true; }
  cpu::PrefilterKernels prefilter_kernels() const override {
    return {[](float* base, std::int64_t row_stride, std::int64_t lanes, const cpu::LinePlan& plan, float* scratch) {
              record(0, row_stride, lanes, plan.n);
              cpu::simd::prefilter_kernels().columns(base, row_stride, lanes, plan, scratch);
            },
            [](float* data, std::int64_t rows, int channels, const cpu::LinePlan& plan, float* scratch) {
              record(1, rows, channels, plan.n);
              cpu::simd::prefilter_kernels().rows(data, rows, channels, plan, scratch);
            }};
  }
  cpu::EvalRangeFn eval_kernel() const override {
    return [](const cpu::EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n, std::int64_t q0,
              std::int64_t q1, float* out) {
      record(2, n, q0, q1);
      cpu::simd::eval_kernel()(grid, coeffs, coords, n, q0, q1, out);
    };
  }
};

struct PhaseRun {
  std::vector<KernelCall> calls;
  std::vector<float> values;
  std::vector<std::pair<std::string, int>> used;
};

PhaseRun run_recorded(int threads, const GridShape& shape, std::int64_t queries) {
  const auto field = datasets::make_field(datasets::FieldKind::noise, shape, 1, 11);
  const auto coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, queries, 12);
  RecordingSimd impl;
  Options opts;
  opts.threads = threads;
  impl.configure(opts);
  PhaseRun run;
  run.values.resize(static_cast<std::size_t>(queries * shape.channels));
  g_calls.clear();
  PhaseTimes times;
  impl.prepare(shape, 1, field.data(), Mode::mirror, true, times);
  impl.evaluate(coords.data(), queries, run.values.data(), times);
  run.calls = g_calls;
  run.used = impl.threads_used();
  return run;
}

}  // namespace

// Options::threads is a ceiling: a phase whose work is worth one thread must run the
// one-thread path itself (same work items, same order, all on the calling thread, the
// pool never entered), whatever the ceiling. Compared call by call against threads=1.
TEST(WorkPool, PhaseOnOneThreadRunsTheOneThreadPath) {
  struct Case {
    GridShape shape;
    std::int64_t queries;
  };
  // Each below one share per phase (kPrefilterBytesPerThread, kEvalTapsPerThread).
  const Case cases[] = {{GridShape::make({120, 160}, 4), 4096}, {GridShape::make({32, 32, 32}), 8192},
                        {GridShape::make({256, 256}), 65535}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.shape.to_string());
    const PhaseRun one = run_recorded(1, c.shape, c.queries);
    const PhaseRun many = run_recorded(16, c.shape, c.queries);
    const std::vector<std::pair<std::string, int>> single = {{std::string(phase::prefilter), 1},
                                                             {std::string(phase::evaluate), 1}};
    EXPECT_EQ(one.used, single);
    EXPECT_EQ(many.used, single);
    ASSERT_FALSE(one.calls.empty());
    for (const KernelCall& k : many.calls) ASSERT_EQ(k.thread, std::this_thread::get_id()) << "kernel ran off the caller";
    EXPECT_TRUE(many.calls == one.calls) << "different work items at threads=16 than at threads=1";
    EXPECT_EQ(0, std::memcmp(many.values.data(), one.values.data(), one.values.size() * sizeof(float)));
  }
}
