// `splinebench slurm`: a suite as a Slurm job array, one shard per task (`run --shard
// I/N`, one GPU per task by default), and a merge job that starts when every task has
// succeeded (afterok) and joins the shards into <results-dir>/<machine>/. The two sbatch
// scripts are written into <results-dir>/.slurm/<stamp>/, beside the shard runs and the
// tasks' logs; --dry-run prints them and writes nothing; --submit hands them to sbatch.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli_run_selection.hpp"
#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/suite.hpp"

namespace splinebench::cli {
namespace {

namespace fs = std::filesystem;

struct SlurmArgs {
  RunSelection sel;
  int shards = 0;
  std::string results_dir = "results";
  std::optional<std::string> machine;
  int gpus_per_task = 1;
  std::optional<int> cpus_per_task;
  std::string partition;
  std::string time;
  std::vector<std::string> sbatch_args;  // further #SBATCH lines, as given
  bool submit = false;
  bool dry_run = false;
};

// A word for bash: single-quoted, a quote inside written '\''.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + quoted(w);
  return out;
}

void check(const SlurmArgs& a) {
  if (a.sel.suite.empty() == a.sel.suite_file.empty()) throw Error("give exactly one of --suite NAME or --suite-file PATH");
  if (a.shards < 1 || a.shards > 4096) throw Error("--shards must be in [1, 4096], got " + std::to_string(a.shards));
  if (a.gpus_per_task < 0 || a.gpus_per_task > 64)
    throw Error("--gpus-per-task must be in [0, 64], got " + std::to_string(a.gpus_per_task));
  if (a.cpus_per_task && (*a.cpus_per_task < 1 || *a.cpus_per_task > 4096))
    throw Error("--cpus-per-task must be in [1, 4096], got " + std::to_string(*a.cpus_per_task));
  for (const std::string* v : {&a.partition, &a.time})
    if (v->find_first_of("\n\r") != std::string::npos) throw Error("--partition and --time are one line each");
  for (const auto& extra : a.sbatch_args)
    if (extra.rfind("--", 0) != 0 || extra.find_first_of("\n\r") != std::string::npos)
      throw Error("--sbatch-arg '" + extra + "': one sbatch option per flag, starting with --");
  // The suite exists and parses; the rest of the request is checked by each task's run.
  (void)(a.sel.suite_file.empty() ? runner::find_named_suite(a.sel.suite) : runner::read_suite_file(a.sel.suite_file));
}

struct Scripts {
  std::string shards, merge;
};

Scripts scripts(const SlurmArgs& a, const fs::path& stage, const std::string& machine, const std::string& self,
                const std::string& name) {
  const std::string n = std::to_string(a.shards);
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# splinebench " << name << ": shard ${SLURM_ARRAY_TASK_ID} of " << n << " (splinebench run --shard).\n"
    << "#SBATCH --job-name=" << "splinebench-" << name << "\n"
    << "#SBATCH --array=1-" << n << "\n"
    << "#SBATCH --ntasks=1\n";
  if (a.gpus_per_task > 0) s << "#SBATCH --gpus-per-task=" << a.gpus_per_task << "\n";
  if (a.cpus_per_task) s << "#SBATCH --cpus-per-task=" << *a.cpus_per_task << "\n";
  if (!a.partition.empty()) s << "#SBATCH --partition=" << a.partition << "\n";
  if (!a.time.empty()) s << "#SBATCH --time=" << a.time << "\n";
  for (const auto& extra : a.sbatch_args) s << "#SBATCH " << extra << "\n";
  s << "#SBATCH --output=" << (stage / "shard-%a.log").string() << "\n"
    << "set -euo pipefail\n";
  std::vector<std::string> argv = {self, "run"};
  const auto selection = selection_argv(a.sel);
  argv.insert(argv.end(), selection.begin(), selection.end());
  argv.insert(argv.end(), {"--machine", machine, "--results-dir", (stage / "runs").string()});
  s << "exec " << joined(argv) << " --shard \"${SLURM_ARRAY_TASK_ID}/" << n << "\" --run-dir-file "
    << quoted(stage.string()) << "/shard-\"${SLURM_ARRAY_TASK_ID}\".txt\n";

  std::ostringstream m;
  m << "#!/bin/bash\n"
    << "# splinebench " << name << ": the merge of the " << n << " shards (submitted with --dependency=afterok on "
    << "the array).\n"
    << "#SBATCH --job-name=" << "splinebench-" << name << "-merge\n"
    << "#SBATCH --ntasks=1\n";
  if (!a.partition.empty()) m << "#SBATCH --partition=" << a.partition << "\n";
  m << "#SBATCH --output=" << (stage / "merge.log").string() << "\n"
    << "set -euo pipefail\n"
    << "runs=()\n"
    << "for i in $(seq 1 " << n << "); do runs+=(\"$(cat " << quoted(stage.string()) << "/shard-$i.txt)\"); done\n"
    << "exec " << joined({self, "merge"}) << " \"${runs[@]}\" "
    << joined({"--results-dir", fs::absolute(a.results_dir).string(), "--machine", machine}) << "\n";
  return {s.str(), m.str()};
}

// sbatch --parsable [extra...] script: the job id it prints.
std::string submit(const std::vector<std::string>& extra, const fs::path& script) {
  std::string command = "sbatch --parsable";
  for (const auto& e : extra) command += " " + quoted(e);
  command += " " + quoted(script.string()) + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw Error("cannot run sbatch");
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (status != 0 || out.empty() || out.find_first_not_of("0123456789;") != std::string::npos)
    throw Error("sbatch " + script.string() + " failed" + (out.empty() ? "" : ": " + out) +
                (WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (is Slurm's sbatch on PATH?)" : ""));
  return out.substr(0, out.find(';'));  // "<id>;<cluster>" on a federation
}

void slurm_command(const SlurmArgs& a) {
  check(a);
  const std::string machine = machine_label(a.machine);
  std::string name = a.sel.suite.empty() ? fs::path(a.sel.suite_file).stem().string() : a.sel.suite;
  for (char& c : name)  // a job name and a folder name
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  const fs::path stage = fs::absolute(fs::path(a.results_dir) / ".slurm" /
                                      (runner::utc_compact(runner::Clock::now()) + "-" + name));
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const Scripts s = scripts(a, stage, machine, self, name);
  if (a.dry_run) {
    std::cout << "# " << (stage / "shards.sbatch").string() << "\n" << s.shards << "\n# "
              << (stage / "merge.sbatch").string() << "\n" << s.merge;
    return;
  }
  fs::create_directories(stage / "runs");
  io::write_file_atomically(stage / "shards.sbatch", s.shards);
  io::write_file_atomically(stage / "merge.sbatch", s.merge);
  std::cout << "scripts: " << (stage / "shards.sbatch").string() << ", " << (stage / "merge.sbatch").string() << '\n';
  if (!a.submit) {
    std::cout << "submit: id=$(sbatch --parsable " << quoted((stage / "shards.sbatch").string())
              << ") && sbatch --dependency=afterok:$id " << quoted((stage / "merge.sbatch").string()) << '\n';
    return;
  }
  const std::string array = submit({}, stage / "shards.sbatch");
  const std::string merge = submit({"--dependency=afterok:" + array}, stage / "merge.sbatch");
  std::cout << "submitted: shards job " << array << " (" << a.shards << " tasks), merge job " << merge
            << "; the merged run goes to " << (fs::path(a.results_dir) / machine).string() << "/, its log to "
            << (stage / "merge.log").string() << '\n';
}

void register_slurm(CLI::App& app) {
  auto a = std::make_shared<SlurmArgs>();
  auto* cmd = app.add_subcommand("slurm", "Run a suite as a Slurm job array of shards and a merge job (sbatch)");
  add_selection_options(*cmd, a->sel);
  cmd->add_option("--shards", a->shards, "Tasks of the array: the suite's cases in N shards (run --shard I/N)")
      ->required();
  cmd->add_option("--results-dir", a->results_dir, "Results root (default: results)");
  cmd->add_option("--machine", a->machine, "Machine label: results/<machine>/ (default: short host name)");
  cmd->add_option("--gpus-per-task", a->gpus_per_task, "GPUs per task (default 1; 0: CPU suites)");
  cmd->add_option("--cpus-per-task", a->cpus_per_task, "CPUs per task (default: the cluster's)");
  cmd->add_option("--partition", a->partition, "Slurm partition (default: the cluster's)");
  cmd->add_option("--time", a->time, "Time limit per task, as sbatch takes it (e.g. 00:30:00)");
  cmd->add_option("--sbatch-arg", a->sbatch_args, "A further sbatch option for the shards' script (repeatable)");
  cmd->add_flag("--submit", a->submit, "Submit both jobs with sbatch (otherwise write the scripts and print how)");
  cmd->add_flag("--dry-run", a->dry_run, "Print the two scripts and exit; writes nothing");
  cmd->callback([a] { slurm_command(*a); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_slurm);

}  // namespace splinebench::cli
