#include "calib/shape_prediction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "calib/gpu_model.h"
#include "exec/node_plan.h"
#include "exec/optimization_plan.h"
#include "util/error.h"

namespace ridge::calib {

int FusionPlan::executed() const {
  int count = 0;
  for (size_t n = 0; n < leader.size(); ++n) count += leader[n] == static_cast<int>(n);
  return count;
}

// The cost is not consulted yet: the executor's rewrites depend on the graph (and its constants) alone.
FusionPlan plan_fusion(const graph::Graph& g, const cost::ModelCost&, const std::string& model_directory) {
  return FusionPlan{exec::plan_optimization(g, model_directory).leader};
}

FusionPlan no_fusion(const graph::Graph& g) {
  FusionPlan plan;
  for (size_t n = 0; n < g.nodes.size(); ++n) plan.leader.push_back(static_cast<int>(n));
  return plan;
}

// The GPU executor's own rule (exec/node_plan.h), so what is predicted is what it runs.
FusionPlan gpu_plan(const graph::Graph& g) {
  FusionPlan plan = no_fusion(g);
  auto runs = exec::plan_nodes(g, true);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (!runs.executes(n)) plan.leader[n] = FusionPlan::kRemoved;
  return plan;
}

FusionPlan plan_for(const std::string& executor, const std::string& mode, const graph::Graph& g,
                    const cost::ModelCost& cost, const std::string& model_directory) {
  // PyTorch's timings are fitted over the same layers the GPU executor runs (calib/torch_timings.h).
  if (executor == "cuda" || executor == "pytorch") return gpu_plan(g);
  return mode == "optimized" ? plan_fusion(g, cost, model_directory) : no_fusion(g);
}

LayerFeatures layer_features(const graph::Graph& g, const cost::ModelCost& cost, const FusionPlan& plan, int leader,
                             int threads) {
  auto l = static_cast<size_t>(leader);
  auto f = features_of(g, g.nodes[l], cost.nodes[l]);
  f.threads = threads;
  for (size_t n = 0; n < plan.leader.size(); ++n) {
    if (n == l || plan.leader[n] != leader) continue;
    const auto& member = g.nodes[n];
    const auto& c = cost.nodes[n];
    f.fused_ops += 1;
    // A folded BatchNormalization costs nothing at run time (it is in the weights); an epilogue
    // (bias, activation) is computed on the output in registers; a residual reads its operand.
    if (member.op_type != "BatchNormalization") f.flops += static_cast<double>(c.flops);
    if (member.op_type == "Add" && c.activation_bytes_read > 0)
      f.bytes += static_cast<double>(c.activation_bytes_read) / 2;
  }
  return f;
}

Ceilings ceilings_of(const hw::Device& device, const hw::Roofline& r, const std::string& precision) {
  Ceilings c;
  c.precision = precision;
  auto vector = r.peak_flops.find(precision);
  if (vector == r.peak_flops.end()) throw Error(fmt::format("device '{}' has no {} ceiling", r.device_id, precision));
  c.vector_flops = vector->second.value;
  auto gemm = r.peak_flops.find(precision + "_gemm");
  c.matrix_flops = gemm != r.peak_flops.end() ? gemm->second.value : c.vector_flops;
  auto dram = r.bandwidth.find("dram");
  if (dram == r.bandwidth.end() || dram->second.value <= 0)
    throw Error(fmt::format("device '{}' has no DRAM bandwidth", r.device_id));
  c.dram_bytes_per_s = dram->second.value;
  // A CPU's peaks are of the cores of its vector unit's clock domain (the mode's, where it takes cores off); a GPU's
  // floor has no thread count.
  if (device.kind == "cpu")
    for (const auto& unit : device.units) {
      auto clock = device.clocks.find(unit.clock);
      if (unit.type != hw::UnitType::kVector || clock == device.clocks.end()) continue;
      auto online = r.cores.find(unit.clock);
      c.threads = online != r.cores.end() ? online->second : clock->second.cores;
      break;
    }
  return c;
}

void apply(roofline::Prediction& p, const graph::Graph& g, const cost::ModelCost& cost, const ShapeModel& model,
           const CalibratedOptions& options) {
  if (cost.training)
    throw Error("the calibration covers inference: predict a training step without it (a device file without one)");
  if (p.nodes.size() < g.nodes.size() || cost.nodes.size() != g.nodes.size())
    throw Error("calibrated prediction: the prediction is not of this graph");
  auto plan = plan_for(options.executor, options.mode, g, cost, options.model_directory);
  double batch = p.throughput * p.time_s;
  std::set<std::string> unsampled;
  const GpuTimeModel* pipeline = options.mode == "eager" ? model.gpu() : nullptr;
  std::vector<std::pair<size_t, GpuTimeModel::DeviceHost>> eager;  // node, its device and host time
  std::vector<size_t> counted;                                     // nodes whose time the total adds
  p.time_s = 0;
  p.compute_bound_s = p.memory_bound_s = p.overhead_bound_s = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    auto& np = p.nodes[n];
    np.roofline_s = std::max(np.compute_s, np.memory_s);
    int leader = plan.leader[n];
    if (leader != static_cast<int>(n)) {
      np.time_s = 0;
      np.overhead_s = 0;
      np.fused_into =
          leader == FusionPlan::kRemoved ? "(removed: folded or no-op)" : g.nodes[static_cast<size_t>(leader)].name;
      continue;
    }
    if (!np.predicted) continue;  // named as unpredicted already
    auto f = layer_features(g, cost, plan, leader, options.threads);
    auto t = model.predict_s(f, options.mode);
    if (!t) {
      unsampled.insert(std::string(name(f.kind)));
      np.note = fmt::format("no calibration sample of kind {}: roofline bound", name(f.kind));
      // The roofline time, as predict made it (a board's power limit is applied again to the calibrated whole).
      np.time_s = np.roofline_s / np.efficiency + np.overhead_s;
    } else {
      np.time_s = *t;
      np.estimated = true;
      // An eager GPU node whose launch takes the host longer than the device's work is bound by that overhead.
      // (An eager run's nodes are bound as the pipeline below finds them.)
      if (!pipeline && model.host_bound(f, options.mode)) np.bound = roofline::Bound::kOverhead;
      if (pipeline) eager.push_back({n, *pipeline->device_host_s(f)});
    }
    counted.push_back(n);
  }
  // An eager GPU run's nodes on the host/device pipeline (gpu_model.h): a launch hides behind the device's work
  // before it, so a node's time is what the device spends on it after the previous one, and they sum to the run.
  if (pipeline && !eager.empty()) {
    std::vector<GpuTimeModel::DeviceHost> times;
    for (const auto& e : eager) times.push_back(e.second);
    auto run = pipeline->eager_run(times);
    for (size_t i = 0; i < eager.size(); ++i) {
      auto& np = p.nodes[eager[i].first];
      np.time_s = run[i].time_s;
      if (run[i].host_bound) np.bound = roofline::Bound::kOverhead;
    }
  }
  for (auto n : counted) {
    auto& np = p.nodes[n];
    if (np.estimated) {
      np.efficiency = np.roofline_s > 0 && np.time_s > 0 ? std::min(1.0, np.roofline_s / np.time_s) : 1;
      if (np.bound == roofline::Bound::kNone) np.bound = roofline::Bound::kOverhead;  // a view still dispatches
    }
    p.time_s += np.time_s;
    switch (np.bound) {
      case roofline::Bound::kCompute:
        p.compute_bound_s += np.time_s;
        break;
      case roofline::Bound::kMemory:
        p.memory_bound_s += np.time_s;
        break;
      case roofline::Bound::kOverhead:
        p.overhead_bound_s += np.time_s;
        break;
      default:
        break;
    }
  }
  p.framework_overhead_s = model.framework_overhead_s(options.mode, options.threads, plan.executed());
  p.overhead_excluded_s = 0;  // an estimate now: the fitted framework time stands for the overhead
  p.time_s += p.framework_overhead_s;
  p.throughput = p.time_s > 0 ? batch / p.time_s : 0;
  p.calibrated = true;
  p.calibration_model = options.model_file;
  p.exec_mode = options.mode;
  p.threads = options.threads;
  p.predicts = model.executor() == "pytorch" ? (model.framework().empty() ? "PyTorch" : model.framework())
               : model.executor() == "cuda"  ? "the GPU executor"
                                             : "";
  auto all = model.validation().find("all");
  if (all != model.validation().end())
    p.validation = roofline::ValidationError{all->second.points, all->second.median_abs, all->second.p90_abs,
                                             all->second.within_10, model.on_gpu() ? "runs" : "layers"};
  if (!unsampled.empty())
    p.notes.push_back(fmt::format("no calibration sample of kind {}: those nodes keep their roofline bound",
                                  fmt::join(unsampled, ", ")));
}

}  // namespace ridge::calib
