#pragma once
// The shape-aware calibration model. Per layer kind and executor mode:
//   log(time) = log(roofline floor) + linear(features) + trees(features)
// The floor is max(FLOPs / ceiling, bytes / DRAM bandwidth) with the ceilings the model was fitted
// against (stored with it). The linear stage (least squares with Eigen) carries the trends that
// must extrapolate beyond the sampled sizes; gradient-boosted trees (XGBoost's C API) learn what a
// straight line cannot (cache capacity steps, blocking effects, thread scaling), as nn-Meter's
// kernel predictors do. Kinds with too few samples keep the linear stage only (or a constant ratio).
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calib/sample.h"

namespace ridge::calib {

// Relative errors (predicted / measured - 1) summarised as users read them.
struct ErrorStats {
  int points = 0;
  double median_abs = 0, p90_abs = 0;  // fractions (0.05 = 5%)
  double within_10 = 0;                // share of points within +-10%
};
ErrorStats error_stats(const std::vector<double>& relative_errors);

// The ceilings the floor is computed with (fp32 unless the model says otherwise).
struct Ceilings {
  double vector_flops = 0;  // FLOP/s of the vector units
  double matrix_flops = 0;  // FLOP/s of matrix products (measured GEMM rate where known)
  double dram_bytes_per_s = 0;
  std::string precision = "fp32";
  // The cores the compute ceilings were measured on (a CPU device file's; 0 on a GPU, or where unknown). A layer run
  // on fewer threads has a compute floor in proportion: one thread of two cannot reach the two-thread peak, so the
  // fit's ratio time / floor means the same at every thread count, and the range a prediction is clamped to
  // (model.cpp) keeps a one-thread layer from the two-thread layers' efficiency.
  double threads = 0;
};
double floor_s(const LayerFeatures& f, const Ceilings& c);  // never below 1 ns

struct FitOptions {
  int folds = 5;     // cross-validation folds
  int rounds = 150;  // boosting rounds
  int max_depth = 4;
  double learning_rate = 0.1;
  int min_samples_for_trees = 24;
  int min_samples_for_linear = 6;
  int threads = 0;  // XGBoost threads (0: its default)
  uint64_t seed = 0;
  // "cpu": per (kind, mode) models of node times; "cuda": the GPU executor's device and host times fitted to
  // whole runs (gpu_model.h), validated by holding out one model's runs at a time; "pytorch": the same fit to
  // PyTorch's whole-model timings.
  std::string executor = "cpu";
};

class KindModel;     // model.cpp: linear coefficients and the booster
class GpuTimeModel;  // gpu_model.h

class ShapeModel {
 public:
  ShapeModel();
  ~ShapeModel();
  ShapeModel(ShapeModel&&) noexcept;
  ShapeModel& operator=(ShapeModel&&) noexcept;

  // Fits one model per (kind, mode) present in `samples`, and the framework overhead per mode and
  // thread count from `overheads`; cross-validates (k folds) and keeps the held-out errors.
  // Throws ridge::Error when there is nothing to fit.
  static ShapeModel fit(const std::vector<Sample>& samples, const std::vector<OverheadSample>& overheads,
                        const Ceilings& ceilings, const FitOptions& options = {});

  // Seconds for one layer measured as a node; nullopt when no model covers its kind and mode.
  std::optional<double> predict_s(const LayerFeatures& f, const std::string& mode) const;
  // Framework time of a whole run of `nodes` nodes (per run + per node); 0 when never measured.
  double framework_overhead_s(const std::string& mode, int threads, int nodes) const;
  // Whether the host's launch time, not the device, sets the layer's time (GPU eager runs; else false).
  bool host_bound(const LayerFeatures& f, const std::string& mode) const;

  // Held-out (cross-validated) errors: "KIND/MODE" per model and "all" over every sample.
  const std::map<std::string, ErrorStats>& validation() const { return validation_; }
  // How validation() was held out, when not per layer by k folds (the GPU's whole runs); "" otherwise.
  const std::string& held_out() const { return held_out_; }
  // How many samples each "KIND/MODE" model was fitted on, and which stages it has.
  std::map<std::string, std::string> describe() const;
  const Ceilings& ceilings() const { return ceilings_; }
  // The executor the evidence measured: "cpu" (ATen; modes eager and optimized, a thread count) or "cuda" (the GPU
  // executor; modes eager and cuda-graph, no threads). Predictions for the other are refused.
  // "pytorch": PyTorch's whole-model timings on a GPU (calib/torch_timings.h), fitted as the GPU executor's are;
  // framework() names it ("PyTorch 2.11.0+cu130").
  const std::string& executor() const { return executor_; }
  void set_executor(std::string executor) { executor_ = std::move(executor); }
  const std::string& framework() const { return framework_; }
  void set_framework(std::string framework) { framework_ = std::move(framework); }
  bool on_gpu() const { return executor_ == "cuda" || executor_ == "pytorch"; }
  const GpuTimeModel* gpu() const { return gpu_.get(); }  // the GPU fit, null on a CPU
  bool covers(Kind kind, const std::string& mode) const;

  nlohmann::json to_json() const;
  static ShapeModel from_json(const nlohmann::json& j);  // throws ridge::Error on a malformed file
  void save(const std::string& path) const;
  static ShapeModel load(const std::string& path);

 private:
  Ceilings ceilings_;
  std::string executor_ = "cpu";
  std::string framework_;
  std::map<std::pair<Kind, std::string>, std::unique_ptr<KindModel>> models_;
  struct Overhead {
    double per_run_s = 0, per_node_s = 0;
    int runs = 0;
  };
  std::map<std::pair<std::string, int>, Overhead> overheads_;  // (mode, threads)
  std::map<std::string, ErrorStats> validation_;
  std::string held_out_;
  std::unique_ptr<GpuTimeModel> gpu_;  // set for the GPU executor: replaces models_ and overheads_
};

}  // namespace ridge::calib
