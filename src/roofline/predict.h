#pragma once
// Roofline prediction: each node's time on a device in a power mode, from its FLOPs and bytes.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost.h"
#include "hw/roofline.h"

namespace ridge::roofline {

enum class Traffic { kUnfused, kFused };

struct PredictOptions {
  std::string precision = "fp32";  // of the arithmetic: fp32, fp16, bf16, int8, fp64
  bool allow_tf32 = false;         // let fp32 matrix products use TF32 tensor units
  Traffic traffic = Traffic::kUnfused;
  int64_t batch = 1;  // for throughput (samples/s)
};

// What limits a node's time; one table of names (predict.cpp), as outputs write them.
enum class Bound {
  kCompute,
  kMemory,
  kOverhead,
  kNone,         // no work: views, folded shape arithmetic
  kUnpredicted,  // unknown or unresolved op: named, never counted as zero
};
std::string_view name(Bound bound);
Bound parse_bound(std::string_view text);  // throws ridge::Error listing the names

struct NodePrediction {
  std::string name, op, family;
  double flops = 0,
         bytes = 0;       // the work timed (forward, plus backward in a training step; bytes as --traffic counts them)
  std::string peak_key;   // the ceiling used, e.g. "fp16_tensor"
  double peak_flops = 0;  // that ceiling
  double attainable_flops = 0;  // min(peak, intensity x bandwidth)
  double compute_s = 0, memory_s = 0, overhead_s = 0, time_s = 0;
  Bound bound = Bound::kNone;
  double efficiency = 1;  // calibration factor applied (1 when uncalibrated)
  int kernels = 0;        // kernel launches: forward, plus backward in a training step
  bool predicted = true;  // false for unknown/unresolved nodes (named, never zero)
  std::string note;
  // Shape-aware calibration (calib::apply): the roofline bound the model started from, and the
  // layer this node runs in when optimized mode fuses it (its time is then counted there).
  double roofline_s = 0;
  bool estimated = false;  // time_s comes from a fitted model (else it is the roofline bound)
  std::string fused_into;
  // Energy (roofline/energy.h): e_flop x FLOPs + e_byte x bytes + p_static x time_s, and its mean power.
  double energy_j = 0, power_w = 0;
  // The inference would exceed the board's power limit at the roofline time: time_s is stretched to it.
  bool power_limited = false;
};

// How well a calibration predicted held-out measurements (cross-validated).
struct ValidationError {
  int points = 0;
  double median_abs = 0, p90_abs = 0, within_10 = 0;  // fractions
  std::string unit = "layers";  // what a point is: a layer (CPU calibrations) or a whole run (the GPU's)
};

struct Prediction {
  std::string model;      // the model file predicted (set by the caller: the cost knows no path)
  int64_t batch = 1;      // the batch the throughput counts
  bool training = false;  // a training step (forward, backward, optimizer update) is what time and energy count
  std::string device_id, device_name, mode;
  std::string device_kind;  // the device file's kind: gpu, cpu, soc
  bool calibrated = false;
  std::string calibration_source;
  std::string precision;
  std::vector<NodePrediction> nodes;
  double time_s = 0, compute_bound_s = 0, memory_bound_s = 0, overhead_bound_s = 0;
  double throughput = 0;                             // samples/s
  std::map<std::string, int> unpredicted_ops;        // op type -> count (no cost: unknown or unresolved)
  std::map<std::string, std::string> ceilings_used;  // key -> label (datasheet/theoretical/measured)
  // Set by calib::apply: the model file, the executor conditions predicted, its validation error,
  // and the framework's time outside the nodes (included in time_s).
  std::string calibration_model, exec_mode;
  int threads = 0;
  // What the calibration predicts, for people: "" (the CPU executor at `threads`), "the GPU executor", or the
  // framework whose own timings it was fitted to ("PyTorch 2.11.0+cu130").
  std::string predicts;
  std::optional<ValidationError> validation;
  double framework_overhead_s = 0;
  // Uncalibrated: the per-op overhead the device file gives only as an estimate is left out of the bound (a default
  // may exceed what the hardware does); this is what it would add (kernels x the estimate), shown, never counted.
  double overhead_excluded_s = 0;
  // Energy per inference and average power, when the roofline has energy ceilings (else why not).
  bool energy_predicted = false;
  double energy_j = 0, power_w = 0;
  std::string energy_label, energy_source, energy_missing;
  // The board's power limit (the mode's budget, else the TDP) and what it costs: an inference whose mean power at
  // the roofline time (power_demand_w) would exceed it runs at the limit instead (the hardware throttles), taking
  // the time its dynamic energy needs at that power; every node's time is stretched alike.
  std::optional<double> power_limit_w;
  std::string power_limit_from;  // "budget" (the power mode's) or "tdp"
  double power_demand_w = 0;     // mean power at the roofline time (0: not worked out)
  int power_limited_nodes = 0;
  double power_limited_s = 0;  // time added to time_s by the limit
  std::vector<std::string> notes;
};

// Ops whose work runs on matrix (tensor) units when the device has them.
bool is_matrix_family(const std::string& family);

// Per node that does work, with roofline = max(FLOPs / compute ceiling, bytes / DRAM bandwidth):
//  - uncalibrated, a lower bound: the roofline alone where the device's per-op overhead is an estimate (it is
//    reported in overhead_excluded_s); with a measured overhead, max(roofline, overhead x kernels) on a GPU (a
//    launch overlaps the kernel before it, but kernels on one stream start no closer than the launch spacing)
//    and roofline + overhead x kernels on a CPU (one thread dispatches, then computes);
//  - calibrated per family: roofline / efficiency + the fitted overhead.
// With `cost.training`, the backward pass and the optimizer step are added.
// Throws ridge::Error when the device lacks the ceilings needed (e.g. an unmeasured bandwidth).
Prediction predict(const cost::ModelCost& cost, const hw::Roofline& roofline, const PredictOptions& options);

}  // namespace ridge::roofline
