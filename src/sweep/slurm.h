#pragma once
// A sweep as a SLURM job array: task K runs shard K of the matrix into a store of its own (SQLite
// on a shared filesystem is not safe for concurrent writers), and a job that depends on the whole
// array merges the shard stores into the main store.
#include <string>
#include <vector>

#include "sweep/matrix.h"

namespace ridge::sweep {

struct SlurmOptions {
  std::string partition, gres, time;
  int parallel = 4;  // array tasks, each one shard
  std::string dir;   // scripts, logs and shard stores; empty: ridge-slurm/NAME beside the main store
};

struct SlurmPlan {
  std::string dir;
  int shards = 0;
  std::string array_script, merge_script;  // their text
  std::string array_path, merge_path;      // where they are written
};

// The scripts; `sweep_args` are the options every shard passes on (stage, measurement options).
SlurmPlan plan_slurm(const Matrix& matrix, size_t cells, const std::string& ridge_binary, const std::string& main_store,
                     const std::vector<std::string>& sweep_args, const SlurmOptions& options);
// The shard stores of a plan's directory: DIR/shard-K.db.
std::string shard_store(const std::string& dir, int shard);
// The default scripts directory of a sweep writing into `main_store`.
std::string default_slurm_dir(const Matrix& matrix, const std::string& main_store);

struct Submitted {
  std::string array_job, merge_job;
  int shards = 0;
};
// Writes the scripts and submits them with sbatch (the merge after the array: afterany, so failed
// tasks still get their results merged). Records the job ids in DIR/jobs. Throws ridge::Error with
// sbatch's message.
Submitted submit_slurm(const SlurmPlan& plan);
// The job ids recorded in DIR/jobs (empty when none).
Submitted recorded_jobs(const std::string& dir);

}  // namespace ridge::sweep
