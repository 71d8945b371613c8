#include "splinebench/scattered/gpu_multigrid.hpp"

#include <chrono>

#include "coarsest_direct.hpp"
#include "device_report.hpp"
#include "galerkin_level.hpp"
#include "multigrid_device.hpp"
#include "stencil_level.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

static_assert(kMaxCoarsestUnknowns == detail::kMaxDirectRows, "the public bound is the direct solve's");

namespace {

void require_device(const Problem& problem, const char* what) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported(std::string("scattered GPU ") + what + ": " + why);
  problem.validate();
}

MultigridResult convert(detail::MgDeviceOutput&& dev, const std::vector<detail::Level>& levels, PhaseTimes& times) {
  times.add("solve", dev.solve_s);
  times.add(phase::readback, dev.readback_s);
  MultigridResult out;
  for (const auto& l : levels) out.grids.push_back(l.grid);
  out.level_iterations = dev.level_iterations;
  out.vcycle = dev.vcycle;
  SolveReport& rep = out.report;
  rep = detail::report_from_device(dev);
  rep.relres = dev.true_relres;
  detail::keep_if_finite(rep, dev.x);
  out.coeffs = std::move(dev.x);
  return out;
}

void record_setup(const detail::MgDevice& d, PhaseTimes& setup) {
  setup.add(phase::upload, d.upload_s);
  setup.add("assemble_sort", d.sort_s);
  setup.add("assemble_rhs", d.rhs_s);
  setup.add("setup", d.setup_s);
}

const detail::Level& level_of(const std::vector<detail::Level>& levels, int level, bool needs_next) {
  if (level < 0 || level >= static_cast<int>(levels.size()) - (needs_next ? 1 : 0))
    fail("GPU multigrid: level " + std::to_string(level) + " of " + std::to_string(levels.size()));
  return levels[static_cast<std::size_t>(level)];
}

}  // namespace

struct PreparedMultigrid::Impl {
  std::vector<detail::Level> levels;
  std::unique_ptr<detail::MgDevice> device;
  bool seed = false;
  detail::SeedSchedule schedule;
};

PreparedMultigrid::PreparedMultigrid(const Problem& problem, const SeedMultigrid& params)
    : impl_(std::make_unique<Impl>()) {
  require_device(problem, "seed multigrid");
  for (int v : {params.n, params.n0, params.n1, params.n2, params.m, params.m0, params.m1, params.m2, params.p})
    if (v < 0) fail("GPU seed multigrid: parameters must be >= 0");
  impl_->seed = true;
  detail::SeedSchedule& s = impl_->schedule;
  s.n = params.n, s.n0 = params.n0, s.n1 = params.n1, s.n2 = params.n2;
  s.m = params.m, s.m0 = params.m0, s.m1 = params.m1, s.m2 = params.m2;
  impl_->levels = detail::make_levels(problem, params.p, 0);
  impl_->device = std::make_unique<detail::MgDevice>(impl_->levels, nullptr);
  record_setup(*impl_->device, setup_);
}

PreparedMultigrid::PreparedMultigrid(const Problem& problem, const MgPcgOptions& options)
    : impl_(std::make_unique<Impl>()) {
  require_device(problem, "MG-PCG");
  if (options.coarsest_max_unknowns < 1 || options.coarsest_max_unknowns > kMaxCoarsestUnknowns)
    fail("GPU MG-PCG: coarsest_max_unknowns must be in [1, " + std::to_string(kMaxCoarsestUnknowns) + "] (the coarsest " +
         "level is inverted as a dense matrix), not " + std::to_string(options.coarsest_max_unknowns));
  detail::VCycleSettings s;
  s.degree = options.chebyshev_degree;
  s.graph = options.vcycle_graph;
  s.first_stencil = options.fine_stencil && fine_stencil_bytes(problem.grid) <= kFineStencilMaxBytes ? 0 : 1;
  s.time_parts = options.time_setup_parts;
  const auto t0 = std::chrono::steady_clock::now();
  // Samples on the levels formed from them: the fine one, and the next where it is the
  // first stencil level.
  impl_->levels = detail::make_levels(problem, -1, options.coarsest_max_unknowns, s.first_stencil + 1);
  setup_parts_.emplace_back("levels on the host",
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  impl_->device = std::make_unique<detail::MgDevice>(impl_->levels, &s);
  record_setup(*impl_->device, setup_);
  for (const auto& part : impl_->device->setup_parts) setup_parts_.push_back(part);
}

PreparedMultigrid::~PreparedMultigrid() = default;

MultigridResult PreparedMultigrid::solve(const IterationControl& control, PhaseTimes& times) {
  detail::MgDevice& d = *impl_->device;
  return convert(impl_->seed ? d.solve_seed(impl_->schedule) : d.solve_pcg(control.max_iterations, control.tolerance),
                 impl_->levels, times);
}

namespace {
MultigridResult prepare_and_solve(PreparedMultigrid& mg, const IterationControl& control, PhaseTimes& times) {
  MultigridResult r = mg.solve(control, times);
  for (const auto& [k, v] : mg.setup().entries()) times.add(k, v);
  return r;
}
}  // namespace

MultigridResult mg_seed_f32(const Problem& problem, const SeedMultigrid& params, PhaseTimes& times) {
  PreparedMultigrid mg(problem, params);
  return prepare_and_solve(mg, {}, times);
}

MultigridResult mg_pcg_f32(const Problem& problem, const IterationControl& control, PhaseTimes& times,
                           const MgPcgOptions& options) {
  PreparedMultigrid mg(problem, options);
  return prepare_and_solve(mg, control, times);
}

std::vector<GridShape> multigrid_grids(const Problem& problem, int coarsenings) {
  std::vector<GridShape> grids;
  for (const auto& l : detail::make_levels(problem, coarsenings, 0)) grids.push_back(l.grid);
  return grids;
}

std::vector<float> apply_level_operator(const Problem& problem, int coarsenings, int level, const std::vector<float>& p) {
  require_device(problem, "multigrid level");
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  return detail::apply_level(level_of(levels, level, false), p);
}

std::vector<float> apply_level_transfer(const Problem& problem, int coarsenings, int level, const std::vector<float>& v,
                                        bool prolongate) {
  require_device(problem, "multigrid transfer");
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  return detail::apply_transfer(level_of(levels, level, true), v, prolongate);
}

std::vector<double> level_stencil_host(const Problem& problem, int coarsenings, int level) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  detail::StencilGeometry geo;
  return detail::form_stencil_host(level_of(levels, level, false), geo);
}

std::vector<double> apply_level_stencil_host(const Problem& problem, int coarsenings, int level,
                                             const std::vector<double>& p) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  detail::StencilGeometry geo;
  const std::vector<double> value = detail::form_stencil_host(level_of(levels, level, false), geo);
  if (p.size() != static_cast<std::size_t>(geo.nodes))
    fail("apply_level_stencil_host: p has " + std::to_string(p.size()) + " values for " + std::to_string(geo.nodes) +
         " rows");
  return detail::apply_stencil_host(geo, value, p);
}

std::vector<float> apply_level_stencil_host_f32(const Problem& problem, int coarsenings, int level,
                                                const std::vector<float>& p) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  detail::StencilGeometry geo;
  const std::vector<double> value = detail::form_stencil_host(level_of(levels, level, false), geo);
  if (p.size() != static_cast<std::size_t>(geo.nodes))
    fail("apply_level_stencil_host_f32: p has " + std::to_string(p.size()) + " values for " +
         std::to_string(geo.nodes) + " rows");
  return detail::apply_stencil_rows_host(geo, std::vector<float>(value.begin(), value.end()), p);
}

std::vector<float> level_stencil_device(const Problem& problem, int coarsenings, int level) {
  require_device(problem, "multigrid stencil");
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  return detail::level_stencil(level_of(levels, level, false));
}

std::vector<float> apply_level_stencil(const Problem& problem, int coarsenings, int level, const std::vector<float>& p,
                                       StencilRows rows) {
  require_device(problem, "multigrid stencil");
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  return detail::apply_level_stencil(level_of(levels, level, false), p, rows);
}

namespace {
// Level `level` of the hierarchy coarsened `coarsenings` times, checked as a direct level.
const detail::Level& direct_level(const std::vector<detail::Level>& levels, int level, const char* who) {
  const detail::Level& l = level_of(levels, level, false);
  if (l.layout.rows > kMaxCoarsestUnknowns)
    fail(std::string(who) + ": level " + std::to_string(level) + " has " + std::to_string(l.layout.rows) +
         " nodes, more than a direct solve takes (" + std::to_string(kMaxCoarsestUnknowns) + ")");
  return l;
}
}  // namespace

namespace {
SparseMatrix stencil_matrix(const detail::StencilGeometry& geo, const std::vector<double>& value) {
  std::vector<Eigen::Triplet<double, int>> entries;
  for (long long node = 0; node < geo.nodes; ++node) {
    int k[3];
    geo.unflat(node, k);
    for (int e = 0; e < geo.entries; ++e) {
      const double v = value[static_cast<std::size_t>(e * geo.nodes + node)];
      if (v == 0) continue;  // an offset that is not its coupling's canonical one (or a zero coupling)
      int d[3], j[3];
      geo.offsets(e, d);
      for (int a = 0; a < 3; ++a) j[a] = detail::fold_near(geo.mode[a], k[a] + d[a], geo.n[a]);
      const long long col = (static_cast<long long>(j[0]) * geo.n[1] + j[1]) * geo.n[2] + j[2];
      entries.emplace_back(static_cast<int>(node), static_cast<int>(col), v);
    }
  }
  SparseMatrix m(static_cast<int>(geo.nodes), static_cast<int>(geo.nodes));
  m.setFromTriplets(entries.begin(), entries.end());
  return m;
}

// Level `level`'s Galerkin stencil on the host (geometry geo), from level 0's.
std::vector<double> galerkin_host(const std::vector<detail::Level>& levels, int level, detail::StencilGeometry& geo) {
  std::vector<double> value = detail::form_stencil_host(levels[0], geo);
  for (int l = 0; l < level; ++l) value = detail::galerkin_level_host(levels[static_cast<std::size_t>(l)], geo, value);
  return value;
}
}  // namespace

SparseMatrix level_matrix_host(const Problem& problem, int coarsenings, int level) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  detail::StencilGeometry geo;
  return stencil_matrix(geo, detail::form_stencil_host(level_of(levels, level, false), geo));
}

std::vector<double> galerkin_level_stencil_host(const Problem& problem, int coarsenings, int level) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0, 1);
  level_of(levels, level, false);
  detail::StencilGeometry geo;
  return galerkin_host(levels, level, geo);
}

SparseMatrix galerkin_level_matrix_host(const Problem& problem, int coarsenings, int level) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0, 1);
  level_of(levels, level, false);
  detail::StencilGeometry geo;
  const std::vector<double> value = galerkin_host(levels, level, geo);
  return stencil_matrix(geo, value);
}

std::vector<double> galerkin_level_stencil_device(const Problem& problem, int coarsenings, int level) {
  require_device(problem, "multigrid Galerkin level");
  const auto levels = detail::make_levels(problem, coarsenings, 0, 1);
  level_of(levels, level, false);
  return detail::galerkin_level_stencil(levels, level);
}

std::vector<double> level_matrix_dense_host(const Problem& problem, int coarsenings, int level) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  return detail::dense_level_matrix_host(direct_level(levels, level, "level_matrix_dense_host"));
}

std::vector<double> coarsest_inverse_host(const Problem& problem, int coarsenings, int level) {
  problem.validate();
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  const detail::Level& l = direct_level(levels, level, "coarsest_inverse_host");
  return detail::sweep_inverse_host(detail::dense_level_matrix_host(l), l.layout.rows);
}

std::vector<float> apply_coarsest_host(const Problem& problem, int coarsenings, int level, const std::vector<float>& b) {
  const std::vector<double> inverse = coarsest_inverse_host(problem, coarsenings, level);
  return detail::apply_inverse_rows_host(std::vector<float>(inverse.begin(), inverse.end()), b);
}

std::vector<float> coarsest_inverse_device(const Problem& problem, int coarsenings, int level) {
  require_device(problem, "multigrid coarsest solve");
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  return detail::coarsest_inverse(direct_level(levels, level, "coarsest_inverse_device"));
}

std::vector<float> apply_coarsest(const Problem& problem, int coarsenings, int level, const std::vector<float>& b) {
  require_device(problem, "multigrid coarsest solve");
  const auto levels = detail::make_levels(problem, coarsenings, 0);
  const detail::Level& l = direct_level(levels, level, "apply_coarsest");
  if (b.size() != static_cast<std::size_t>(l.layout.rows))
    fail("apply_coarsest: b has " + std::to_string(b.size()) + " values for " + std::to_string(l.layout.rows) + " rows");
  return detail::apply_coarsest(l, b);
}

std::vector<double> sweep_dense_host(const std::vector<double>& a, std::int64_t n) {
  std::vector<double> swept = detail::sweep_inverse_host(a, n);
  for (double& v : swept) v = -v;  // sweep_inverse_host negates the swept matrix; negation is exact
  return swept;
}

DeviceSweeps sweep_dense_device(const std::vector<double>& a, std::int64_t n, CoarsestSweeps form) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported("scattered GPU multigrid coarsest sweeps: " + why);
  DeviceSweeps out;
  long long bad = -1;
  out.swept = detail::sweep_dense(a, n, form, bad, out.device_s);
  out.bad_pivot = bad;
  return out;
}

std::array<std::vector<double>, 3> level_axis_tables(Mode mode, int n, double length, double scale) {
  return detail::level_axis_integrals(mode, n, length, scale);
}

}  // namespace splinebench::scattered::gpu
