#include "sweep/slurm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/file.h"
#include "util/program.h"

namespace ridge::sweep {
namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

// A job script: written, then made executable.
void write_script(const std::string& path, const std::string& text) {
  write_file(path, text);
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

std::string shard_store(const std::string& dir, int shard) { return fmt::format("{}/shard-{}.db", dir, shard); }

std::string default_slurm_dir(const Matrix& matrix, const std::string& main_store) {
  return (fs::absolute(main_store).parent_path() / "ridge-slurm" / matrix.name).lexically_normal().string();
}

SlurmPlan plan_slurm(const Matrix& matrix, size_t cells, const std::string& ridge_binary, const std::string& main_store,
                     const std::vector<std::string>& sweep_args, const SlurmOptions& o) {
  if (cells == 0) throw Error("the sweep has no cells to run");
  if (o.parallel < 1) throw Error("--parallel must be at least 1");
  SlurmPlan plan;
  plan.dir = absolute(o.dir.empty() ? default_slurm_dir(matrix, main_store) : o.dir);
  plan.shards = static_cast<int>(std::min<size_t>(static_cast<size_t>(o.parallel), cells));
  plan.array_path = plan.dir + "/array.sbatch";
  plan.merge_path = plan.dir + "/merge.sbatch";
  std::string directives;
  if (!o.partition.empty()) directives += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.gres.empty()) directives += fmt::format("#SBATCH --gres={}\n", o.gres);
  if (!o.time.empty()) directives += fmt::format("#SBATCH --time={}\n", o.time);
  std::string passed;
  for (const auto& a : sweep_args) passed += " " + shell_quote(a);
  auto store = absolute(main_store);
  plan.array_script = fmt::format(
      "#!/bin/bash\n"
      "# ridge sweep '{name}': one array task per shard; each writes its own store (SQLite is not safe\n"
      "# for concurrent writers on a shared filesystem). Cells already in the main store are skipped.\n"
      "#SBATCH --job-name=ridge-{name}\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --output={dir}/shard-%a.out\n"
      "#SBATCH --error={dir}/shard-%a.err\n"
      "{directives}"
      "set -euo pipefail\n"
      "exec {ridge} sweep {file} --shard \"${{SLURM_ARRAY_TASK_ID}}/{shards}\" --store "
      "\"{dir}/shard-${{SLURM_ARRAY_TASK_ID}}.db\" "
      "--done-in {store}{passed}\n",
      fmt::arg("name", matrix.name), fmt::arg("last", plan.shards - 1), fmt::arg("dir", shell_quote(plan.dir)),
      fmt::arg("directives", directives), fmt::arg("ridge", shell_quote(absolute(ridge_binary))),
      fmt::arg("file", shell_quote(absolute(matrix.file))), fmt::arg("shards", plan.shards),
      fmt::arg("store", shell_quote(store)), fmt::arg("passed", passed));
  std::string shards;
  for (int k = 0; k < plan.shards; ++k) shards += " " + shell_quote(shard_store(plan.dir, k));
  plan.merge_script = fmt::format(
      "#!/bin/bash\n"
      "# ridge sweep '{name}': merges the shard stores into the main store once every array task has\n"
      "# ended (submitted with --dependency=afterany:ARRAY_JOB; a shard that never started has no store).\n"
      "#SBATCH --job-name=ridge-{name}-merge\n"
      "#SBATCH --output={dir}/merge.out\n"
      "#SBATCH --error={dir}/merge.err\n"
      "{directives}"
      "set -euo pipefail\n"
      "stores=()\n"
      "for s in{shards}; do [ -f \"$s\" ] && stores+=(\"$s\"); done\n"
      "[ ${{#stores[@]}} -eq 0 ] && {{ echo 'no shard store to merge' >&2; exit 1; }}\n"
      "exec {ridge} store merge \"${{stores[@]}}\" -o {store}\n",
      fmt::arg("name", matrix.name), fmt::arg("dir", shell_quote(plan.dir)), fmt::arg("directives", directives),
      fmt::arg("shards", shards), fmt::arg("ridge", shell_quote(absolute(ridge_binary))),
      fmt::arg("store", shell_quote(store)));
  return plan;
}

Submitted submit_slurm(const SlurmPlan& plan) {
  auto sbatch_path = find_on_path("sbatch");
  if (!sbatch_path)
    throw Error("sbatch is not on PATH: run on a SLURM login node, or use --dry-run to see the scripts");
  fs::create_directories(plan.dir);
  write_script(plan.array_path, plan.array_script);
  write_script(plan.merge_path, plan.merge_script);
  auto sbatch = [&](const std::vector<std::string>& args) {
    auto run = run_program(*sbatch_path, args, 60);
    auto out = trim(run.output);
    if (!run.started) throw Error(fmt::format("sbatch: {}", run.error));
    if (run.timed_out) throw Error("sbatch did not answer within 60 s");
    if (run.exit_code != 0 || out.empty())
      throw Error(fmt::format("sbatch failed ({}): {}", run.exit_code, out.empty() ? "no output" : out));
    // --parsable prints "JOBID" or "JOBID;CLUSTER".
    return out.substr(0, out.find(';'));
  };
  Submitted s;
  s.shards = plan.shards;
  s.array_job = sbatch({"--parsable", plan.array_path});
  s.merge_job = sbatch({"--parsable", "--dependency=afterany:" + s.array_job, plan.merge_path});
  std::ofstream jobs(plan.dir + "/jobs");
  jobs << "array " << s.array_job << "\nmerge " << s.merge_job << "\nshards " << s.shards << "\n";
  return s;
}

Submitted recorded_jobs(const std::string& dir) {
  Submitted s;
  std::ifstream in(dir + "/jobs");
  for (std::string key, value; in >> key >> value;) {
    if (key == "array") s.array_job = value;
    if (key == "merge") s.merge_job = value;
    if (key == "shards") s.shards = std::max(0, std::atoi(value.c_str()));  // a damaged file: no shards
  }
  return s;
}

}  // namespace ridge::sweep
