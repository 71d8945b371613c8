// One adapter process (adapters/python/splinebench_adapter.py) and the line protocol
// with it: a JSON request per line on its stdin, a JSON answer per line on its stdout
// (adapters/python/README.md). The process is started on construction and lives until
// destruction; its stderr goes to a log file whose tail error messages quote.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

class AdapterProcess {
 public:
  // Starts the process; throws splinebench::Error when it cannot be started.
  explicit AdapterProcess(const AdapterCommand& command);
  ~AdapterProcess();
  AdapterProcess(const AdapterProcess&) = delete;
  AdapterProcess& operator=(const AdapterProcess&) = delete;

  // Sends one request and returns the answer. Throws splinebench::Unsupported for an
  // answer with "unsupported": true, splinebench::Error for any other failure ("ok":
  // false, the process gone, a line that is not JSON), quoting the adapter's stderr.
  nlohmann::json request(const nlohmann::json& request);

  const AdapterCommand& command() const { return command_; }

 private:
  std::string read_line();
  std::string stderr_tail() const;
  [[noreturn]] void fail(const std::string& what) const;

  AdapterCommand command_;
  pid_t pid_ = -1;
  int fd_ = -1;  // our end of the socket pair (the child's stdin and stdout)
  std::string log_path_;
  std::string buffer_;  // bytes read past the last line
};

}  // namespace splinebench::external
