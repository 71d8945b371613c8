#include "cli_merged_run.hpp"

#include <chrono>
#include <iostream>

#include "splinebench/error.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/run_store.hpp"

namespace splinebench::cli {

using nlohmann::json;

std::filesystem::path write_merged_run(json merged, const std::string& results_dir,
                                       const std::optional<std::string>& machine_asked, std::size_t shards,
                                       std::optional<runner::Clock::time_point> started) {
  json& manifest = merged["manifest"];
  const std::string machine = machine_asked.value_or(manifest["context"].value("machine", runner::host_name()));
  if (machine.empty()) throw Error("--machine: empty label");
  runner::validate_machine_label(machine);
  manifest["context"]["machine"] = machine;
  const std::string run_id = runner::utc_compact(runner::Clock::now()) + "-" +
                             manifest["context"].value("suite", std::string("merged"));
  const runner::RunStore store = runner::RunStore::create(results_dir, machine, run_id, manifest);
  const auto records = merged["records"].get<std::vector<json>>();
  json context = store.manifest()["context"];
  if (started) {
    const auto finished = runner::Clock::now();
    context["finished"] = runner::utc_iso8601(finished);
    context["wall_seconds"] = std::chrono::duration<double>(finished - *started).count();
  }
  store.write_results(context, records);
  std::size_t failed = 0, errored = 0;
  for (const json& r : records) {
    if (r.value("status", "") == "error") ++errored;
    else if (r.value("status", "") == "ok" && r.value("verdict", "") == "fail") ++failed;
  }
  std::cout << records.size() << " cases from " << shards << " shards: " << failed << " failed, " << errored
            << " errored\nrun directory: " << store.dir().string() << '\n';
  if (failed || errored)
    throw Error(std::to_string(failed) + " case(s) failed their accuracy verdict and " + std::to_string(errored) +
                " errored (run directory: " + store.dir().string() + ")");
  return store.dir();
}

}  // namespace splinebench::cli
