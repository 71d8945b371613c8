// The run context: what a run records about the build (compiler flags, -march, CUDA
// architectures), the OpenMP runtime, the CPU and the GPU's clocks.
#include <gtest/gtest.h>

#include <omp.h>
#include <stdlib.h>

#include <fstream>
#include <set>

#include "splinebench/runner/run_context.hpp"

using namespace splinebench::runner;
using nlohmann::json;

namespace {

json context() { return collect_context("box", "r", "s", Clock::now(), json::object()); }

}  // namespace

TEST(RunContext, RecordsCompilerFlagsAndArchitectures) {
  const json ctx = context();
  ASSERT_TRUE(ctx.contains("cxx_flags") && ctx["cxx_flags"].is_string()) << ctx.dump(1);
  const std::string flags = ctx["cxx_flags"];
  const auto at = flags.rfind("-march=");
  if (at == std::string::npos) {
    EXPECT_TRUE(ctx["march"].is_null());
  } else {
    EXPECT_EQ(ctx["march"], flags.substr(at + 7, flags.find(' ', at) - at - 7));
  }
  // Release builds get their optimisation flags from the build type.
  if (ctx["build_type"] == "Release") {
    EXPECT_NE(flags.find("-O"), std::string::npos) << flags;
  }
  // CUDA flags and architectures exactly when built with CUDA.
  EXPECT_EQ(ctx["cuda_architectures"].is_null(), ctx["cuda_compiler"].is_null());
  EXPECT_EQ(ctx["cuda_flags"].is_null(), ctx["cuda_compiler"].is_null());
  EXPECT_TRUE(ctx.contains("registry"));
}

TEST(RunContext, RecordsTheOpenMPSettings) {
  ::setenv("OMP_WAIT_POLICY", "passive", 1);
  ::setenv("GOMP_SPINCOUNT", "1000", 1);
  const json ctx = context();
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  ASSERT_TRUE(ctx.contains("openmp")) << ctx.dump(1);
  const json& omp = ctx["openmp"];
  EXPECT_EQ(omp["max_threads"], omp_get_max_threads());
  EXPECT_EQ(omp["num_procs"], omp_get_num_procs());
  EXPECT_EQ(omp["version"], _OPENMP);
  EXPECT_TRUE(omp["dynamic"].is_boolean());
  EXPECT_TRUE((std::set<std::string>{"false", "true", "primary", "close", "spread"}.count(omp["proc_bind"])));
  EXPECT_EQ(omp["wait_policy"], "passive");
  EXPECT_EQ(omp["env"]["OMP_WAIT_POLICY"], "passive");
  EXPECT_EQ(omp["env"]["GOMP_SPINCOUNT"], "1000");
  EXPECT_TRUE(context()["openmp"]["wait_policy"].is_null());
}

TEST(RunContext, RecordsCpuFrequencyAndGovernorWhereReadable) {
  const json ctx = context();
  for (const char* key : {"cpu_model", "cpu_mhz", "cpu_max_mhz", "cpu_governor"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  EXPECT_NE(ctx["cpu_model"], "unknown");
  std::ifstream governor("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string expected;
  if (governor >> expected) {
    EXPECT_EQ(ctx["cpu_governor"], expected);
  } else {
    EXPECT_TRUE(ctx["cpu_governor"].is_null());
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool has_mhz = false;
  while (std::getline(cpuinfo, line)) has_mhz = has_mhz || line.rfind("cpu MHz", 0) == 0;
  if (has_mhz) {
    ASSERT_TRUE(ctx["cpu_mhz"].is_number());
    EXPECT_GT(ctx["cpu_mhz"].get<double>(), 0.0);
  }
}

TEST(RunContext, GpuClocksFromNvidiaSmi) {
  const std::string csv =
      "00000000:1B:00.0, 1980, 2619, 1980, 2619, Enabled\n"
      "00000000:3B:00.0, 345, 405, 1980, 2619, Disabled\n"
      "00000000:5E:00.0, [N/A], [N/A], [N/A], [N/A], [N/A]\n";
  // CUDA writes a four-digit domain in lower case.
  const json b = gpu_clocks_from_nvidia_smi(csv, "0000:3b:00.0");
  EXPECT_EQ(b, (json{{"sm_mhz", 345.0}, {"mem_mhz", 405.0}, {"max_sm_mhz", 1980.0}, {"max_mem_mhz", 2619.0},
                     {"persistence_mode", "Disabled"}, {"source", "nvidia-smi"}}));
  const json na = gpu_clocks_from_nvidia_smi(csv, "0000:5e:00.0");
  EXPECT_TRUE(na["sm_mhz"].is_null());
  EXPECT_EQ(na["persistence_mode"], "[N/A]");
  EXPECT_TRUE(gpu_clocks_from_nvidia_smi(csv, "0000:99:00.0").is_null());
  EXPECT_TRUE(gpu_clocks_from_nvidia_smi("", "0000:1b:00.0").is_null());
}
