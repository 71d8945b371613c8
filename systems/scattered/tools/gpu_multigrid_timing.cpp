// The GPU multigrid's timing at the seed's sizes, printed (no verdict: the acceptance
// numbers of systems/scattered/README.md's targets are read from this output): a 512^2
// image and a 256^3 volume of the smooth field, 20 % top-|Laplacian| samples; on the
// volume the seed's Table 5 schedule (device total, target <= 0.25 s), then MG-PCG and
// plain matrix-free CG to 1e-8 (at most 3000 iterations; MG-PCG / CG iterations, target
// <= 0.1 where CG needs > 400). Each solver is prepared once and solved twice (the first
// solve warms the device up). Exits 2 without a device.
//   build/bin/scattered_gpu_multigrid_timing [--image-only]
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/gpu_operator.hpp"
#include "splinebench/scattered/metrics.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void timing_case(const sb::GridShape& g, double lambda, bool seed_table5) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::smooth, g, 1, 2024);
  const std::vector<double> field(f32.begin(), f32.end());
  const sc::Problem p =
      sc::problem_from_nodes(g, sb::Mode::mirror, field, sc::select_top_laplacian(g, sb::Mode::mirror, field, 0.2), lambda);
  const double max_value = *std::max_element(p.values.begin(), p.values.end());
  const auto rms = [&](const std::vector<float>& c) {
    return sc::rms_g(sc::grid_values(g, sb::Mode::mirror, std::vector<double>(c.begin(), c.end())), field, max_value);
  };
  std::cout << g.to_string() << ", " << p.samples() << " samples (top 20 % |Laplacian|), lambda " << lambda
            << " (host setup " << seconds_since(t0) << " s)" << std::endl;
  if (seed_table5) {
    sc::SeedMultigrid t5;
    t5.n = 3, t5.n0 = t5.n1 = t5.n2 = 2, t5.m = t5.m0 = t5.m1 = t5.m2 = 2, t5.p = 2;
    const auto w0 = std::chrono::steady_clock::now();
    sc::gpu::PreparedMultigrid mg(p, t5);
    const sb::PhaseTimes& st = mg.setup();
    std::cout << "  gpu_mg_seed (Table 5: N=3, others 2, P=2) prepared: sort " << st.get("assemble_sort") << " s, rhs "
              << st.get("assemble_rhs") << " s, levels " << st.get("setup") << " s, wall " << seconds_since(w0) << " s"
              << std::endl;
    for (int rep = 0; rep < 2; ++rep) {
      sb::PhaseTimes tt;
      const auto w1 = std::chrono::steady_clock::now();
      const sc::gpu::MultigridResult r = mg.solve({}, tt);
      std::cout << "    solve " << rep + 1 << ": " << r.report.iterations << " fine iterations, relres "
                << r.report.relres << ", RMS_g " << rms(r.coeffs) << ", solve " << tt.get("solve")
                << " s, device total " << st.get("assemble_sort") + st.get("assemble_rhs") + st.get("setup") + tt.get("solve")
                << " s (target <= 0.25 s), wall " << seconds_since(w1) << " s" << std::endl;
    }
  }
  sc::IterationControl control;
  control.tolerance = 1e-8;
  control.max_iterations = 3000;
  const auto w2 = std::chrono::steady_clock::now();
  sc::gpu::PreparedMultigrid pcg_solver(p, sc::gpu::MgPcgOptions{});
  std::cout << "  gpu_mg_pcg prepared: levels and smoothers " << pcg_solver.setup().get("setup") << " s, wall "
            << seconds_since(w2) << " s" << std::endl;
  int pcg_iterations = 0;
  for (int rep = 0; rep < 2; ++rep) {
    sb::PhaseTimes tp;
    const sc::gpu::MultigridResult pcg = pcg_solver.solve(control, tp);
    pcg_iterations = pcg.report.iterations;
    std::cout << "    to 1e-8: " << sc::to_string(pcg.report.status) << " after " << pcg.report.iterations
              << " iterations, relres " << pcg.report.relres << ", RMS_g " << rms(pcg.coeffs) << ", solve "
              << tp.get("solve") << " s; " << pcg.report.message << std::endl;
  }
  sc::gpu::MatrixFreeCg cg_solver(p);
  sb::PhaseTimes tc;
  const sc::gpu::MatrixFreeCgResult cg = cg_solver.solve(control, tc);
  std::cout << "  gpu_cg_matrix_free to 1e-8: " << sc::to_string(cg.report.status) << " after " << cg.report.iterations
            << " iterations (cap 3000), relres " << cg.report.relres << ", solve " << tc.get("solve") << " s\n";
  std::cout << "  MG-PCG / CG iterations: " << pcg_iterations << " / " << cg.report.iterations << " = "
            << static_cast<double>(pcg_iterations) / std::max(1, cg.report.iterations)
            << " (target <= 0.1 where CG needs > 400)" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  const bool image_only = argc > 1 && std::strcmp(argv[1], "--image-only") == 0;
  if (argc > 2 || (argc == 2 && !image_only)) {
    std::cerr << "usage: scattered_gpu_multigrid_timing [--image-only]\n";
    return 1;
  }
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) {
    std::cerr << "scattered_gpu_multigrid_timing: " << why << "\n";
    return 2;
  }
  try {
    timing_case(sb::GridShape::make({512, 512}), 2.1, false);
    if (!image_only) timing_case(sb::GridShape::make({256, 256, 256}), 0.002, true);
  } catch (const sb::Error& e) {
    std::cerr << "scattered_gpu_multigrid_timing: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
