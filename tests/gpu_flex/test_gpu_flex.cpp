// gpu_flex and gpu_flex_fixed on the device:
//  - bit for bit what the host emulation of the same plan computes (so the CUDA-only
//    parts - shared memory, barriers, cp.async, tickets - change nothing), and within
//    the oracle tolerance, for every tile kind, mode, short and odd line, channels and
//    batches; outputs are poisoned (NaN) before every run;
//  - the adversarial debug mode (random dependency-respecting ticket order, random
//    block stalls, eight times more blocks than can be resident) finishes with the
//    same bits;
//  - large cases (1-D 2^22, 3-D 192^3, the 100-frame RGBA batch) against the oracle;
//  - the Implementation interface through the registry (prefilter, read-back,
//    evaluation against the oracle).
// FlexSanitizer.* is the reduced list run under compute-sanitizer.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "splinebench/datasets.hpp"
#include "flex_test_cases.hpp"
#include "gpu_common/cuda_check.hpp"
#include "gpu_common/device_buffer.hpp"
#include "gpu_flex/flex_emulate.hpp"
#include "gpu_flex/flex_launch.hpp"
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
// the result.
DeviceRun run_device(FlexRunner& runner, Variant v, const GridShape& shape, std::int64_t fields, Mode mode,
                     const std::vector<float>& in, const LaunchOptions& opt = {}) {
  const std::size_t n = in.size();
  gpu::DeviceBuffer<float> d_in(n), d_out(n), d_tmp;
  const std::int64_t tmp = runner.tmp_values(v, shape, fields, mode, opt.tuning);
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
                                const std::vector<float>& in, const Tuning& tuning = {}) {
  FlexRunner runner;
  Plan plan = runner.plan(v, shape, fields, mode, tuning);
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
  // gpu_flex (default layout), gpu_flex_fixed, and gpu_flex with the other D >= 3
  // layouts in one launch (yx patches, per-axis passes).
  // And the stream filter forced to 2 and 4 adjacent columns per thread (the
  // automatic choice takes them only for wide column counts).
  // And stream_only passes on the shared-memory ring instead of the register tile
  // (stream_regs=0), in the one launch and in the baseline.
  for (int config = 0; config < 8; ++config) {
    const Variant v = config == 1 || config == 7 ? Variant::fixed : Variant::flexible;
    const char* who = config == 0   ? "gpu_flex"
                      : config == 1 ? "gpu_flex_fixed"
                      : config == 2 ? "gpu_flex yx_patches"
                      : config == 3 ? "gpu_flex per_axis"
                      : config == 4 ? "gpu_flex stream_vec=2"
                      : config == 5 ? "gpu_flex stream_vec=4"
                      : config == 6 ? "gpu_flex stream_regs=0"
                                    : "gpu_flex_fixed stream_regs=0";
    if (shape.dims < 3 && (config == 2 || config == 3)) continue;  // D >= 3 layouts only
    LaunchOptions opt;
    if (config == 2) opt.tuning.layout3d = Layout3D::yx_patches;
    if (config == 3) opt.tuning.layout3d = Layout3D::per_axis;
    if (config == 4) opt.tuning.stream_vec = 2;
    if (config == 5) opt.tuning.stream_vec = 4;
    if (config >= 6) opt.tuning.stream_regs = 0;
    const DeviceRun r = run_device(v, shape, c.fields, mode, in, opt);
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << who << ": unwritten outputs; " << r.description;
    EXPECT_LE(splinebench::testing::rel_l2(r.out, ref), tolerance(shape.dims)) << who << "; " << r.description;
    if (with_emulation) {
      EXPECT_EQ(bit_difference(r.out, run_emulated(v, shape, c.fields, mode, in, opt.tuning)), "")
          << who << " vs emulation";
    }
  }
}

// gpu_flex under one planner tuning on the device: every output written, within the
// oracle's tolerance, bit for bit the emulation's, and, with adversarial_seed > 0 (the
// flexible launch), the same bits in the adversarial order.
void check_tuning(Variant v, const FlexCase& c, Mode mode, const std::vector<float>& in,
                  const std::vector<double>& ref, const Tuning& tuning, const std::string& label,
                  std::uint64_t adversarial_seed = 0) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  LaunchOptions opt;
  opt.tuning = tuning;
  const DeviceRun r = run_device(v, shape, c.fields, mode, in, opt);
  const std::string what = c.name() + " " + label + "; " + r.description;
  EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << what;
  EXPECT_LE(splinebench::testing::rel_l2(r.out, ref), tolerance(shape.dims)) << what;
  EXPECT_EQ(bit_difference(r.out, run_emulated(v, shape, c.fields, mode, in, tuning)), "") << what;
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
  // The same with 4 columns per thread in the stream filter (same bits as 1 or 2).
  opt.tuning.stream_vec = 4;
  EXPECT_EQ(bit_difference(run_device(Variant::flexible, shape, c.fields, mode, in, opt).out, normal.out), "");
  // The same with the shared-memory ring instead of the register stream tile.
  opt.tuning.stream_vec = 0;
  opt.tuning.stream_regs = 0;
  EXPECT_EQ(bit_difference(run_device(Variant::flexible, shape, c.fields, mode, in, opt).out, normal.out), "");
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<FlexCase, Mode>>& info) {
  return std::get<0>(info.param).name() + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuFlexCases,
                         ::testing::Combine(::testing::ValuesIn(splinebench::testing::flex_small_cases()),
                                            ::testing::Values(Mode::mirror, Mode::half, Mode::periodic)),
                         case_name);

// One runner for a sequence of launches, as the benchmark and the registry use it (the
// other tests make a runner per launch): plans of more and fewer passes and fields
// follow one another, so the launch state of a smaller launch sits inside a larger
// one's, with adversarial launches among them; every result is bit for bit the
// emulation's, from a poisoned output.
TEST(GpuFlex, OneRunnerManyLaunchesMatchEmulation) {
  SKIP_WITHOUT_DEVICE();
  struct Step {
    FlexCase c;
    Tuning tuning;
    bool adversarial;
    Variant variant = Variant::flexible;
  };
  Tuning per_axis;
  per_axis.layout3d = Layout3D::per_axis;
  Tuning small_ranges;
  small_ranges.s_range = 7;
  const std::vector<Step> steps{
      {{{21, 34, 45}, 1, 3}, {}, false},           {{{21, 34, 45}, 1, 3}, {}, false},  // the same plan again
      {{{61, 47}, 4, 5}, {}, false},               {{{5, 6, 7, 9}, 1, 2}, per_axis, false},
      {{{21, 34, 45}, 1, 3}, {}, true},            {{{4099}, 1, 1}, {}, false},
      {{{21, 34, 45}, 1, 3}, small_ranges, false}, {{{5, 6, 7, 9}, 1, 2}, per_axis, true},
      {{{61, 47}, 4, 5}, {}, false},
      // The runner keeps its last plans: the fixed and the flexible plan of one problem
      // in turn (as the benchmark runs them), then a plan evicted and made again.
      {{{21, 34, 45}, 1, 3}, {}, false, Variant::fixed}, {{{21, 34, 45}, 1, 3}, {}, false},
      {{{21, 34, 45}, 1, 3}, {}, false, Variant::fixed}, {{{4099}, 1, 1}, {}, false},
  };
  FlexRunner runner;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Step& st = steps[k];
    const GridShape shape = GridShape::make(st.c.extents, st.c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * st.c.fields, 40 + k);
    LaunchOptions opt;
    opt.tuning = st.tuning;
    opt.adversarial = st.adversarial;
    opt.seed = 7 + k;
    EXPECT_EQ(bit_difference(run_device(runner, st.variant, shape, st.c.fields, Mode::mirror, in, opt).out,
                             run_emulated(st.variant, shape, st.c.fields, Mode::mirror, in, st.tuning)),
              "")
        << "step " << k << ": " << st.c.name();
  }
}

// Small ranges, chunks and sub-blocks: many tiles per axis, on the device.
TEST(GpuFlex, ManySmallTilesMatchEmulation) {
  SKIP_WITHOUT_DEVICE();
  Tuning tun;
  tun.s_range = 5;
  tun.chunk_width = 7;
  tun.stream_p = 3;
  tun.rows_items = 3;
  for (const FlexCase& c : std::vector<FlexCase>{{{4099}, 1, 2}, {{37, 45}, 1, 2}, {{20, 50, 40}, 2, 1},
                                                 {{5, 3, 9, 34}, 2, 2}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 5);
    for (Layout3D layout : {Layout3D::xy_planes, Layout3D::yx_patches, Layout3D::per_axis}) {
      tun.layout3d = layout;
      LaunchOptions opt;
      opt.tuning = tun;
      for (Variant v : {Variant::flexible, Variant::fixed})
        EXPECT_EQ(bit_difference(run_device(v, shape, c.fields, Mode::mirror, in, opt).out,
                                 run_emulated(v, shape, c.fields, Mode::mirror, in, tun)),
                  "")
            << c.name() << " " << to_string(layout);
    }
  }
}

// The register stream tile with small ranges and odd / even chunks (1 and 2 columns
// per thread, partial column groups, unaligned chunks), on the device, against the
// emulation and against the shared-memory ring.
TEST(GpuFlex, RegisterStreamTileSmallTilesMatchEmulation) {
  SKIP_WITHOUT_DEVICE();
  for (const FlexCase& c : std::vector<FlexCase>{{{37, 45}, 1, 2}, {{20, 50, 40}, 2, 1}, {{5, 3, 9, 34}, 2, 2},
                                                 {{3, 2, 2, 2, 2, 5}, 1, 2}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 6);
    for (int config = 0; config < 3; ++config) {
      Tuning tun;
      tun.s_range = config == 0 ? 5 : config == 1 ? 40 : 0;
      tun.chunk_width = config == 0 ? 7 : config == 1 ? 6 : 1024;
      tun.stream_vec = config == 1 ? 2 : 0;
      tun.layout3d = config == 2 ? Layout3D::per_axis : Layout3D::xy_planes;
      LaunchOptions opt;
      opt.tuning = tun;
      for (Variant v : {Variant::flexible, Variant::fixed}) {
        const DeviceRun r = run_device(v, shape, c.fields, Mode::mirror, in, opt);
        EXPECT_EQ(bit_difference(r.out, run_emulated(v, shape, c.fields, Mode::mirror, in, tun)), "")
            << c.name() << " config " << config << "; " << r.description;
        LaunchOptions ring = opt;
        ring.tuning.stream_regs = 0;
        EXPECT_EQ(bit_difference(r.out, run_device(v, shape, c.fields, Mode::mirror, in, ring).out), "")
            << c.name() << " config " << config << " vs the shared-memory ring";
      }
    }
  }
}

// The one-channel register stream_yx tile with other batch sizes and load stages
// (several batches in flight, partial last batches and sub-blocks) and short stream
// ranges, on the device against the emulation and the oracle. (Batches of 8 planes do
// not fit in shared memory: that configuration checks the fallback to the ring.)
TEST(GpuFlex, RegisterYxTileBatchesMatchEmulation) {
  SKIP_WITHOUT_DEVICE();
  struct Config {
    int batch, stages;
    std::int64_t range;
  };
  for (const FlexCase& c : std::vector<FlexCase>{{{37, 45, 33}, 1, 1}, {{70, 66, 35}, 1, 2}, {{3, 4, 5, 6}, 1, 1}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 8);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::periodic, in);
    for (const Config& k : {Config{4, 2, 0}, Config{2, 4, 5}, Config{1, 8, 0}, Config{8, 2, 17}}) {
      Tuning tun;
      tun.layout3d = Layout3D::yx_patches;
      tun.yx_batch = k.batch;
      tun.yx_stages = k.stages;
      tun.s_range = k.range;
      check_tuning(Variant::flexible, c, Mode::periodic, in, ref, tun,
                   "batch " + std::to_string(k.batch) + " stages " + std::to_string(k.stages) + " range " +
                       std::to_string(k.range));
    }
  }
}

// The register stream_yx tile with TMA footprints (Tuning::yx_tma = 1; off by default) and with
// per-thread copies: bit for bit the emulation, within the oracle tolerance, the same
// bits in the adversarial order; interior and edge patches, planes shorter than the
// footprint, two fields, a 4-D field, stream ranges, every mode. The description says
// which loads the device used (the launcher falls back where it cannot encode the map).
TEST(GpuFlex, RegisterYxTileTmaMatchesEmulation) {
  SKIP_WITHOUT_DEVICE();
  for (const FlexCase& c : std::vector<FlexCase>{{{37, 44, 40}, 1, 1},
                                                 {{9, 36, 36}, 1, 2},
                                                 {{5, 8, 12}, 1, 1},
                                                 {{2, 3, 33, 20}, 1, 1},
                                                 {{40, 96, 128}, 1, 1}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 9);
    for (Mode mode : kAllModes) {
      const std::vector<double> ref = oracle(shape, c.fields, mode, in);
      for (std::int64_t range : {std::int64_t{0}, std::int64_t{7}}) {
        for (int tma : {1, 0}) {
          Tuning tun;
          tun.layout3d = Layout3D::yx_patches;
          tun.s_range = range;
          tun.yx_tma = tma;
          const std::string label = std::string(to_string(mode)) + " range " + std::to_string(range) + " yx_tma " +
                                    std::to_string(tma);
          check_tuning(Variant::flexible, c, mode, in, ref, tun, label, 11);
          LaunchOptions opt;
          opt.tuning = tun;
          const std::string used = run_device(Variant::flexible, shape, c.fields, mode, in, opt).description;
          EXPECT_EQ(used.find("TMA footprints") != std::string::npos, tma == 1) << label << "; " << used;
        }
      }
    }
  }
}

// Register stream_x tiles of several slices side by side (Tuning::x_group): groups that
// divide a field's slices and short last groups, whole and short stream ranges, field
// batches; on the device against the emulation (bit for bit), the oracle, and the
// adversarial order.
TEST(GpuFlex, GroupedStreamXTileMatchesEmulation) {
  SKIP_WITHOUT_DEVICE();
  for (const FlexCase& c : std::vector<FlexCase>{{{37, 45, 33}, 1, 1}, {{20, 50, 40}, 2, 1}, {{3, 5, 7}, 1, 2},
                                                 {{5, 3, 9, 34}, 2, 2}, {{9, 7, 40, 48}, 1, 1}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 9);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::mirror, in);
    for (int group : {2, 3, 8}) {
      for (std::int64_t range : {std::int64_t{0}, std::int64_t{5}}) {
        Tuning tun;
        tun.x_group = group;
        tun.s_range = range;
        check_tuning(Variant::flexible, c, Mode::mirror, in, ref, tun,
                     "x_group " + std::to_string(group) + " range " + std::to_string(range), 5);
      }
    }
  }
}

// The register stream_x tile in two teams (Tuning::x_teams = 1) and in one, with one
// slice and with several per tile (8: more columns than the y team has threads), whole
// and short stream ranges (3 sub-blocks: the fewest a tile has), two to four load
// stages; on the device against the emulation (bit for bit), the oracle, and the
// adversarial order.
TEST(GpuFlex, TwoTeamStreamXTileMatchesEmulation) {
  SKIP_WITHOUT_DEVICE();
  for (const FlexCase& c : std::vector<FlexCase>{{{37, 45, 33}, 1, 1}, {{20, 50, 40}, 2, 1}, {{70, 33}, 2, 2},
                                                 {{9, 7, 40, 48}, 1, 1}, {{8, 256, 256}, 1, 1}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 11);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::mirror, in);
    for (int teams : {0, 1}) {
      for (int group : {1, 8}) {
        for (std::int64_t range : {std::int64_t{0}, std::int64_t{1}}) {
          for (int stages : {2, 4}) {
            Tuning tun;
            tun.x_teams = teams;
            tun.x_group = group;
            tun.s_range = range;
            tun.x_stages = stages;
            check_tuning(Variant::flexible, c, Mode::mirror, in, ref, tun,
                         "x_teams " + std::to_string(teams) + " x_group " + std::to_string(group) + " range " +
                             std::to_string(range) + " stages " + std::to_string(stages),
                         2);
          }
        }
      }
    }
  }
}

// The stream_only tile fed by bulk copies with 2 to 4 buffers, whole and short ranges,
// chunks that take it and chunks that fall back (partial, unaligned), on the device
// against the emulation (bit for bit), the oracle, and the adversarial order.
TEST(GpuFlex, BulkStreamTileMatchesEmulation) {
  SKIP_WITHOUT_DEVICE();
  for (const FlexCase& c : std::vector<FlexCase>{{{40, 48, 64}, 1, 1}, {{20, 50, 40}, 2, 1}, {{37, 45, 33}, 1, 1},
                                                 {{5, 3, 9, 34}, 2, 2}, {{9, 4, 16, 64}, 1, 2}}) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 10);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::half, in);
    for (int stages : {2, 3, 4}) {
      for (std::int64_t range : {std::int64_t{0}, std::int64_t{5}}) {
        for (Variant v : {Variant::flexible, Variant::fixed}) {
          Tuning tun;
          tun.bulk_stages = stages;
          tun.s_range = range;
          check_tuning(v, c, Mode::half, in, ref, tun,
                       std::string(v == Variant::fixed ? "fixed" : "flexible") + " stages " + std::to_string(stages) +
                           " range " + std::to_string(range),
                       v == Variant::flexible ? 3 : 0);
        }
      }
    }
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

// One tuning of the flexible launch in the plain and in the adversarial order, as the
// sanitizer list runs it (no emulation: under the tools it would dominate the run time):
// the plain run within the oracle's tolerance, the adversarial one bit for bit the same.
// Returns the plain run.
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

// The reduced list for compute-sanitizer: every tile kind and channel count, a
// multi-pass launch (D = 4, 5) with its cross-block waits, in both debug orders.
TEST(FlexSanitizer, EveryKindOnce) {
  SKIP_WITHOUT_DEVICE();
  // 20x50x40 and 9x4x16x64 also run the bulk stream_only tile (whole aligned chunks).
  const std::vector<FlexCase> cases = {{{1000}, 1, 2},          {{37, 45}, 2, 2},      {{20, 50, 40}, 1, 1},
                                       {{9, 4, 16, 64}, 1, 1},   {{17, 19, 21}, 4, 1},  {{5, 3, 9, 34}, 2, 2},
                                       {{2, 3, 2, 3, 4}, 1, 2}};
  for (const FlexCase& c : cases) {
    SCOPED_TRACE(c.name());
    check_case(c, Mode::mirror, false);
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 3);
    const std::vector<double> ref = oracle(shape, c.fields, Mode::half, in);
    check_both_orders(c, in, ref, {}, "default tuning");
    // D >= 3 with the other layouts in the one launch, adversarial too.
    if (shape.dims < 3) continue;
    // Register stream_x tiles of 3 slices each (short last groups where the slices of a
    // field are not a multiple of 3).
    LaunchOptions grouped;
    grouped.tuning.x_group = 3;
    check_both_orders(c, in, ref, grouped, "x_group 3");
    // The register stream_x tile in two teams (mbarrier hand-over between the x and the
    // y team; the default gives these short tiles one team).
    LaunchOptions teams;
    teams.tuning.x_teams = 1;
    check_both_orders(c, in, ref, teams, "x_teams 1");
    for (Layout3D layout : {Layout3D::yx_patches, Layout3D::per_axis}) {
      LaunchOptions other;
      other.tuning.layout3d = layout;
      const DeviceRun f = check_both_orders(c, in, ref, other, std::string(to_string(layout)));
      if (layout == Layout3D::yx_patches && c.channels == 1) {
        // The register stream_yx tile with several batches in flight (buffer reuse), in
        // the adversarial order (check_both_orders took `other` by value).
        other.adversarial = true;
        other.tuning.yx_batch = 2;
        other.tuning.yx_stages = 4;
        EXPECT_EQ(bit_difference(run_device(Variant::flexible, shape, c.fields, Mode::half, in, other).out, f.out),
                  "")
            << "yx_batch 2, yx_stages 4";
        // Its TMA footprints (tensor copies, edge folds), where the rows allow them.
        other.tuning.yx_tma = 1;
        EXPECT_EQ(bit_difference(run_device(Variant::flexible, shape, c.fields, Mode::half, in, other).out, f.out),
                  "")
            << "yx_tma 1";
      }
    }
  }
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
