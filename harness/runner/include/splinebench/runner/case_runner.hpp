// Runs one case on one implementation and checks it against the double oracle:
// inputs from the datasets library (seeded by the case's inputs, so every
// implementation sees the same data), warm-ups then timed repetitions of
// prepare(+prefilter) and evaluate, NaN-poisoned outputs, one coefficient read-back,
// accuracy versus the oracle and a verdict against the implementation's tolerance.
//
// Callable with any Implementation object, registered or not (tests hand it a
// deliberately wrong one). The oracle's results are cached for the last field, mode
// and query set, so a sweep that runs several implementations on the same inputs in
// a row computes them once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "splinebench/implementation.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/record.hpp"
#include "splinebench/runner/system.hpp"

namespace splinebench::runner {

struct RunOptions {
  int repetitions = 9;  // timed repetitions (suites ask for >= 9)
  int warmups = 2;      // untimed repetitions before them
  // At most this many (query, field) pairs are checked against the oracle; bigger
  // cases are checked on a deterministic, evenly strided subset of the queries.
  // Every coefficient is always checked.
  std::int64_t max_checked_values = std::int64_t{1} << 18;
};


class CaseRunner {
 public:
  explicit CaseRunner(RunOptions options = {});

  // Never throws for what the implementation does: Unsupported -> "skipped", any
  // other exception -> "error", both with the message. Calls impl.release() at the end.
  Record run(Implementation& impl, const CaseSpec& spec, SkipKind* skip_kind = nullptr);

  const RunOptions& options() const { return options_; }

 private:
  struct FieldInput {
    std::string key;
    std::vector<float> samples;
    double max_abs = 0;
  };
  struct OracleCoefficients {
    std::string key;
    std::vector<double> coeffs;
  };
  struct QueryInput {
    std::string key;
    std::vector<float> coords;
    std::vector<char> finite;         // per query: all coordinates finite
    std::vector<std::int64_t> checked;  // the queries compared with the oracle
  };
  struct OracleValues {
    std::string key;
    std::vector<double> values;  // [fields][checked][channels]
  };

  const FieldInput& field_for(const CaseSpec& spec);
  const OracleCoefficients& coefficients_for(const CaseSpec& spec);
  const QueryInput& queries_for(const CaseSpec& spec);
  const OracleValues& values_for(const CaseSpec& spec);
  void measure(Implementation& impl, const CaseSpec& spec, Record& record);

  RunOptions options_;
  FieldInput field_;
  OracleCoefficients coeffs_;
  QueryInput queries_;
  OracleValues values_;
};

}  // namespace splinebench::runner
