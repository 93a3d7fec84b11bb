#pragma once
// What a measurement produces: plain data that the report writers print and that can be stored.
#include <cstdint>
#include <string>
#include <vector>

#include "sys/statistics.h"

namespace ridge::exec {

// Where a measurement was taken, recorded with every result.
struct Environment {
  std::string cpu_model;
  int logical_cpus = 0;
  int threads = 0;  // intra-op threads used
  std::string device = "cpu";
  std::string torch_version;
  std::string backend_info;  // oneDNN/OpenMP/BLAS as the library reports them
  std::string ridge_version, ridge_revision;
};

struct NodeTiming {
  std::string name, op_type;
  double mean_ms = 0;  // mean over the profile's passes
  double percent = 0;  // of the summed node times
  // Layer descriptors for users of layer-wise tooling (conv/matmul; 0 / "" otherwise).
  int64_t in_channels = 0, out_channels = 0;
  std::string kernel_size;
  std::string algorithm;  // convolution algorithm used, when one was chosen
  // The analytical model's figures for this node under that algorithm (convolutions; else -1).
  int64_t predicted_flops = -1, workspace_bytes = -1;
  // A training step's parts of mean_ms (their sum): the node's forward, and the backward of what it computed
  // (0 where no gradient flows through it); -1: not a training step's profile.
  double forward_ms = -1, backward_ms = -1;
  // Median over the profile's passes: a stall in one pass moves the mean of a small node by its whole length and
  // leaves the median; -1 where not kept (training steps, the GPU executor, imports, files written before it was).
  double median_ms = -1;
};

// The time a fit or a comparison takes for a node: its median where the profile kept one, else its mean.
inline double typical_ms(const NodeTiming& t) { return t.median_ms >= 0 ? t.median_ms : t.mean_ms; }

struct OpTypeTiming {
  std::string op_type;
  int64_t nodes = 0;
  double total_ms = 0, percent = 0;
};

// Power over a run's timed window (`ridge bench --power`); `measured` false: not asked for, or the
// window held too few sensor samples (a note says which).
struct BenchPower {
  std::string source;  // the --power spec
  bool measured = false;
  bool dynamic_only = false;  // idle power subtracted from mean_w and the energies
  double mean_w = 0, energy_j = 0;
  double energy_per_inference_j = 0;  // energy / timed runs; one inference = one run of the batch
  double idle_w = -1;                 // measured before the runs; -1: not measured (--idle-time 0)
  double window_s = 0;
  int64_t samples = 0;  // sensor samples inside the timed window
};

// Device memory of a GPU run, from the executor's allocator; -1: not a GPU run.
struct DeviceMemory {
  int64_t peak_bytes = -1;       // the most in use at once (activations, weights, workspace)
  int64_t weights_bytes = -1;    // weights and constants uploaded
  int64_t workspace_bytes = -1;  // the largest convolution workspace
  int64_t reserved_bytes = -1;   // held from the driver at the end (the allocator's cache included)
  // A training run's: the activations kept from the forward for the backward, and the optimizer's state (momentum,
  // Adam's moments); -1 for inference.
  int64_t saved_bytes = -1;
  int64_t optimizer_state_bytes = -1;
};

struct BenchResult {
  std::string model;
  int64_t batch = 0;
  std::string input_size;  // the swept input size, or the first input's shape
  std::string mode, precision, memory_format, conv_algo;
  bool training = false;
  std::string optimizer;
  bool random_weights = false;
  sys::Summary latency_ms;
  double throughput = 0;  // samples (batch items) per second, from the mean latency
  std::string stop_reason;
  double warmup_runs = 0;
  // steady_clock seconds at the start of the first and the end of the last timed run: the window a
  // power trace is cut to (the executor runs in-process, so the clock is shared).
  double timed_start_s = 0, timed_end_s = 0;
  BenchPower power;
  DeviceMemory device_memory;
  std::vector<NodeTiming> nodes;
  std::vector<OpTypeTiming> op_types;
  // Per-node profile: the summed node times against the whole run, and what is left over per node
  // (framework time outside the kernels: dispatch, allocation, bookkeeping).
  double node_sum_ms = 0, profiled_run_ms = 0, overhead_per_node_us = 0;
  int64_t executed_nodes = 0;
  // A GPU's eager inference run: the host's time to issue one run (until its last launch returns, the median of
  // the timed runs) over the executed nodes; -1 where not measured (the CPU runs synchronously, a CUDA graph is one
  // launch).
  double host_enqueue_per_node_us = -1;
  std::vector<double> training_losses;  // the loss of every timed training step, in order
  Environment environment;
  std::string timestamp;  // when the run finished, UTC, ISO 8601
  std::vector<std::string> notes;
};

}  // namespace ridge::exec
