#include "roofline/predict.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "roofline/energy.h"
#include "util/error.h"
#include "util/name_table.h"

namespace ridge::roofline {
namespace {

constexpr NameTable<Bound, 5> kBounds{{{Bound::kCompute, "compute"},
                                       {Bound::kMemory, "memory"},
                                       {Bound::kOverhead, "overhead"},
                                       {Bound::kNone, "none"},
                                       {Bound::kUnpredicted, "unpredicted"}}};

// The bound of a node that does work, and its time added to that bound's total.
Bound classify(double compute_s, double memory_s, bool overhead_dominates, double time_s, Prediction& p) {
  Bound bound = overhead_dominates ? Bound::kOverhead : compute_s >= memory_s ? Bound::kCompute : Bound::kMemory;
  (bound == Bound::kCompute  ? p.compute_bound_s
   : bound == Bound::kMemory ? p.memory_bound_s
                             : p.overhead_bound_s) += time_s;
  return bound;
}

struct CeilingChoice {
  std::string key;
  const hw::Ceiling* ceiling = nullptr;
  std::string note;
};

// The precision a ceiling key is for: "fp16_tensor" -> fp16, "fp32_gemm" -> fp32; "" for the
// prefixed keys of another processor of an SoC ("cpu_fp32"), which prediction does not use.
std::string precision_of(std::string key) {
  for (const char* suffix : {"_tensor", "_gemm"}) {
    std::string s = suffix;
    if (key.size() > s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0)
      key.resize(key.size() - s.size());
  }
  return key.find('_') == std::string::npos ? key : "";
}

// A precision the device has no figure for at all is refused: pricing it at another precision's
// peak in silence is wrong by the ratio of the two (fp64 on a T4: 32x).
void require_precision(const hw::Roofline& r, const PredictOptions& o) {
  std::set<std::string> have;
  for (const auto& [key, c] : r.peak_flops)
    if (auto p = precision_of(key); !p.empty()) have.insert(p);
  if (have.count(o.precision)) return;
  std::string list;
  for (const auto& p : have) list += (list.empty() ? "" : ", ") + p;
  throw Error(fmt::format("device '{}' has no {} compute figure (it has {}): choose one of those with --precision",
                          r.device_id, o.precision, list));
}

// Matrix families: the tensor unit of the precision (TF32 for fp32 only when allowed), else a
// measured matrix-product rate (`gemm` unit: what the BLAS attains on the vector units), else the
// vector peak. Other families: the vector peak of the precision. Where the precision exists only on
// tensor units, the other families run at the fp32 vector peak: the node's ceiling column names
// that substitution (and its note says so).
CeilingChoice choose_ceiling(const hw::Roofline& r, const std::string& family, const PredictOptions& o) {
  auto find = [&](const std::string& key) -> const hw::Ceiling* {
    auto it = r.peak_flops.find(key);
    return it == r.peak_flops.end() ? nullptr : &it->second;
  };
  if (is_matrix_family(family)) {
    std::string tensor_key = (o.precision == "fp32" ? (o.allow_tf32 ? "tf32" : "") : o.precision) + "_tensor";
    if (tensor_key != "_tensor")
      if (const auto* c = find(tensor_key)) return {tensor_key, c, ""};
    if (const auto* c = find(o.precision + "_gemm")) return {o.precision + "_gemm", c, ""};
  }
  if (const auto* c = find(o.precision)) return {o.precision, c, ""};
  if (const auto* c = find("fp32"))
    return {"fp32", c, fmt::format("no {} vector ceiling on this device: fp32 used", o.precision)};
  throw Error(fmt::format("device '{}' has no {} or fp32 vector compute ceiling", r.device_id, o.precision));
}

}  // namespace

std::string_view name(Bound bound) { return name_in(kBounds, bound); }
Bound parse_bound(std::string_view text) { return parse_in(kBounds, "bound", text); }

bool is_matrix_family(const std::string& family) {
  return family == "conv" || family == "matmul" || family == "recurrent" || family == "attention";
}

Prediction predict(const cost::ModelCost& cost, const hw::Roofline& r, const PredictOptions& o) {
  auto dram = r.bandwidth.find("dram");
  if (dram == r.bandwidth.end() || dram->second.value <= 0)
    throw Error(fmt::format("device '{}' has no DRAM bandwidth (for the host it must be measured first)", r.device_id));
  const double bandwidth = dram->second.value;
  require_precision(r, o);
  Prediction p;
  p.device_id = r.device_id;
  p.device_name = r.device_name;
  p.device_kind = r.device_kind;
  p.mode = r.mode;
  p.precision = o.precision;
  // A shape-aware calibration is applied afterwards (calib::apply); here the raw roofline.
  p.calibrated = r.calibration.has_value() && r.calibration->model_file.empty();
  if (p.calibrated) p.calibration_source = r.calibration->fitted_from;
  p.ceilings_used["bandwidth.dram"] = dram->second.label;
  const double overhead = p.calibrated ? r.calibration->overhead_s : r.overhead_s;
  // What a node's time is made of (predict.h): a fitted overhead adds; a measured one bounds (GPU) or adds (CPU);
  // an estimate stays out of the bound and is reported.
  const bool overhead_in_bound = p.calibrated || r.overhead_label == hw::kMeasured;
  const bool overlapped = !p.calibrated && r.device_kind != "cpu";
  auto node_time = [&](double roofline_s, double efficiency, int kernels, NodePrediction& np) {
    if (!overhead_in_bound) {
      np.overhead_s = 0;
      p.overhead_excluded_s += overhead * kernels;
      return roofline_s / efficiency;
    }
    np.overhead_s = overhead * kernels;
    return overlapped ? std::max(roofline_s / efficiency, np.overhead_s) : roofline_s / efficiency + np.overhead_s;
  };
  for (const auto& n : cost.nodes) {
    NodePrediction np;
    np.name = n.name;
    np.op = n.op_type;
    np.family = n.family;
    if (n.status == cost::NodeStatus::kUnknownOp || n.status == cost::NodeStatus::kUnresolved) {
      np.predicted = false;
      np.bound = Bound::kUnpredicted;
      np.note = n.note;
      ++p.unpredicted_ops[n.op_type];
      p.nodes.push_back(np);
      continue;
    }
    double flops = static_cast<double>(n.flops + n.backward_flops);
    double bytes = static_cast<double>((o.traffic == Traffic::kFused ? n.bytes_fused : n.bytes()) + n.backward_bytes);
    int kernels = (n.flops > 0 || n.bytes() > 0 ? 1 : 0) + (n.backward_flops > 0 || n.backward_bytes > 0 ? 1 : 0);
    if (kernels == 0 || (flops == 0 && bytes == 0)) {
      np.bound = Bound::kNone;  // views, folded shape arithmetic: no kernel runs
      p.nodes.push_back(np);
      continue;
    }
    np.flops = flops;
    np.bytes = bytes;
    auto choice = choose_ceiling(r, n.family, o);
    p.ceilings_used["peak_flops." + choice.key] = choice.ceiling->label;
    np.peak_key = choice.key;
    np.peak_flops = choice.ceiling->value;
    np.note = choice.note;
    np.compute_s = flops / np.peak_flops;
    np.memory_s = bytes / bandwidth;
    np.kernels = kernels;
    if (p.calibrated) {
      auto it = r.calibration->efficiency.find(n.family);
      if (it != r.calibration->efficiency.end()) np.efficiency = it->second;
    }
    double roofline_s = std::max(np.compute_s, np.memory_s);
    np.attainable_flops = roofline_s > 0 ? flops / roofline_s : 0;
    np.time_s = node_time(roofline_s, np.efficiency, kernels, np);
    np.bound = classify(np.compute_s, np.memory_s, np.overhead_s > 0 && np.overhead_s >= roofline_s / np.efficiency,
                        np.time_s, p);
    p.time_s += np.time_s;
    p.nodes.push_back(np);
  }
  if (cost.training) {
    // The optimizer update streams parameters, gradients and state: one more (memory-bound) kernel.
    NodePrediction np;
    np.name = "(optimizer step)";
    np.op = "Optimizer";
    np.family = "optimizer";
    auto choice = choose_ceiling(r, "elementwise", o);
    np.peak_key = choice.key;
    np.peak_flops = choice.ceiling->value;
    np.flops = static_cast<double>(cost.training->optimizer_flops);
    np.bytes = static_cast<double>(cost.training->optimizer_bytes);
    np.compute_s = np.flops / np.peak_flops;
    np.memory_s = static_cast<double>(cost.training->optimizer_bytes) / bandwidth;
    np.kernels = 1;
    double roofline_s = std::max(np.compute_s, np.memory_s);
    np.attainable_flops = roofline_s > 0 ? static_cast<double>(cost.training->optimizer_flops) / roofline_s : 0;
    np.time_s = node_time(roofline_s, 1.0, 1, np);
    np.bound = classify(np.compute_s, np.memory_s, np.overhead_s > 0 && np.overhead_s >= roofline_s, np.time_s, p);
    p.time_s += np.time_s;
    p.nodes.push_back(np);
  }
  p.batch = o.batch;
  p.training = cost.training.has_value();
  p.throughput = p.time_s > 0 ? static_cast<double>(o.batch) / p.time_s : 0;
  add_energy(p, r);
  return p;
}

}  // namespace ridge::roofline
