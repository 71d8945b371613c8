// The GPU multigrid's timing at the seed's sizes, printed (no verdict: the acceptance
// numbers of systems/scattered/README.md's targets are read from this output).
//
// Image: gravel 512^2 (the datasets cache, datasets/README.md: $SPLINEBENCH_DATASETS_DIR
// or .cache/datasets; the smooth 512^2 field when it is not there, said so), mirror,
// lambda 1.8, 20 % top-|Laplacian| samples, MG-PCG to relres 1e-8 with the coarsest level
// at most 256 (the default), then with one option changed each: the V-cycles launched one
// by one or replayed from a CUDA graph (MgPcgOptions::vcycle_graph), the fine level
// matrix-free (MgPcgOptions::fine_stencil off), the coarsest at most 64 and 1024 nodes. Per variant, after one untimed run that
// warms the device up, `repeat` runs each prepared from the samples and solved once:
//   whole run    host wall time of preparing (levels on the host, upload, sort, F^T f,
//                stencils, the coarsest's inverse, smoothers) and one solve with its
//                readback: what one reconstruction from the samples costs (target <= 5 ms)
//   solve        device time of the iterations alone (CUDA events)
// with the median and the fastest of each, the iterations (target 9 to 16) and the
// phases of the last run; then a second solve on the last prepared hierarchy.
// Volume (unless --image-only): 256^3 smooth field, lambda 0.002, 20 % samples: the seed's
// Table 5 schedule (device total, target <= 0.25 s), MG-PCG (whole run, target <= 60 ms)
// and matrix-free CG to 1e-8 (at most 3000 iterations; MG-PCG / CG iterations, target
// <= 0.1 where CG needs > 400).
// Exits 2 without a device, 1 on a usage or solver error.
//   build/bin/scattered_gpu_multigrid_timing [--image-only] [--repeat N]   (N >= 1, default 5)
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "splinebench/datasets.hpp"
#include "splinebench/datasets/real.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/gpu_operator.hpp"
#include "splinebench/scattered/metrics.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Field {
  std::string name;
  sb::GridShape grid;
  std::vector<double> values;
};

Field image() {
  try {
    const sb::datasets::RealDataset d = sb::datasets::load_real_dataset("gravel");
    return {"gravel", sb::GridShape::make(d.info.grid), std::vector<double>(d.values.begin(), d.values.end())};
  } catch (const sb::datasets::DatasetUnavailable& e) {
    std::cout << "gravel is not in the datasets cache (" << e.what() << "): the smooth 512^2 field instead" << std::endl;
    const sb::GridShape g = sb::GridShape::make({512, 512});
    const std::vector<float> f = sb::datasets::make_field(sb::datasets::FieldKind::smooth, g, 1, 2024);
    return {"smooth", g, std::vector<double>(f.begin(), f.end())};
  }
}

sc::Problem problem_of(const Field& f, double lambda) {
  return sc::problem_from_nodes(f.grid, sb::Mode::mirror, f.values,
                                sc::select_top_laplacian(f.grid, sb::Mode::mirror, f.values, 0.2), lambda);
}

double rms_of(const Field& f, const sc::Problem& p, const std::vector<float>& c) {
  const double max_value = *std::max_element(p.values.begin(), p.values.end());
  return sc::rms_g(sc::grid_values(f.grid, sb::Mode::mirror, std::vector<double>(c.begin(), c.end())), f.values,
                   max_value);
}

std::string levels_of(const sc::gpu::MultigridResult& r) {
  std::string s;
  for (const sb::GridShape& g : r.grids) {
    if (!s.empty()) s += ' ';
    s += g.to_string();
  }
  return s;
}

// MG-PCG prepared from the samples and solved once, `repeat` times after a warm-up;
// returns the iterations of the last run.
int time_pcg(const Field& f, const sc::Problem& p, const sc::gpu::MgPcgOptions& options, int repeat) {
  sc::IterationControl control;
  control.tolerance = 1e-8;
  control.max_iterations = 3000;
  std::vector<double> whole, solve;
  sc::gpu::MultigridResult last;
  sb::PhaseTimes setup, times;
  for (int run = 0; run <= repeat; ++run) {
    const auto t0 = Clock::now();
    sc::gpu::PreparedMultigrid mg(p, options);
    sb::PhaseTimes t;
    sc::gpu::MultigridResult r = mg.solve(control, t);
    const double w = seconds_since(t0);
    if (run == 0) continue;  // the warm-up
    whole.push_back(w);
    solve.push_back(t.get("solve"));
    if (run == repeat) {
      setup = mg.setup();
      times = t;
      last = std::move(r);
      sb::PhaseTimes again;
      const sc::gpu::MultigridResult r2 = mg.solve(control, again);
      std::cout << "    again on the prepared hierarchy: " << r2.report.iterations << " iterations, solve "
                << again.get("solve") * 1e3 << " ms, readback " << again.get(sb::phase::readback) * 1e3 << " ms"
                << std::endl;
    }
  }
  std::cout << "    " << sc::to_string(last.report.status) << " after " << last.report.iterations
            << " iterations, relres " << last.report.relres << ", RMS_g " << rms_of(f, p, last.coeffs) << "; levels "
            << levels_of(last) << std::endl;
  std::cout << "    whole run median " << median(whole) * 1e3 << " ms (fastest "
            << *std::min_element(whole.begin(), whole.end()) * 1e3 << "), solve (device) median " << median(solve) * 1e3
            << " ms (fastest " << *std::min_element(solve.begin(), solve.end()) * 1e3 << "), over " << repeat
            << " runs" << std::endl;
  std::cout << "    last run's phases: upload " << setup.get(sb::phase::upload) * 1e3 << " ms, sort "
            << setup.get("assemble_sort") * 1e3 << " ms, F^T f " << setup.get("assemble_rhs") * 1e3 << " ms, setup "
            << setup.get("setup") * 1e3 << " ms, solve " << times.get("solve") * 1e3 << " ms, readback "
            << times.get(sb::phase::readback) * 1e3 << " ms"
            << (last.report.message.empty() ? "" : "; " + last.report.message) << "; V-cycles: " << last.vcycle
            << std::endl;
  // One more preparation, timed by part: each part waits for its device work, so this one
  // is slower than the runs above and only says where their time goes.
  sc::gpu::MgPcgOptions timed = options;
  timed.time_setup_parts = true;
  const auto t_parts = Clock::now();
  const sc::gpu::PreparedMultigrid by_parts(p, timed);
  const double parts_s = seconds_since(t_parts);
  std::cout << "    a preparation timed by part, " << parts_s * 1e3 << " ms in all (ms):";
  for (const auto& [name, seconds] : by_parts.setup_parts()) std::cout << " " << name << " " << seconds * 1e3 << ";";
  std::cout << std::endl;
  return last.report.iterations;
}

void image_case(int repeat) {
  const Field f = image();
  const double lambda = 1.8;
  const auto t0 = Clock::now();
  const sc::Problem p = problem_of(f, lambda);
  std::cout << f.name << " " << f.grid.to_string() << ", " << p.samples() << " samples (top 20 % |Laplacian|), lambda "
            << lambda << " (host problem " << seconds_since(t0) << " s)" << std::endl;
  struct Variant {
    std::int64_t coarsest;
    bool graph, fine_stencil;
  };
  // The default first, then one change each: V-cycles by launches, the fine level
  // matrix-free (the level below it from the samples), a smaller and a larger coarsest.
  const sc::gpu::MgPcgOptions defaults;
  for (const Variant v : {Variant{defaults.coarsest_max_unknowns, defaults.vcycle_graph, defaults.fine_stencil},
                          Variant{defaults.coarsest_max_unknowns, !defaults.vcycle_graph, defaults.fine_stencil},
                          Variant{defaults.coarsest_max_unknowns, defaults.vcycle_graph, !defaults.fine_stencil},
                          Variant{64, defaults.vcycle_graph, defaults.fine_stencil},
                          Variant{1024, defaults.vcycle_graph, defaults.fine_stencil}}) {
    sc::gpu::MgPcgOptions options;
    options.coarsest_max_unknowns = v.coarsest;
    options.vcycle_graph = v.graph;
    options.fine_stencil = v.fine_stencil;
    std::cout << "  gpu_mg_pcg to 1e-8, coarsest <= " << v.coarsest << " nodes"
              << (v.graph ? ", V-cycle from a CUDA graph" : ", V-cycle by launches")
              << (v.fine_stencil ? ", fine level as a stencil" : ", fine level matrix-free")
              << (v.coarsest == defaults.coarsest_max_unknowns && v.graph == defaults.vcycle_graph &&
                          v.fine_stencil == defaults.fine_stencil
                      ? " (default)"
                      : "")
              << ":" << std::endl;
    time_pcg(f, p, options, repeat);
  }
}

void volume_case(int repeat) {
  const sb::GridShape g = sb::GridShape::make({256, 256, 256});
  const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::smooth, g, 1, 2024);
  const Field f{"smooth", g, std::vector<double>(f32.begin(), f32.end())};
  const double lambda = 0.002;
  const auto t0 = Clock::now();
  const sc::Problem p = problem_of(f, lambda);
  std::cout << f.name << " " << g.to_string() << ", " << p.samples() << " samples (top 20 % |Laplacian|), lambda "
            << lambda << " (host problem " << seconds_since(t0) << " s)" << std::endl;
  sc::SeedMultigrid t5;
  t5.n = 3, t5.n0 = t5.n1 = t5.n2 = 2, t5.m = t5.m0 = t5.m1 = t5.m2 = 2, t5.p = 2;
  const auto w0 = Clock::now();
  sc::gpu::PreparedMultigrid seed(p, t5);
  const sb::PhaseTimes& st = seed.setup();
  std::cout << "  gpu_mg_seed (Table 5: N=3, others 2, P=2) prepared: sort " << st.get("assemble_sort") << " s, rhs "
            << st.get("assemble_rhs") << " s, levels " << st.get("setup") << " s, wall " << seconds_since(w0) << " s"
            << std::endl;
  for (int rep = 0; rep < 2; ++rep) {
    sb::PhaseTimes tt;
    const auto w1 = Clock::now();
    const sc::gpu::MultigridResult r = seed.solve({}, tt);
    std::cout << "    solve " << rep + 1 << ": " << r.report.iterations << " fine iterations, relres " << r.report.relres
              << ", RMS_g " << rms_of(f, p, r.coeffs) << ", solve " << tt.get("solve") << " s, device total "
              << st.get("assemble_sort") + st.get("assemble_rhs") + st.get("setup") + tt.get("solve")
              << " s (target <= 0.25 s), wall " << seconds_since(w1) << " s" << std::endl;
  }
  std::cout << "  gpu_mg_pcg to 1e-8 (default options; target: whole run <= 60 ms):" << std::endl;
  const int pcg_iterations = time_pcg(f, p, sc::gpu::MgPcgOptions{}, std::min(repeat, 2));
  sc::IterationControl control;
  control.tolerance = 1e-8;
  control.max_iterations = 3000;
  sc::gpu::MatrixFreeCg cg_solver(p);
  sb::PhaseTimes tc;
  const sc::gpu::MatrixFreeCgResult cg = cg_solver.solve(control, tc);
  std::cout << "  gpu_cg_matrix_free to 1e-8: " << sc::to_string(cg.report.status) << " after " << cg.report.iterations
            << " iterations (cap 3000), relres " << cg.report.relres << ", solve " << tc.get("solve") << " s\n";
  std::cout << "  MG-PCG / CG iterations: " << pcg_iterations << " / " << cg.report.iterations << " = "
            << static_cast<double>(pcg_iterations) / std::max(1, cg.report.iterations)
            << " (target <= 0.1 where CG needs > 400)" << std::endl;
}

int usage() {
  std::cerr << "usage: scattered_gpu_multigrid_timing [--image-only] [--repeat N]\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool image_only = false;
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--image-only") == 0) {
      image_only = true;
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 1000) return usage();
      repeat = static_cast<int>(v);
    } else {
      return usage();
    }
  }
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) {
    std::cerr << "scattered_gpu_multigrid_timing: " << why << "\n";
    return 2;
  }
  try {
    image_case(repeat);
    if (!image_only) volume_case(repeat);
  } catch (const sb::Error& e) {
    std::cerr << "scattered_gpu_multigrid_timing: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
