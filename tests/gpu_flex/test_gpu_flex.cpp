// gpu_flex and gpu_flex_fixed on the device:
//  - bit for bit what the host emulation of the same plan computes (so the CUDA-only
//    parts - shared memory, barriers, cp.async, tickets - change nothing), and within
//    the oracle tolerance, for every tile kind, mode, short and odd line, channels and
//    batches; outputs are poisoned (NaN) before every run;
//  - one runner's launches back to back on a stream, each on the launch state the one
//    before it left (the kernel resets its own counters; no memset between launches);
//  - the adversarial debug mode (random dependency-respecting ticket order, random
//    block stalls, eight times more blocks than can be resident) finishes with the
//    same bits;
//  - plans for a share of the device (DeviceShare): one block (a stream range per axis:
//    slice groups, two teams on long axes), many (the shortest ranges), little shared
//    memory (the fallbacks);
//  - large cases (1-D 2^22, 3-D 192^3, the 100-frame RGBA batch) against the oracle;
//  - the Implementation interface through the registry (prefilter, read-back,
//    evaluation against the oracle).
// FlexSanitizer.* is the reduced list run under compute-sanitizer.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/datasets.hpp"
#include "flex_emulate.hpp"
#include "flex_order.hpp"
#include "flex_test_cases.hpp"
#include "gpu_common/flex/flex_launch.hpp"
#include "gpu_common/flex/flex_tile.cuh"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using namespace splinebench::gpu::flex;
using splinebench::testing::FlexCase;

namespace {

#define SKIP_WITHOUT_DEVICE()                                               \
  do {                                                                      \
    const std::string why = gpu::cuda_unavailable_reason();                 \
    if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;            \
  } while (0)

double tolerance(int dims) { return dims <= 3 ? 2e-7 : 5e-7; }

// "" when a and b hold the same bits; else how many values differ, the largest
// difference and the first few differing positions.
std::string bit_difference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return "sizes differ";
  std::int64_t count = 0;
  double largest = 0;
  std::string first;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) == 0) continue;
    ++count;
    largest = std::max(largest, std::fabs(static_cast<double>(a[i]) - b[i]));
    if (count <= 4) first += " [" + std::to_string(i) + "] " + std::to_string(a[i]) + " vs " + std::to_string(b[i]);
  }
  if (!count) return "";
  return std::to_string(count) + " of " + std::to_string(a.size()) + " values differ, max |diff| " +
         std::to_string(largest) + ";" + first;
}

struct DeviceRun {
  std::vector<float> out;
  std::string description;
};

// Runs the prefilter on the device with `runner` (output poisoned first) and returns
// the result. An adversarial flexible launch takes a random dependency-respecting ticket
// order (flex_order.hpp) from the seed.
DeviceRun run_device(FlexRunner& runner, Variant v, const GridShape& shape, std::int64_t fields, Mode mode,
                     const std::vector<float>& in, LaunchOptions opt = {}) {
  if (opt.adversarial && v == Variant::flexible && opt.order.empty())
    opt.order = adversarial_order(make_launch(runner.plan(v, shape, fields, mode, opt.share)), opt.seed);
  const std::size_t n = in.size();
  gpu::DeviceBuffer<float> d_in(n), d_out(n), d_tmp;
  const std::int64_t tmp = runner.tmp_values(v, shape, fields, mode);
  if (tmp) d_tmp.resize(static_cast<std::size_t>(tmp));
  SB_CUDA_CHECK(cudaMemcpy(d_in.data(), in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  SB_CUDA_CHECK(cudaMemset(d_out.data(), 0xFF, n * sizeof(float)));  // all-ones bytes: NaN
  if (tmp) SB_CUDA_CHECK(cudaMemset(d_tmp.data(), 0xFF, d_tmp.bytes()));
  runner.run(v, shape, fields, mode, d_in.data(), d_out.data(), tmp ? d_tmp.data() : nullptr, nullptr, opt);
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  DeviceRun r;
  r.out.resize(n);
  SB_CUDA_CHECK(cudaMemcpy(r.out.data(), d_out.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  r.description = runner.last_description();
  return r;
}

// The same with a runner of its own.
DeviceRun run_device(Variant v, const GridShape& shape, std::int64_t fields, Mode mode, const std::vector<float>& in,
                     const LaunchOptions& opt = {}) {
  FlexRunner runner;
  return run_device(runner, v, shape, fields, mode, in, opt);
}

// The host emulation of the plan the device uses.
std::vector<float> run_emulated(Variant v, const GridShape& shape, std::int64_t fields, Mode mode,
                                const std::vector<float>& in, const DeviceShare& share = {}) {
  FlexRunner runner;
  Plan plan = runner.plan(v, shape, fields, mode, share);
  std::vector<float> out(in.size(), std::nanf("")), tmp(in.size(), std::nanf(""));
  bind_buffers(plan, in.data(), out.data(), tmp.data());
  emulate(plan, v);
  return out;
}

std::vector<double> oracle(const GridShape& shape, std::int64_t fields, Mode mode, const std::vector<float>& in) {
  std::vector<double> ref(in.begin(), in.end());
  oracle::prefilter_f64(shape, fields, ref.data(), mode);
  return ref;
}

void check_case(const FlexCase& c, Mode mode, bool with_emulation) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 11);
  const std::vector<double> ref = oracle(shape, c.fields, mode, in);
  // gpu_flex, gpu_flex_fixed, and gpu_flex planned for one block (the longest tiles).
  for (int config = 0; config < 3; ++config) {
    const Variant v = config == 1 ? Variant::fixed : Variant::flexible;
    const char* who = config == 0 ? "gpu_flex" : config == 1 ? "gpu_flex_fixed" : "gpu_flex, one block";
    LaunchOptions opt;
    if (config == 2) opt.share.blocks = 1;
    const DeviceRun r = run_device(v, shape, c.fields, mode, in, opt);
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << who << ": unwritten outputs; " << r.description;
    EXPECT_LE(splinebench::testing::rel_l2(r.out, ref), tolerance(shape.dims)) << who << "; " << r.description;
    if (with_emulation) {
      EXPECT_EQ(bit_difference(r.out, run_emulated(v, shape, c.fields, mode, in, opt.share)), "")
          << who << " vs emulation";
    }
  }
}

// gpu_flex planned for `blocks` blocks on the device: every output written, within the
// oracle's tolerance, bit for bit the emulation's, and, with adversarial_seed > 0 (the
// flexible launch), the same bits in the adversarial order.
void check_blocks(Variant v, const FlexCase& c, Mode mode, const std::vector<float>& in,
                  const std::vector<double>& ref, int blocks, std::uint64_t adversarial_seed = 0) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  LaunchOptions opt;
  opt.share.blocks = blocks;
  const DeviceRun r = run_device(v, shape, c.fields, mode, in, opt);
  const std::string what = c.name() + (v == Variant::fixed ? " fixed, " : " flexible, ") + std::to_string(blocks) +
                           " blocks; " + r.description;
  EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << what;
  EXPECT_LE(splinebench::testing::rel_l2(r.out, ref), tolerance(shape.dims)) << what;
  EXPECT_EQ(bit_difference(r.out, run_emulated(v, shape, c.fields, mode, in, opt.share)), "") << what;
  if (adversarial_seed > 0) {
    opt.adversarial = true;
    opt.seed = adversarial_seed;
    EXPECT_EQ(bit_difference(run_device(v, shape, c.fields, mode, in, opt).out, r.out), "") << what << " adversarial";
  }
}

class GpuFlexCases : public ::testing::TestWithParam<std::tuple<FlexCase, Mode>> {};

TEST_P(GpuFlexCases, MatchesEmulationBitForBitAndOracle) {
  SKIP_WITHOUT_DEVICE();
  const auto& [c, mode] = GetParam();
  check_case(c, mode, true);
}

TEST_P(GpuFlexCases, AdversarialOrderAndStallsSameBits) {
  SKIP_WITHOUT_DEVICE();
  const auto& [c, mode] = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 12);
  const DeviceRun normal = run_device(Variant::flexible, shape, c.fields, mode, in);
  LaunchOptions opt;
  opt.adversarial = true;
  opt.seed = 99;
  const DeviceRun adv = run_device(Variant::flexible, shape, c.fields, mode, in, opt);
  EXPECT_EQ(bit_difference(adv.out, normal.out), "");
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<FlexCase, Mode>>& info) {
  return std::get<0>(info.param).name() + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuFlexCases,
                         ::testing::Combine(::testing::ValuesIn(splinebench::testing::flex_small_cases()),
                                            ::testing::Values(Mode::mirror, Mode::half, Mode::periodic)),
                         case_name);

// One launch of a runner's sequence: the case, its blocks (0: as many as are resident),
// whether its order is adversarial, and the variant.
struct RunnerStep {
  FlexCase c;
  int blocks;
  bool adversarial;
  Variant variant = Variant::flexible;
};

// One runner for a sequence of launches, as the benchmark and the registry use it (the
// other tests make a runner per launch): plans of more and fewer passes and fields
// follow one another, so the launch state of a smaller launch sits inside a larger
// one's, with adversarial launches among them; every result is bit for bit the
// emulation's, from a poisoned output.
TEST(GpuFlex, OneRunnerManyLaunchesMatchEmulation) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<RunnerStep> steps{
      {{{21, 34, 45}, 1, 3}, 0, false},    {{{21, 34, 45}, 1, 3}, 0, false},  // the same plan again
      {{{61, 47}, 4, 5}, 0, false},        {{{5, 6, 7, 9}, 1, 2}, 0, false},
      {{{21, 34, 45}, 1, 3}, 0, true},     {{{4099}, 1, 1}, 0, false},
      {{{21, 34, 45}, 1, 3}, 1000, false}, {{{5, 6, 7, 9}, 1, 2}, 1, true},
      {{{61, 47}, 4, 5}, 0, false},
      // The runner keeps its last plans: the fixed and the flexible plan of one problem
      // in turn (as the benchmark runs them), then a plan evicted and made again.
      {{{21, 34, 45}, 1, 3}, 0, false, Variant::fixed}, {{{21, 34, 45}, 1, 3}, 0, false},
      {{{21, 34, 45}, 1, 3}, 0, false, Variant::fixed}, {{{4099}, 1, 1}, 0, false},
  };
  FlexRunner runner;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const RunnerStep& st = steps[k];
    const GridShape shape = GridShape::make(st.c.extents, st.c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * st.c.fields, 40 + k);
    LaunchOptions opt;
    opt.share.blocks = st.blocks;
    opt.adversarial = st.adversarial;
    opt.seed = 7 + k;
    EXPECT_EQ(bit_difference(run_device(runner, st.variant, shape, st.c.fields, Mode::mirror, in, opt).out,
                             run_emulated(st.variant, shape, st.c.fields, Mode::mirror, in, opt.share)),
              "")
        << "step " << k << ": " << st.c.name();
  }
}

// The launch state resets itself (flex_kernels.cu: the last block to leave zeroes the
// ticket, the pass counters and its own count; run() no longer memsets them): one runner,
// launches enqueued back to back on one non-default stream with no synchronisation
// between them (only the adversarial orders' uploads wait), so every launch starts on
// exactly what the one before it left: the same plan twice, more and fewer passes and
// fields (a smaller launch's counters inside a larger one's), one block and many,
// adversarial grids of eight times the resident blocks, and the fixed kernel between. A
// launch that found a counter not reset would take no tile (ticket past the end) or pass
// a wait early: poisoned outputs or other bits than the emulation's.
TEST(GpuFlex, BackToBackLaunchesResetTheirOwnCounters) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<RunnerStep> steps{
      {{{21, 34, 45}, 1, 3}, 0, false},    {{{21, 34, 45}, 1, 3}, 0, false},  {{{21, 34, 45}, 1, 3}, 1, false},
      {{{5, 6, 7, 9}, 1, 2}, 0, false},    {{{61, 47}, 4, 5}, 0, false},      {{{5, 6, 7, 9}, 1, 2}, 1000, false},
      {{{4099}, 1, 1}, 0, false},          {{{21, 34, 45}, 1, 3}, 0, true},   {{{21, 34, 45}, 1, 3}, 0, false},
      {{{21, 34, 45}, 1, 3}, 0, false, Variant::fixed},                      {{{2, 3, 2, 3, 4}, 1, 2}, 0, false},
      {{{2, 3, 2, 3, 4}, 1, 2}, 0, true},  {{{2, 3, 2, 3, 4}, 1, 2}, 0, false}, {{{37, 45}, 2, 2}, 0, false},
  };
  cudaStream_t stream = nullptr;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  FlexRunner runner;
  struct Launched {
    std::vector<float> in;
    gpu::DeviceBuffer<float> d_in, d_out, d_tmp;
  };
  std::vector<Launched> launched(steps.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const RunnerStep& st = steps[k];
    const GridShape shape = GridShape::make(st.c.extents, st.c.channels);
    Launched& l = launched[k];
    l.in = splinebench::testing::random_values<float>(shape.values() * st.c.fields, 70 + k);
    const std::size_t n = l.in.size();
    l.d_in.resize(n);
    l.d_out.resize(n);
    const std::int64_t tmp = runner.tmp_values(st.variant, shape, st.c.fields, Mode::mirror);
    if (tmp) l.d_tmp.resize(static_cast<std::size_t>(tmp));
    SB_CUDA_CHECK(cudaMemcpyAsync(l.d_in.data(), l.in.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    SB_CUDA_CHECK(cudaMemsetAsync(l.d_out.data(), 0xFF, n * sizeof(float), stream));  // NaN
    LaunchOptions opt;
    opt.share.blocks = st.blocks;
    opt.adversarial = st.adversarial;
    opt.seed = 11 + k;
    if (st.adversarial)
      opt.order = adversarial_order(make_launch(runner.plan(st.variant, shape, st.c.fields, Mode::mirror, opt.share)),
                                    opt.seed);
    runner.run(st.variant, shape, st.c.fields, Mode::mirror, l.d_in.data(), l.d_out.data(),
               tmp ? l.d_tmp.data() : nullptr, stream, opt);
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const RunnerStep& st = steps[k];
    const GridShape shape = GridShape::make(st.c.extents, st.c.channels);
    std::vector<float> out(launched[k].in.size());
    SB_CUDA_CHECK(cudaMemcpy(out.data(), launched[k].d_out.data(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    DeviceShare share;
    share.blocks = st.blocks;
    EXPECT_EQ(bit_difference(out, run_emulated(st.variant, shape, st.c.fields, Mode::mirror, launched[k].in, share)),
              "")
        << "step " << k << ": " << st.c.name();
  }
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Plans for a share of the device, on the device against the emulation (bit for bit),
// the oracle and the adversarial order: the shortest stream ranges (planned for many
// blocks: many tiles per axis, range edges inside the data), and the longest (one
// block: slice groups with short last groups, and on axes of 224 samples or more the
// register stream_x tile in two teams).
TEST(GpuFlex, ShortAndLongTilesMatchEmulation) {
  SKIP_WITHOUT_DEVICE();
  std::vector<FlexCase> cases = {{{4099}, 1, 2}, {{37, 45}, 1, 2}, {{20, 50, 40}, 2, 1}, {{3, 5, 7}, 1, 2},
                                 {{5, 3, 9, 34}, 2, 2}, {{9, 7, 40, 48}, 1, 1}, {{3, 2, 2, 2, 2, 5}, 1, 2}};
  for (const FlexCase& c : splinebench::testing::flex_long_cases()) cases.push_back(c);
  for (const FlexCase& c : cases) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 5);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::mirror, in);
    for (int blocks : {1, 1000}) {
      for (Variant v : {Variant::flexible, Variant::fixed})
        check_blocks(v, c, Mode::mirror, in, ref, blocks, v == Variant::flexible ? 5 : 0);
    }
  }
}

// The stream_only tile fed by bulk copies, whole and short ranges, chunks that take it
// and chunks that fall back (partial, unaligned), on the device against the emulation
// (bit for bit), the oracle, and the adversarial order.
TEST(GpuFlex, BulkStreamTileMatchesEmulation) {
  SKIP_WITHOUT_DEVICE();
  for (const FlexCase& c : std::vector<FlexCase>{{{40, 48, 64}, 1, 1}, {{20, 50, 40}, 2, 1}, {{37, 45, 33}, 1, 1},
                                                 {{5, 3, 9, 34}, 2, 2}, {{9, 4, 16, 64}, 1, 2}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 10);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::half, in);
    for (int blocks : {0, 1000})
      for (Variant v : {Variant::flexible, Variant::fixed})
        check_blocks(v, c, Mode::half, in, ref, blocks, v == Variant::flexible ? 3 : 0);
  }
}

// Sizes of the benchmark's kind, against the oracle (emulation too slow here).
TEST(GpuFlex, LargeCasesMatchOracle) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<FlexCase> cases = {
      {{1 << 22}, 1, 1}, {{192, 192, 192}, 1, 1}, {{120, 160}, 4, 100}, {{1024, 1024}, 4, 1}, {{24, 24, 24, 24}, 1, 2}};
  for (const FlexCase& c : cases)
    for (Mode mode : kAllModes) {
      SCOPED_TRACE(c.name() + " " + std::string(to_string(mode)));
      check_case(c, mode, false);
    }
}

// One plan of the flexible launch in the plain and in the adversarial order, as the
// sanitizer list runs it (no emulation: under the tools it would dominate the run time):
// the plain run within the oracle's tolerance, the adversarial one bit for bit the same.
DeviceRun check_both_orders(const FlexCase& c, const std::vector<float>& in, const std::vector<double>& ref,
                            LaunchOptions opt, const std::string& label) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  opt.adversarial = false;
  const DeviceRun plain = run_device(Variant::flexible, shape, c.fields, Mode::half, in, opt);
  EXPECT_LE(splinebench::testing::rel_l2(plain.out, ref), tolerance(shape.dims)) << label << "; " << plain.description;
  opt.adversarial = true;
  EXPECT_EQ(bit_difference(run_device(Variant::flexible, shape, c.fields, Mode::half, in, opt).out, plain.out), "")
      << label << " adversarial";
  return plain;
}

// The tile bodies a plan runs, as run_tile (flex_tile.cuh) picks them: a bulk pass runs
// the two-column register tile on chunks that are partial or unaligned (bulk_fits, per
// tile of the plan bound to buffers of the same alignment as the device's).
std::set<std::string> tile_bodies(Plan plan, const std::vector<float>& in) {
  std::vector<float> out(in.size()), tmp(in.size());
  bind_buffers(plan, in.data(), out.data(), tmp.data());
  std::set<std::string> bodies;
  for (const PassDesc& P : plan.passes) {
    if (P.kind == TileKind::rows) bodies.insert("rows");
    if (P.kind == TileKind::stream_x && P.regs == 0)
      bodies.insert(P.vec == 2 ? "stream_x ring, column pairs" : P.ncols > kThreads ? "stream_x ring, two chains"
                                                                                      : "stream_x ring, one chain");
    if (P.kind == TileKind::stream_x && P.regs > 0)
      bodies.insert(std::string(P.teams > 0 ? "stream_x teams" : "stream_x registers") + (P.group > 1 ? ", grouped" : ""));
    if (P.kind == TileKind::stream_only)
      for (std::int64_t t = 0; t < P.tiles; ++t)
        bodies.insert(P.bulk > 0 && bulk_fits(P, decode_tile(P, t)) ? "stream_only bulk"
                                                                     : "stream_only registers x" + std::to_string(P.regs));
  }
  return bodies;
}

// The reduced list for compute-sanitizer: every tile body (checked below) and channel
// count, multi-pass launches (D = 3..5) with their cross-block waits, in both debug
// orders; each case also as gpu_flex_fixed and planned for one block (check_case).
TEST(FlexSanitizer, EveryKindOnce) {
  SKIP_WITHOUT_DEVICE();
  struct Case {
    FlexCase c;
    DeviceShare share;  // the plan in both orders is for this share of the device
  };
  const std::vector<Case> cases = {
      {{{1000}, 1, 2}, {}},                // rows
      {{{37, 45}, 2, 2}, {}},              // stream_x registers
      {{{20, 50, 40}, 1, 1}, {1, 0}},      // stream_x registers, 8 slices per tile, short last group
      {{{240, 40}, 1, 1}, {1, 0}},         // stream_x in two teams
      {{{3, 230, 40}, 1, 1}, {1, 0}},      // two teams, 2 slices per tile, short last group
      {{{3, 1100}, 1, 1}, {}},             // ring, column pairs, two patches per row
      {{{19, 290}, 4, 1}, {}},             // ring, two chains per thread, fewer planes per sub-block
      {{{37, 45}, 1, 1}, {0, 16 * 1024}},  // ring, one chain per thread (no room for the registers' buffers)
      {{{20, 50, 40}, 2, 1}, {}},          // stream_only bulk, and registers x2 on the partial chunk
      {{{17, 19, 21}, 4, 1}, {}},          // stream_only registers x1, four channels
      {{{9, 4, 16, 64}, 1, 1}, {}},        // bulk, D = 4
      {{{5, 3, 9, 34}, 2, 2}, {}},         // D = 4, two fields
      {{{2, 3, 2, 3, 4}, 1, 2}, {}},       // D = 5
  };
  std::set<std::string> covered;
  for (const Case& k : cases) {
    SCOPED_TRACE(k.c.name());
    check_case(k.c, Mode::mirror, false);
    const GridShape shape = GridShape::make(k.c.extents, k.c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * k.c.fields, 3);
    const std::vector<double> ref = oracle(shape, k.c.fields, Mode::half, in);
    LaunchOptions opt;
    opt.share = k.share;
    check_both_orders(k.c, in, ref, opt, std::to_string(k.share.blocks) + " blocks, " +
                                             std::to_string(k.share.smem_bytes) + " bytes shared");
    // The plans that ran: check_case's three and the one in both orders.
    FlexRunner runner;
    for (const Plan& plan : {runner.plan(Variant::flexible, shape, k.c.fields, Mode::half, k.share),
                             runner.plan(Variant::flexible, shape, k.c.fields, Mode::mirror),
                             runner.plan(Variant::fixed, shape, k.c.fields, Mode::mirror),
                             runner.plan(Variant::flexible, shape, k.c.fields, Mode::mirror, DeviceShare{1, 0})})
      for (const std::string& body : tile_bodies(plan, in)) covered.insert(body);
  }
  const std::set<std::string> every = {"rows",
                                       "stream_x ring, column pairs",
                                       "stream_x ring, two chains",
                                       "stream_x ring, one chain",
                                       "stream_x registers",
                                       "stream_x registers, grouped",
                                       "stream_x teams",
                                       "stream_x teams, grouped",
                                       "stream_only registers x1",
                                       "stream_only registers x2",
                                       "stream_only bulk"};
  EXPECT_EQ(covered, every) << "the sanitizer list no longer reaches every tile body";
}

// Through the registry: prepare / read_coefficients / evaluate of both names.
TEST(GpuFlexImplementation, PrefilterAndEvaluateMatchOracle) {
  SKIP_WITHOUT_DEVICE();
  for (const char* name : {"gpu_flex", "gpu_flex_fixed"}) {
    ImplementationPtr impl = make_implementation(name);
    ASSERT_TRUE(impl->availability().ok) << impl->availability().reason;
    for (const FlexCase& c : std::vector<FlexCase>{{{301}, 1, 2}, {{41, 37}, 4, 1}, {{23, 19, 17}, 2, 1},
                                                   {{7, 6, 5, 9}, 1, 1}}) {
      const GridShape shape = GridShape::make(c.extents, c.channels);
      for (Mode mode : kAllModes) {
        SCOPED_TRACE(std::string(name) + " " + c.name() + " " + std::string(to_string(mode)));
        const std::vector<float> in = datasets::make_field(datasets::FieldKind::noise, shape, c.fields, 21);
        PhaseTimes times;
        impl->prepare(shape, c.fields, in.data(), mode, true, times);
        EXPECT_TRUE(times.has(phase::prefilter));
        std::vector<float> coeffs(in.size(), std::nanf(""));
        impl->read_coefficients(coeffs.data(), times);
        const std::vector<double> ref = oracle(shape, c.fields, mode, in);
        const Tolerance tol = impl->tolerance(shape);
        EXPECT_LE(splinebench::testing::rel_l2(coeffs, ref), tol.prefilter_rel_l2);

        const std::int64_t n = 2000;
        const std::vector<float> q = datasets::make_queries(datasets::QueryPattern::outside, shape, n, 8);
        std::vector<float> values(static_cast<std::size_t>(n * c.fields * c.channels), std::nanf(""));
        impl->evaluate(q.data(), n, values.data(), times);
        std::vector<double> expect(values.size());
        oracle::evaluate_f64(shape, c.fields, ref.data(), mode, q.data(), n, expect.data());
        const double maxf = splinebench::testing::max_abs(in);
        EXPECT_LE(splinebench::testing::max_abs_diff(values, expect) / maxf, impl->tolerance(shape).interp_max_rel_to_maxf);
        impl->release();
      }
    }
  }
}

TEST(GpuFlexImplementation, UnsupportedChannelsIsAnError) {
  SKIP_WITHOUT_DEVICE();
  ImplementationPtr impl = make_implementation("gpu_flex");
  const GridShape shape = GridShape::make({8, 8}, 3);
  std::vector<float> in(static_cast<std::size_t>(shape.values()), 1.f);
  PhaseTimes times;
  EXPECT_THROW(impl->prepare(shape, 1, in.data(), Mode::mirror, true, times), Error);
}

}  // namespace
