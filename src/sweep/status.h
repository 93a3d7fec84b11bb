#pragma once
// Where a sweep stands (`ridge status`): its cells done, failed, running and pending per stage, from the store
// and the shard stores not merged yet, and, for a sweep submitted as a SLURM array, each shard's task state from
// squeue (queued or running) or sacct (ended).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ridge::sweep {

struct StageCounts {
  std::string stage;  // sanity, quick, full
  int64_t cells = 0, done = 0, failed = 0, running = 0, pending = 0;
};

struct ShardState {
  int shard = 0, shards = 0;
  int64_t cells = 0, done = 0, failed = 0;
  std::string state;  // squeue's or sacct's word, else "ended", "not queued" or "unknown (no squeue)"
};

struct SweepStatus {
  std::string name, file, store;
  std::vector<StageCounts> stages;
  // A sweep submitted with --slurm: the jobs, the directory and the shards of `shard_stage`.
  std::string array_job, merge_job, slurm_dir, shard_stage;
  std::vector<ShardState> shards;
};

// `slurm_dir` "": the sweep's default; `shard_stage`: the stage whose cells the shards are counted in.
SweepStatus sweep_status(const std::string& sweep_file, const std::string& store_path, const std::string& slurm_dir,
                         const std::string& shard_stage);

// The state of each array task of `job` from squeue or, once it has left the queue, sacct; empty when neither
// knows it (or neither is on PATH).
std::map<int, std::string> slurm_task_states(const std::string& job);

// The sweeps a store holds results of, with their counts.
struct StoredSweep {
  std::string name;
  int64_t done = 0, failed = 0;
  std::string last_result;  // when its newest result was made
};
std::vector<StoredSweep> sweeps_in_store(const std::string& store_path);

}  // namespace ridge::sweep
