#include "splinebench/runner/case_runner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"

namespace splinebench::runner {
namespace {

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

// Fills the verdict and, when it fails, says why in the message.
void judge(Record& r) {
  std::vector<std::string> why;
  const Tolerance& tol = *r.tolerance;
  // Written as !(error <= bound) so that a NaN error fails.
  if (r.prefilter) {
    if (!(r.prefilter->rel_l2 <= tol.prefilter_rel_l2))
      why.push_back("prefilter rel_l2 " + format_number(r.prefilter->rel_l2) + " > tolerance " +
                    format_number(tol.prefilter_rel_l2));
    if (r.prefilter->unwritten > 0)
      why.push_back(std::to_string(r.prefilter->unwritten) + " coefficients not written (still NaN)");
  }
  if (r.interp) {
    if (!(r.interp->max_rel_to_maxf <= tol.interp_max_rel_to_maxf))
      why.push_back("interp max_rel_to_maxf " + format_number(r.interp->max_rel_to_maxf) + " > tolerance " +
                    format_number(tol.interp_max_rel_to_maxf));
    if (!r.interp->nan_ok)
      why.push_back(std::to_string(r.interp->unwritten) + " values not written (still NaN) in some repetition");
  }
  r.verdict = why.empty() ? "pass" : "fail";
  std::string joined;
  for (const auto& w : why) joined += (joined.empty() ? "" : "; ") + w;
  if (!joined.empty()) r.message = r.message.empty() ? joined : joined + "; " + r.message;
}

void fill_throughput(Record& r) {
  const CaseSpec& c = r.spec;
  const double points = static_cast<double>(c.shape.points()) * static_cast<double>(c.fields);
  const double bytes = 4.0 * static_cast<double>(c.shape.values()) * static_cast<double>(c.fields);
  if (const SampleStats* p = r.phase(phase::prefilter); p && p->median > 0) {
    r.throughput.prefilter_samples_per_s = points / p->median;
    // Read the samples once and write the coefficients once: the least traffic any
    // prefilter can have, so this is a lower bound on the bandwidth it used.
    r.throughput.prefilter_GBps = 2.0 * bytes / p->median / 1e9;
  }
  if (const SampleStats* e = r.phase(phase::evaluate); e && e->median > 0 && c.queries > 0) {
    const double n = static_cast<double>(c.queries);
    r.throughput.queries_per_s = n * static_cast<double>(c.fields) / e->median;
    const double io = 4.0 * n * c.shape.dims + 4.0 * n * static_cast<double>(c.fields) * c.shape.channels;
    r.throughput.evaluate_GBps = io / e->median / 1e9;
  }
}

// A record of a case that did not complete: no timings, no accuracy.
Record not_completed(const CaseSpec& spec, const RunOptions& options, const char* status, std::string message) {
  Record r;
  r.spec = spec;
  r.status = status;
  r.message = std::move(message);
  r.repetitions = options.repetitions;
  r.warmups = options.warmups;
  return r;
}

}  // namespace

CaseRunner::CaseRunner(RunOptions options) : options_(options) {
  if (options_.repetitions < 1) throw Error("repetitions must be >= 1");
  if (options_.warmups < 0) throw Error("warm-ups must be >= 0");
  if (options_.max_checked_values < 1) throw Error("max_checked_values must be >= 1");
}

const CaseRunner::FieldInput& CaseRunner::field_for(const CaseSpec& spec) {
  const std::string key = spec.field_key();
  if (field_.key != key) {
    field_ = {};  // free the previous batch before making the next
    coeffs_ = {};
    values_ = {};
    field_.samples = datasets::make_field(spec.data, spec.shape, spec.fields, fnv1a64("field/" + key), spec.mode);
    double m = 0;
    for (float v : field_.samples) m = std::max(m, static_cast<double>(std::abs(v)));
    field_.max_abs = m;
    field_.key = key;
  }
  return field_;
}

const CaseRunner::OracleCoefficients& CaseRunner::coefficients_for(const CaseSpec& spec) {
  const FieldInput& field = field_for(spec);
  const std::string key = field.key + "/" + std::string(to_string(spec.mode));
  if (coeffs_.key != key) {
    coeffs_ = {};
    values_ = {};
    coeffs_.coeffs.assign(field.samples.begin(), field.samples.end());
    oracle::prefilter_f64(spec.shape, spec.fields, coeffs_.coeffs.data(), spec.mode);
    coeffs_.key = key;
  }
  return coeffs_;
}

const CaseRunner::QueryInput& CaseRunner::queries_for(const CaseSpec& spec) {
  // The checked subset depends on the batch size, so it is part of the key.
  const std::string key = spec.query_key() + "/F" + std::to_string(spec.fields);
  if (queries_.key != key) {
    queries_ = {};
    values_ = {};
    const std::int64_t n = spec.queries;
    queries_.coords = datasets::make_queries(spec.pattern, spec.shape, n, fnv1a64("queries/" + spec.query_key()));
    queries_.finite.assign(static_cast<std::size_t>(n), 1);
    for (int d = 0; d < spec.shape.dims; ++d)
      for (std::int64_t q = 0; q < n; ++q)
        if (!std::isfinite(queries_.coords[d * n + q])) queries_.finite[q] = 0;
    const std::int64_t budget = std::max<std::int64_t>(1, options_.max_checked_values / spec.fields);
    const std::int64_t m = std::min(n, budget);
    queries_.checked.resize(static_cast<std::size_t>(m));
    // Evenly strided, so sorted patterns are checked over the whole grid, not one corner.
    for (std::int64_t j = 0; j < m; ++j) queries_.checked[j] = m == n ? j : (j * n) / m;
    queries_.key = key;
  }
  return queries_;
}

const CaseRunner::OracleValues& CaseRunner::values_for(const CaseSpec& spec) {
  const OracleCoefficients& coeffs = coefficients_for(spec);
  const QueryInput& queries = queries_for(spec);
  const std::string key = coeffs.key + "|" + queries.key;
  if (values_.key != key) {
    values_ = {};
    values_.values.resize(queries.checked.size() * spec.fields * spec.shape.channels);
    oracle::evaluate_subset_f64(spec.shape, spec.fields, coeffs.coeffs.data(), spec.mode, queries.coords.data(),
                                spec.queries, queries.checked, values_.values.data());
    values_.key = key;
  }
  return values_;
}

void CaseRunner::measure(Implementation& impl, const CaseSpec& spec, Record& r) {
  r.tolerance = impl.tolerance(spec.shape);
  Options opts;
  opts.threads = spec.threads;
  impl.configure(opts);

  const FieldInput& field = field_for(spec);
  const OracleCoefficients& coeffs = coefficients_for(spec);
  const std::int64_t n = spec.queries;
  const int C = spec.shape.channels;
  const QueryInput* queries = n > 0 ? &queries_for(spec) : nullptr;
  const OracleValues* ref = n > 0 ? &values_for(spec) : nullptr;

  std::vector<float> out;
  if (n > 0) out.resize(static_cast<std::size_t>(spec.fields * n * C));
  std::vector<std::pair<std::string, std::vector<double>>> samples;
  std::int64_t worst_unwritten = 0;
  const int total = options_.warmups + options_.repetitions;
  for (int it = 0; it < total; ++it) {
    PhaseTimes times;
    impl.prepare(spec.shape, spec.fields, field.samples.data(), spec.mode, /*prefilter=*/true, times);
    if (n > 0) {
      std::fill(out.begin(), out.end(), kPoison);
      impl.evaluate(queries->coords.data(), n, out.data(), times);
      worst_unwritten = std::max(worst_unwritten, count_unwritten(out, spec.fields, n, C, queries->finite));
    }
    if (it < options_.warmups) continue;
    for (const auto& [name, seconds] : times.entries()) {
      auto found = std::find_if(samples.begin(), samples.end(), [&](const auto& p) { return p.first == name; });
      if (found == samples.end()) {
        samples.emplace_back(name, std::vector<double>{});
        found = samples.end() - 1;
      }
      found->second.push_back(seconds);
    }
  }

  // Asked again after prepare: a tolerance may depend on the prepared data
  // (gpu_texture's bound is stated in the coefficients' neighbour differences).
  r.tolerance = impl.tolerance(spec.shape);
  r.threads_used = impl.threads_used();

  // Coefficients once, after the last prepare; poisoned so unwritten ones show.
  std::vector<float> got(static_cast<std::size_t>(spec.fields * spec.shape.values()), kPoison);
  PhaseTimes readback_times;  // one read-back: not a per-repetition phase
  impl.read_coefficients(got.data(), readback_times);
  r.prefilter = compare_coefficients(got, coeffs.coeffs);
  got = {};

  if (n > 0) {
    r.interp = compare_values(out, spec.fields, n, C, queries->checked, ref->values, field.max_abs);
    r.interp->unwritten = worst_unwritten;
    r.interp->nan_ok = worst_unwritten == 0;
  }

  // Reports pair samples with repetitions, so only phases recorded in every
  // repetition are kept.
  for (auto& [name, values] : samples) {
    if (static_cast<int>(values.size()) == options_.repetitions) {
      r.phases.emplace_back(name, summarize(std::move(values)));
    } else {
      r.message += (r.message.empty() ? "" : "; ") + ("phase '" + name + "' recorded in " +
                                                       std::to_string(values.size()) + " of " +
                                                       std::to_string(options_.repetitions) +
                                                       " repetitions; not reported");
    }
  }
  // Reports and comparisons need times; an implementation that records none is broken.
  if (r.phases.empty()) throw Error("the implementation recorded no phase times");
  fill_throughput(r);
  judge(r);
  if (r.verdict == "fail")
    if (const std::string defect = impl.known_defect(spec.shape, spec.mode); !defect.empty()) {
      r.message += "; known defect: " + defect;
      r.known_defect = defect;
    }
}

Record CaseRunner::run(Implementation& impl, const CaseSpec& spec, SkipKind* skip_kind) {
  Record r;
  r.spec = spec;
  r.repetitions = options_.repetitions;
  r.warmups = options_.warmups;
  SkipKind kind = SkipKind::none;

  const Availability avail = impl.availability();
  const Capabilities caps = impl.capabilities();
  std::string why_not = caps.why_not(spec.shape.dims, spec.shape.channels, spec.mode);
  if (why_not.empty() && !caps.field_batches && spec.fields > 1)
    why_not = "batches of several fields not supported";
  if (!avail.ok) {
    r.status = "skipped";
    r.message = avail.reason;
    kind = SkipKind::unavailable;
  } else if (!why_not.empty()) {
    r.status = "skipped";
    r.message = "not supported: " + why_not;
    kind = SkipKind::unsupported_case;
  } else {
    try {
      measure(impl, spec, r);
    } catch (const Unsupported& e) {
      r = not_completed(spec, options_, "skipped", e.what());
      kind = SkipKind::thrown;
    } catch (const std::exception& e) {
      r = not_completed(spec, options_, "error", e.what());
    }
    try {
      impl.release();
    } catch (const std::exception& e) {
      if (r.status == "ok") {
        r = not_completed(spec, options_, "error", std::string("release() failed: ") + e.what());
      }
    }
  }
  r.evaluation = impl.evaluation();
  if (skip_kind) *skip_kind = kind;
  return r;
}

}  // namespace splinebench::runner
