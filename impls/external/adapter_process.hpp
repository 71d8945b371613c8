// One adapter process (adapters/python/splinebench_adapter.py) and the line protocol
// with it: a JSON request per line on its stdin, a JSON answer per line on its stdout
// (adapters/python/README.md). The process is started on construction and lives until
// destruction; its stderr goes to a log file whose tail error messages quote.
//
// It runs in a process group of its own, so that what it starts dies with it. No read
// waits forever: each request has a deadline (request_deadline_seconds); past it the
// group is killed and the request fails saying so. An interrupt of the harness
// (io::install_interrupt_guard) kills the group and removes the log.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/io/interrupt_cleanup.hpp"

namespace splinebench::external {

// Where the adapter's Python comes from, and the command that starts it.
struct AdapterCommand {
  std::string python;   // the interpreter
  std::string script;   // splinebench_adapter.py
  std::string library;  // "scipy", "cupy"
  std::string python_source;  // how `python` was chosen, for messages and the run context
};

// SPLINEBENCH_PYTHON if set, else the project's .venv/bin/python when it exists, else
// python3 on PATH; SPLINEBENCH_ADAPTER (the script) if set, else the source tree's.
AdapterCommand locate_adapter(const std::string& library);

// The least time the harness waits for the adapter's Python (the availability probe, and
// any request): SPLINEBENCH_ADAPTER_TIMEOUT_S when set (a positive number of seconds;
// anything else throws splinebench::Error), else kDefaultTimeoutFloorSeconds.
inline constexpr double kDefaultTimeoutFloorSeconds = 60;
double adapter_timeout_floor_seconds();

// A request's deadline: the floor plus kSecondsPerWorkUnit per unit of work (a sample
// filtered along one axis, a tap of one evaluated value, a value copied). One unit takes
// SciPy ~10-15 ns on one core (impls/external/README.md): the allowance is ~100x that,
// so only a process that stopped answering reaches it.
inline constexpr double kSecondsPerWorkUnit = 1e-6;
double request_deadline_seconds(double work_units);

class AdapterProcess {
 public:
  // Starts the process; throws splinebench::Error when it cannot be started.
  explicit AdapterProcess(const AdapterCommand& command);
  ~AdapterProcess();
  AdapterProcess(const AdapterProcess&) = delete;
  AdapterProcess& operator=(const AdapterProcess&) = delete;

  // Sends one request and returns the answer, waiting at most
  // request_deadline_seconds(work_units). Throws splinebench::Unsupported for an answer
  // with "unsupported": true, splinebench::Error for any other failure ("ok": false,
  // the process gone, no answer by the deadline (the process group is then killed), a
  // line that is not JSON), quoting the adapter's stderr.
  nlohmann::json request(const nlohmann::json& request, double work_units = 0);

  // Whether the process still runs (false once it exited, was killed, or a request
  // found it gone or timed out).
  bool alive();

  const AdapterCommand& command() const { return command_; }

 private:
  std::string read_line(double deadline_seconds, const std::string& op);
  std::string stderr_tail() const;
  [[noreturn]] void fail(const std::string& what) const;
  void kill_and_reap();

  AdapterCommand command_;
  pid_t pid_ = -1;  // also the process group's id; -1 once reaped
  int fd_ = -1;  // our end of the socket pair (the child's stdin and stdout)
  std::string log_path_;
  std::string buffer_;  // bytes read past the last line
  io::InterruptCleanup remove_log_, kill_group_;
};

}  // namespace splinebench::external
