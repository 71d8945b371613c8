// `splinebench split check`: the split prefilter's conformance (slab_conformance.hpp) on
// ranks that each hold one slab along axis 0: threads of this process (--comm threads
// --ranks N) or MPI processes (--comm mpi, started as `mpirun -np N splinebench split
// check --comm mpi`, or by srun across hosts). Every case's errors against the oracle,
// one line each from rank 0; a failing case exits 1, and --out writes the cases as JSON.
#include <exception>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/slab_comm.hpp"
#include "splinebench/slab_conformance.hpp"
#if defined(SPLINEBENCH_WITH_MPI)
#include "splinebench/distributed/mpi_slab_comm.hpp"
#endif

namespace splinebench::cli {
namespace {

struct SplitCheckArgs {
  std::string comm = "threads";
  int ranks = 4;
  std::optional<std::string> out;
};

// Every rank runs every case; only rank 0's results are kept.
std::vector<nlohmann::json> run_cases(slab::SlabComm& comm) {
  std::vector<nlohmann::json> rows;
  const std::vector<slab::SlabCheckCase> cases = slab::slab_check_cases(comm.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto starts = slab::random_starts(cases[i].extents[0], comm.size(), 77 + i);
    const slab::SlabCheckResult r = slab::check_slab_case(comm, cases[i], starts, 1234 + i);
    if (comm.rank() != 0) continue;
    rows.push_back({{"mode", std::string(to_string(cases[i].mode))},
                    {"extents", cases[i].extents},
                    {"slab_starts", starts},
                    {"prefilter_rel_l2_f64", r.prefilter_rel_l2_f64},
                    {"prefilter_rel_l2_f32", r.prefilter_rel_l2_f32},
                    {"prefilter_f32_bound", r.prefilter_f32_bound},
                    {"interp_max_rel_f64", r.interp_max_rel_f64},
                    {"nan_ok", r.nan_ok},
                    {"verdict", r.pass() ? "pass" : "fail"}});
  }
  return rows;
}

// Rank 0's report; true when every case passes.
bool report(const std::vector<nlohmann::json>& rows, const SplitCheckArgs& args, int ranks) {
  int passed = 0;
  for (const auto& row : rows) {
    std::ostringstream shape;
    for (std::size_t d = 0; d < row["extents"].size(); ++d) shape << (d ? "x" : "") << row["extents"][d].get<long>();
    std::cout << std::left << std::setw(9) << row["mode"].get<std::string>() << std::setw(12) << shape.str()
              << std::scientific << std::setprecision(2) << " f64 rel L2 " << row["prefilter_rel_l2_f64"].get<double>()
              << "  f32 rel L2 " << row["prefilter_rel_l2_f32"].get<double>() << " / "
              << row["prefilter_f32_bound"].get<double>() << "  interp " << row["interp_max_rel_f64"].get<double>()
              << "  " << row["verdict"].get<std::string>() << '\n';
    passed += row["verdict"] == "pass";
  }
  std::cout << passed << " of " << rows.size() << " cases pass on " << ranks << " " << args.comm << " ranks\n";
  if (args.out) {
    const nlohmann::json doc = {{"comm", args.comm}, {"ranks", ranks}, {"cases", rows}};
    io::write_file_atomically(*args.out, doc.dump(1) + "\n");
  }
  return passed == static_cast<int>(rows.size());
}

void check_on_threads(const SplitCheckArgs& args) {
  if (args.ranks < 1 || args.ranks > 64) throw Error("split check: --ranks must be 1..64");
  std::vector<nlohmann::json> rows;
  slab::run_thread_ranks(args.ranks, [&](slab::SlabComm& comm) {
    auto mine = run_cases(comm);
    if (comm.rank() == 0) rows = std::move(mine);
  });
  if (!report(rows, args, args.ranks)) throw Error("split check: a case failed");
}

void check_on_mpi(const SplitCheckArgs& args) {
#if defined(SPLINEBENCH_WITH_MPI)
  distributed::MpiSession session;
  slab::SlabComm& world = session.world();
  bool ok = true;
  try {
    const auto rows = run_cases(world);
    if (world.rank() == 0) ok = report(rows, args, world.size());
  } catch (const std::exception& e) {
    std::cerr << "splinebench split check: rank " << world.rank() << ": " << e.what() << '\n';
    distributed::MpiSession::abort(2);
  }
  double failed = ok ? 0.0 : 1.0;  // rank 0's verdict, for every rank's exit status
  world.allreduce_sum(&failed, 1);
  if (failed != 0.0) throw Error("split check: a case failed");
#else
  (void)args;
  throw Error("split check --comm mpi: this splinebench was built without MPI (install libopenmpi-dev and rebuild)");
#endif
}

void register_split(CLI::App& app) {
  auto* split = app.add_subcommand("split", "A field split along axis 0 into slabs, one per rank (threads or MPI)");
  split->require_subcommand(1);
  auto args = std::make_shared<SplitCheckArgs>();
  auto* check = split->add_subcommand(
      "check", "The split prefilter and routed evaluation against the oracle: every mode, D = 1..4, unequal slabs");
  check->add_option("--comm", args->comm, "threads (this process) or mpi (one rank per process; mpirun or srun)")
      ->check(CLI::IsMember({"threads", "mpi"}));
  check->add_option("--ranks", args->ranks, "Ranks for --comm threads (default 4; MPI: the process count)");
  check->add_option("--out", args->out, "Also write the cases as JSON here (rank 0)");
  check->callback([args] { args->comm == "mpi" ? check_on_mpi(*args) : check_on_threads(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_split);

}  // namespace splinebench::cli
