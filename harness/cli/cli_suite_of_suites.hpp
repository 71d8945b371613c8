// A suite of suites: {"name", "system": "suites", "description"?, "note"?, "suites":
// [name or suite object, ...]} runs the named suites (of any systems) as one run, one
// folder, one record list: what the nightly gate runs so that it judges every system.
// --impl narrows each part to the names its system knows (a name no part knows is an
// error); --filter applies to every part.
#pragma once

#include "splinebench/runner/system.hpp"

namespace splinebench::cli {

class SuitesSystem final : public runner::System {
 public:
  std::string name() const override { return "suites"; }
  std::string entry_noun() const override { return "entry"; }
  std::string description() const override { return "several suites, of any systems, as one run"; }
  nlohmann::json registry() const override { return nlohmann::json::array(); }
  std::unique_ptr<runner::SystemRun> prepare(const nlohmann::json& suite, const std::string& origin,
                                             const runner::RunRequest& request,
                                             const nlohmann::json& saved_options) const override;
};

}  // namespace splinebench::cli
