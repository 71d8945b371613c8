// The adapter process's guarantees (impls/external/), with a fake adapter that needs no
// SciPy: a hung or stopped adapter fails its request by the deadline and is killed with
// what it started; a killed adapter is started again once per case, not twice; an
// interrupt of the harness (SIGINT, SIGTERM, SIGHUP) or its normal end removes the array
// files and the log and stops the adapter; a hung availability probe is killed with
// its children.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "external/adapter_process.hpp"
#include "external/external_implementation.hpp"
#include "external/peer_probe.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"

using namespace splinebench;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

// A Python adapter that speaks the protocol without any library. Each start appends
// its pid to $FAKE_DIR/pids. "stop" stops it (as kill -STOP would); "start_child"
// starts a child in its process group and writes its pid to $FAKE_DIR/child.
constexpr const char* kFakeAdapter = R"(import json, os, signal, subprocess, sys
d = os.environ["FAKE_DIR"]
with open(os.path.join(d, "pids"), "a") as f:
    f.write(f"{os.getpid()}\n")
for line in sys.stdin:
    op = json.loads(line).get("op")
    if op == "shutdown":
        print(json.dumps({"ok": True}), flush=True)
        break
    if op == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    if op == "start_child":
        child = subprocess.Popen(["sleep", "60"])
        with open(os.path.join(d, "child"), "w") as f:
            f.write(str(child.pid))
    answer = {"ok": True}
    if op == "hello":
        answer.update(available=True, versions={"fake": "1"}, timer="fake", python="3")
    if op in ("prepare", "evaluate", "read_coefficients"):
        answer["phases"] = {op: 0.001}
    print(json.dumps(answer), flush=True)
)";

constexpr const char* kFakeProbe =
    R"(print('{"protocol": 1, "python": "3", "libraries": {"scipy": {"available": true}, "cupy": {"available": true}}}'))";

class Scratch {
 public:
  explicit Scratch(const std::string& tag) {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("splinebench-adapter-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + tag);
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::vector<pid_t> read_pids(const fs::path& path) {
  std::vector<pid_t> pids;
  std::ifstream in(path);
  for (long pid; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

// Gone or a zombie (a zombie whose parent is gone waits for init to reap it).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

bool gone_within(pid_t pid, std::chrono::milliseconds wait) {
  const auto until = clock_type::now() + wait;
  while (!process_gone(pid)) {
    if (clock_type::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The fake adapter and its probe in one folder, and the environment that makes the
// harness use them (restored at the end).
class FakeAdapter {
 public:
  explicit FakeAdapter(const std::string& timeout_seconds) : dir_("fake") {
    write_file(dir_ / "splinebench_adapter.py", kFakeAdapter);
    write_file(dir_ / "adapter_probe.py", kFakeProbe);
    set("FAKE_DIR", dir_.path().string());
    set("SPLINEBENCH_ADAPTER", (dir_ / "splinebench_adapter.py").string());
    set("SPLINEBENCH_PYTHON", "python3");
    set("SPLINEBENCH_ADAPTER_TIMEOUT_S", timeout_seconds);
  }
  ~FakeAdapter() {
    for (const auto& [name, value] : saved_)
      value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
  }
  external::AdapterCommand command() const { return {"python3", (dir_ / "splinebench_adapter.py").string(), "scipy", "test"}; }
  std::vector<pid_t> pids() const { return read_pids(dir_ / "pids"); }
  fs::path operator/(const std::string& name) const { return dir_ / name; }

  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  Scratch dir_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

bool python3_runs() { return std::system("python3 -c pass >/dev/null 2>&1") == 0; }

std::unique_ptr<external::ExternalImplementation> fake_peer() {
  external::PeerSpec spec;
  spec.name = "scipy";
  spec.description = "the fake adapter";
  spec.evaluation = "none";
  spec.arithmetic = "f32";
  return std::make_unique<external::ExternalImplementation>(spec);
}

void prepare_small(Implementation& impl) {
  const GridShape shape = GridShape::make({8}, 1);
  std::vector<float> input(8, 1.0f);
  PhaseTimes times;
  impl.prepare(shape, 1, input.data(), Mode::mirror, true, times);
}

void evaluate_small(Implementation& impl) {
  std::vector<float> coords(4, 2.5f), out(4);
  PhaseTimes times;
  impl.evaluate(coords.data(), 4, out.data(), times);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

#define REQUIRE_PYTHON3() \
  if (!python3_runs()) GTEST_SKIP() << "python3 is not on PATH: the fake adapter cannot run"

}  // namespace

TEST(AdapterDeadline, FloorFromTheEnvironmentPlusWork) {
  FakeAdapter fake("2");
  EXPECT_DOUBLE_EQ(external::adapter_timeout_floor_seconds(), 2.0);
  EXPECT_DOUBLE_EQ(external::request_deadline_seconds(0), 2.0);
  EXPECT_DOUBLE_EQ(external::request_deadline_seconds(3e6), 2.0 + 3e6 * external::kSecondsPerWorkUnit);
  fake.set("SPLINEBENCH_ADAPTER_TIMEOUT_S", "soon");
  EXPECT_NE(error_of([] { external::adapter_timeout_floor_seconds(); }).find("positive number of seconds"),
            std::string::npos);
  fake.set("SPLINEBENCH_ADAPTER_TIMEOUT_S", "-1");
  EXPECT_THROW(external::adapter_timeout_floor_seconds(), Error);
  ::unsetenv("SPLINEBENCH_ADAPTER_TIMEOUT_S");
  EXPECT_DOUBLE_EQ(external::adapter_timeout_floor_seconds(), external::kDefaultTimeoutFloorSeconds);
}

TEST(AdapterProcess, StoppedAdapterFailsByTheDeadlineAndIsKilled) {
  REQUIRE_PYTHON3();
  FakeAdapter fake("60");  // a Python start may take seconds on a loaded machine
  external::AdapterProcess adapter(fake.command());
  adapter.request({{"op", "hello"}});
  fake.set("SPLINEBENCH_ADAPTER_TIMEOUT_S", "1");
  const auto start = clock_type::now();
  const std::string error = error_of([&] { adapter.request({{"op", "stop"}}); });
  const double waited = std::chrono::duration<double>(clock_type::now() - start).count();
  EXPECT_NE(error.find("no answer to 'stop' within 1 s"), std::string::npos) << error;
  EXPECT_GE(waited, 0.9);
  EXPECT_LT(waited, 5.0);
  EXPECT_FALSE(adapter.alive());
  ASSERT_EQ(fake.pids().size(), 1u);
  EXPECT_TRUE(process_gone(fake.pids()[0]));
  EXPECT_NE(error_of([&] { adapter.request({{"op", "null"}}); }).find("the process is gone"), std::string::npos);
}

TEST(AdapterProcess, HungAdapterIsKilledWithWhatItStarted) {
  REQUIRE_PYTHON3();
  FakeAdapter fake("60");
  external::AdapterProcess adapter(fake.command());
  adapter.request({{"op", "start_child"}});
  fake.set("SPLINEBENCH_ADAPTER_TIMEOUT_S", "1");
  EXPECT_THROW(adapter.request({{"op", "stop"}}), Error);
  const auto child = read_pids(fake / "child");
  ASSERT_EQ(child.size(), 1u);
  EXPECT_TRUE(gone_within(child[0], std::chrono::milliseconds(2000))) << "the adapter's child outlived it";
}

TEST(ExternalImplementation, KilledAdapterIsRestartedOncePerCase) {
  REQUIRE_PYTHON3();
  FakeAdapter fake("60");
  auto impl = fake_peer();
  ASSERT_TRUE(impl->availability().ok) << impl->availability().reason;
  prepare_small(*impl);
  evaluate_small(*impl);
  ASSERT_EQ(fake.pids().size(), 1u);

  // Killed during a case: that case errors, the next one gets a new adapter.
  ::kill(fake.pids()[0], SIGKILL);
  ASSERT_TRUE(gone_within(fake.pids()[0], std::chrono::milliseconds(2000)));
  const std::string lost = error_of([&] { evaluate_small(*impl); });
  EXPECT_NE(lost.find("the adapter ended since this case's prepare"), std::string::npos) << lost;
  impl->release();
  prepare_small(*impl);
  evaluate_small(*impl);
  ASSERT_EQ(fake.pids().size(), 2u);

  // Killed again in the same case after its restart: an error, not a third adapter.
  ::kill(fake.pids()[1], SIGKILL);
  ASSERT_TRUE(gone_within(fake.pids()[1], std::chrono::milliseconds(2000)));
  EXPECT_THROW(evaluate_small(*impl), Error);
  const std::string twice = error_of([&] { prepare_small(*impl); });
  EXPECT_NE(twice.find("died again in this case"), std::string::npos) << twice;
  EXPECT_EQ(fake.pids().size(), 2u);

  // The next case may restart it once more.
  impl->release();
  prepare_small(*impl);
  evaluate_small(*impl);
  EXPECT_EQ(fake.pids().size(), 3u);
}

TEST(ExternalImplementation, NormalEndRemovesArraysAndLogAndStopsTheAdapter) {
  REQUIRE_PYTHON3();
  FakeAdapter fake("60");
  Scratch shm("shm"), tmp("tmp");
  fake.set("SPLINEBENCH_ADAPTER_TMP", shm.path().string());
  fake.set("TMPDIR", tmp.path().string());
  {
    auto impl = fake_peer();
    prepare_small(*impl);
    evaluate_small(*impl);
    EXPECT_FALSE(fs::is_empty(shm.path()));
    EXPECT_FALSE(fs::is_empty(tmp.path()));  // the adapter's log
  }
  EXPECT_TRUE(fs::is_empty(shm.path()));
  EXPECT_TRUE(fs::is_empty(tmp.path()));
  ASSERT_EQ(fake.pids().size(), 1u);
  EXPECT_TRUE(gone_within(fake.pids()[0], std::chrono::milliseconds(2000)));
}

// In a child process (death test): the guard installed, a case prepared (array files
// and the log exist, the adapter runs), then `sig` arrives.
void interrupted_during_a_case(int sig) {
  io::install_interrupt_guard();
  auto impl = fake_peer();
  prepare_small(*impl);
  evaluate_small(*impl);
  ::raise(sig);
  std::_Exit(0);  // not reached
}

TEST(ExternalImplementationDeathTest, InterruptRemovesArraysAndLogAndKillsTheAdapter) {
  REQUIRE_PYTHON3();
  // "fast": the child is a fork at EXPECT_EXIT and sees this test's folders and
  // environment (no thread runs here; "threadsafe" would rerun the test from its start
  // in a new process, with folders of its own).
  GTEST_FLAG_SET(death_test_style, "fast");
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig);
    FakeAdapter fake("60");
    Scratch shm("shm"), tmp("tmp");
    fake.set("SPLINEBENCH_ADAPTER_TMP", shm.path().string());
    fake.set("TMPDIR", tmp.path().string());
    EXPECT_EXIT(interrupted_during_a_case(sig), ::testing::KilledBySignal(sig), "");
    EXPECT_TRUE(fs::is_empty(shm.path())) << "array files left in " << shm.path();
    EXPECT_TRUE(fs::is_empty(tmp.path())) << "the adapter's log left in " << tmp.path();
    ASSERT_EQ(fake.pids().size(), 1u);
    EXPECT_TRUE(gone_within(fake.pids()[0], std::chrono::milliseconds(2000))) << "the adapter outlived the harness";
  }
}

TEST(PeerProbe, HungProbeIsKilledWithItsChildren) {
  FakeAdapter fake("1");
  // An "interpreter" that starts a child and then hangs, as a wrapper script might.
  const fs::path python = fake / "hanging-python";
  write_file(python, "#!/bin/sh\nsleep 60 &\necho $! >" + (fake / "child").string() + "\nexec sleep 60\n");
  fs::permissions(python, fs::perms::owner_all);
  external::AdapterCommand command = fake.command();
  command.python = python.string();
  const auto start = clock_type::now();
  const Availability verdict = external::probe_library(command, nullptr);
  EXPECT_LT(std::chrono::duration<double>(clock_type::now() - start).count(), 5.0);
  EXPECT_FALSE(verdict.ok);
  EXPECT_NE(verdict.reason.find("did not finish within 1 s"), std::string::npos) << verdict.reason;
  const auto child = read_pids(fake / "child");
  ASSERT_EQ(child.size(), 1u);
  EXPECT_TRUE(gone_within(child[0], std::chrono::milliseconds(2000))) << "the probe's child was orphaned";
}
