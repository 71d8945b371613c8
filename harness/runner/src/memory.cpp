#include "splinebench/runner/memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "splinebench/error.hpp"

namespace splinebench::runner {
namespace {

// A number of bytes in a one-line file ("max" and unreadable files give nullopt).
std::optional<std::uint64_t> read_bytes_file(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "Key:   1234 kB" in a /proc file, in bytes.
std::optional<std::uint64_t> proc_kib(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return std::nullopt;
}

void tighten(std::optional<MemoryLimit>& best, std::uint64_t bytes, const std::string& source) {
  if (!best || bytes < best->bytes) best = MemoryLimit{bytes, source};
}

// The cgroup folders that apply to this process for `controller` ("" for v2): its
// own and each ancestor under the mount. Inside a container whose cgroup namespace
// hides the path, the mount's root is the process's cgroup.
std::vector<std::string> cgroup_dirs(const std::string& mount, const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line, relative;
  while (std::getline(in, line)) {
    // hierarchy-id:controller-list:path
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string list = line.substr(a + 1, b - a - 1);
    const bool match = controller.empty() ? list.empty() : ("," + list + ",").find("," + controller + ",") !=
                                                                    std::string::npos;
    if (match) relative = line.substr(b + 1);
  }
  std::vector<std::string> dirs;
  for (std::string p = relative; !p.empty() && p != "/"; p = p.substr(0, p.rfind('/'))) dirs.push_back(mount + p);
  dirs.push_back(mount);
  return dirs;
}

void cgroup_limits(std::optional<MemoryLimit>& best) {
  for (const auto& dir : cgroup_dirs("/sys/fs/cgroup", "")) {  // v2
    const auto limit = read_bytes_file(dir + "/memory.max");
    const auto usage = read_bytes_file(dir + "/memory.current");
    if (limit && usage) tighten(best, *limit > *usage ? *limit - *usage : 0, "cgroup " + dir + "/memory.max");
  }
  for (const auto& dir : cgroup_dirs("/sys/fs/cgroup/memory", "memory")) {  // v1
    const auto limit = read_bytes_file(dir + "/memory.limit_in_bytes");
    const auto usage = read_bytes_file(dir + "/memory.usage_in_bytes");
    // v1 writes "no limit" as a huge page-rounded number (near 2^63).
    if (limit && usage && *limit < (std::uint64_t{1} << 62))
      tighten(best, *limit > *usage ? *limit - *usage : 0, "cgroup " + dir + "/memory.limit_in_bytes");
  }
}

void rlimits(std::optional<MemoryLimit>& best) {
  const struct {
    int resource;
    const char* name;
    const char* status_key;  // what already counts against it, in /proc/self/status
  } limits[] = {{RLIMIT_AS, "RLIMIT_AS (ulimit -v)", "VmSize"}, {RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)", "VmData"}};
  for (const auto& l : limits) {
    struct rlimit r {};
    if (::getrlimit(l.resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
    const std::uint64_t used = proc_kib("/proc/self/status", l.status_key).value_or(0);
    const auto cap = static_cast<std::uint64_t>(r.rlim_cur);
    tighten(best, cap > used ? cap - used : 0, l.name);
  }
}

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); }

// a * b, saturating (shapes are bounded by 2^62 elements, times a few bytes).
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

std::uint64_t add(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

}  // namespace

std::optional<MemoryLimit> available_memory() {
  std::optional<MemoryLimit> best;
  if (const auto avail = proc_kib("/proc/meminfo", "MemAvailable")) tighten(best, *avail, "MemAvailable in /proc/meminfo");
  cgroup_limits(best);
  rlimits(best);
  return best;
}

std::uint64_t implementation_host_bytes(const Capabilities& caps, const GridShape& shape, std::int64_t fields,
                                        std::int64_t queries) {
  const std::uint64_t values = mul(u64(shape.values()), u64(fields));
  const std::uint64_t n = u64(queries);
  const std::uint64_t out = mul(mul(n, u64(fields)), u64(shape.channels));
  if (caps.arithmetic == "f64") return add(mul(values, 8), mul(out, 8));
  if (caps.device == Device::gpu)
    return add(add(mul(values, 4), mul(mul(n, u64(shape.dims)), 4)), mul(out, 4));
  return add(mul(values, 4), mul(n, shape.dims <= 3 ? 16 : 32));
}

std::uint64_t case_host_bytes(const CaseSpec& spec, const Capabilities& caps, const RunOptions& options) {
  const std::uint64_t values = mul(u64(spec.shape.values()), u64(spec.fields));
  const std::uint64_t n = u64(spec.queries);
  const std::uint64_t C = u64(spec.shape.channels);
  const std::uint64_t F = u64(spec.fields);
  // Queries checked against the oracle (CaseRunner::queries_for).
  const std::uint64_t checked =
      std::min(n, u64(std::max<std::int64_t>(1, options.max_checked_values / std::max<std::int64_t>(1, spec.fields))));
  std::uint64_t need = mul(values, 4 + 8 + 4);  // samples, f64 oracle coefficients, read-back
  need = add(need, mul(n, 4 * u64(spec.shape.dims) + 1));  // coordinates, finite flags
  need = add(need, mul(mul(n, F), 4 * C));                 // the implementation's values
  need = add(need, add(mul(checked, 8), mul(mul(checked, F), 8 * C)));  // checked indices, oracle values
  return add(need, implementation_host_bytes(caps, spec.shape, spec.fields, spec.queries));
}

std::vector<std::optional<std::uint64_t>> runnable_case_bytes(const Plan& plan, const RunOptions& options,
                                                               const ImplFactory& make_impl) {
  std::map<std::string, std::optional<Capabilities>> runnable;  // nullopt: not available here
  std::vector<std::optional<std::uint64_t>> out;
  for (const auto& c : plan.cases) {
    auto [it, fresh] = runnable.try_emplace(c.impl);
    if (fresh) {
      const auto impl = make_impl(c.impl);
      if (impl->availability().ok) it->second = impl->capabilities();
    }
    const auto& caps = it->second;
    if (!caps || !caps->why_not(c.shape.dims, c.shape.channels, c.mode).empty() ||
        (!caps->field_batches && c.fields > 1))
      out.emplace_back();
    else
      out.emplace_back(case_host_bytes(c, *caps, options));
  }
  return out;
}

CaseNeed largest_case_need(const Plan& plan, const RunOptions& options, const ImplFactory& make_impl,
                           const std::map<std::string, nlohmann::json>& finished) {
  const auto bytes = runnable_case_bytes(plan, options, make_impl);
  CaseNeed worst;
  for (std::size_t i = 0; i < plan.cases.size(); ++i)
    if (bytes[i] && !finished.count(plan.cases[i].case_id()) && *bytes[i] > worst.bytes)
      worst = {&plan.cases[i], *bytes[i]};
  return worst;
}

std::string gib(std::uint64_t bytes) {
  const double g = static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30);
  char buf[32];
  std::snprintf(buf, sizeof buf, g >= 10 ? "%.0f" : g >= 1 ? "%.1f" : "%.2f", g);
  return buf;
}

void require_memory(std::uint64_t need, const std::string& what, const std::string& advice) {
  const auto available = available_memory();
  if (!available || need <= available->bytes) return;
  throw Error(what + " needs " + gib(need) + " GiB of host memory, " + gib(available->bytes) + " GiB available (" +
              available->source + ")" + advice);
}

}  // namespace splinebench::runner
