// Host memory: the available amount this process can have, the need of a run's cases,
// and the refusal of a need beyond it, before any work.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "fake_impls.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/memory.hpp"
#include "splinebench/runner/suite.hpp"

using namespace splinebench;
using namespace splinebench::runner;
using nlohmann::json;

namespace {

Plan memory_plan_of(const std::string& sweep_body) {
  const SuiteSpec suite =
      parse_suite(json::parse(R"({"name": "t", "sweeps": [{"name": "s", )" + sweep_body + "}]}"), "t.json");
  return make_plan(suite, {}, registry());
}

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

}  // namespace

TEST(Memory, AvailableIsReadOnLinux) {
  const auto available = available_memory();
  ASSERT_TRUE(available.has_value()) << "no /proc/meminfo?";
  EXPECT_GT(available->bytes, 0u);
  EXPECT_FALSE(available->source.empty());
}

TEST(Memory, CaseNeedCountsTheHarnessAndTheImplementation) {
  const Plan plan = memory_plan_of(R"("impls": ["cpu_scalar", "reference"], "shapes": [[1000]], "queries": [0, 100])");
  RunOptions options;
  for (const auto& c : plan.cases) {
    SCOPED_TRACE(c.case_id());
    const Capabilities caps = make_implementation(c.impl)->capabilities();
    const std::uint64_t need = case_host_bytes(c, caps, options);
    // Samples (4), oracle coefficients (8), read-back (4), and the implementation's
    // copy: 4 bytes a value in float32, 8 in double.
    std::uint64_t expected = 1000 * (4 + 8 + 4) + 1000 * (caps.arithmetic == "f64" ? 8 : 4);
    if (c.queries > 0) {
      // Coordinates and flags, values, checked indices and oracle values, and the
      // implementation's query records or double values.
      expected += 100 * (4 + 1) + 100 * 4 + 100 * (8 + 8) + 100 * (caps.arithmetic == "f64" ? 8 : 16);
    }
    EXPECT_EQ(need, expected);
  }
}

TEST(Memory, LargestCaseSkipsCasesThatWillNotRun) {
  const Plan plan = memory_plan_of(R"("impls": ["cpu_scalar"], "shapes": [[64], ["2^20"]], "queries": [0])");
  const CaseNeed worst = largest_case_need(plan, {}, make_implementation);
  ASSERT_NE(worst.spec, nullptr);
  EXPECT_EQ(worst.spec->shape.points(), std::int64_t{1} << 20);
  // An implementation that cannot run here is skipped by the run: it needs nothing.
  const bool gpu_here = make_implementation("gpu_naive")->availability().ok;
  const Plan gpu = memory_plan_of(R"("impls": ["gpu_naive"], "shapes": [["2^20"]], "queries": [0])");
  EXPECT_EQ(largest_case_need(gpu, {}, make_implementation).spec != nullptr, gpu_here);
  // A resume: finished cases need nothing.
  std::map<std::string, json> finished;
  for (const auto& c : plan.cases)
    if (c.shape.points() > 64) finished[c.case_id()] = json::object();
  EXPECT_EQ(largest_case_need(plan, {}, make_implementation, finished).spec->shape.points(), 64);
}

TEST(Memory, NeedBeyondAvailableIsRefusedWithBothNumbers) {
  const auto available = available_memory();
  ASSERT_TRUE(available.has_value());
  EXPECT_NO_THROW(require_memory(1 << 20, "a small job"));
  try {
    require_memory(available->bytes + 64 * kGiB, "case x", "; leave it out");
    FAIL() << "not refused";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("case x needs ", 0), 0u) << m;
    EXPECT_NE(m.find(" GiB of host memory, " + gib(available->bytes) + " GiB available ("), std::string::npos) << m;
    EXPECT_NE(m.find("; leave it out"), std::string::npos) << m;
  }
  const Plan plan = memory_plan_of(R"("impls": ["cpu_scalar"], "shapes": [["2^36"]], "queries": [0])");
  const CaseNeed huge = largest_case_need(plan, {}, make_implementation);
  EXPECT_GE(huge.bytes, (std::uint64_t{1} << 36) * 20);
}

// The address space this process maps now, from /proc/self/status.
std::uint64_t vm_size() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  return 0;
}

TEST(Memory, AddressSpaceLimitCounts) {
  const auto before = available_memory();
  ASSERT_TRUE(before.has_value());
  if (before->bytes < kGiB) GTEST_SKIP() << "less than 1 GiB available here";
  // In a child, so the limit does not outlive the test: 512 MiB more than is mapped now.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit r{};
    ::getrlimit(RLIMIT_AS, &r);
    r.rlim_cur = vm_size() + kGiB / 2;
    if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(3);
    const auto available = available_memory();
    if (!available || available->source.rfind("RLIMIT_AS", 0) != 0) ::_exit(1);
    ::_exit(available->bytes > kGiB / 4 && available->bytes <= kGiB / 2 ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: RLIMIT_AS not the tightest limit, 2: wrong amount, 3: setrlimit failed";
}

TEST(Memory, GibFormatting) {
  EXPECT_EQ(gib(kGiB / 4), "0.25");
  EXPECT_EQ(gib(3 * kGiB / 2), "1.5");
  EXPECT_EQ(gib(768 * kGiB), "768");
}
