#include "calib/gpu_model.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "util/error.h"

namespace ridge::calib {
namespace {

constexpr int kColumns = 5;             // t0, FLOPs, bytes, reduction, outputs (gpu_model.h)
constexpr int kPerKind = kColumns + 1;  // and the host time
constexpr double kRunWeight = 5, kNodeWeight = 1, kPrior = 0.01;
// Host times are pulled harder (0.1) toward 5 us, about a CUDA launch (the H200's measured launch overhead is
// 3.7 us). On the pipeline a host time can hide behind the device's work: where only whole runs are evidence
// (PyTorch's timings), a kind that appears once per model near its end (a global pool) could otherwise take a
// millisecond of host time that the batch-32 runs hide and the batch-1 runs need, and predict any other model's
// batch-1 eager run wrong. Node times outweigh the pull where a run has them.
constexpr double kHostPrior = 0.1, kHostPrior_us = 5;
constexpr double kOutputScale = 100;  // outputs enter as 100 x outputs / P: start and pull near 0.1
// Where a kind has no evidence, the nearest kind that behaves alike on a GPU (compute kernels, memory copies).
const std::map<Kind, std::vector<Kind>>& related() {
  static const std::map<Kind, std::vector<Kind>> table{
      {Kind::kGroupedConv, {Kind::kConv, Kind::kMatMul}},
      {Kind::kConv, {Kind::kMatMul}},
      {Kind::kMatMul, {Kind::kConv}},
      {Kind::kRecurrent, {Kind::kMatMul, Kind::kConv}},
      {Kind::kPool, {Kind::kElementwise, Kind::kDataMovement}},
      {Kind::kNorm, {Kind::kElementwise}},
      {Kind::kSoftmax, {Kind::kNorm, Kind::kElementwise}},
      {Kind::kReduce, {Kind::kNorm, Kind::kElementwise}},
      {Kind::kDataMovement, {Kind::kElementwise}},
      {Kind::kView, {Kind::kDataMovement, Kind::kElementwise}},
      {Kind::kElementwise, {Kind::kDataMovement}},
      {Kind::kOther, {Kind::kElementwise}},
  };
  return table;
}

bool compute_kernel(Kind k) {
  return k == Kind::kConv || k == Kind::kGroupedConv || k == Kind::kMatMul || k == Kind::kRecurrent;
}

// The node's columns, in microseconds per unit parameter (so parameters start near 1).
std::array<double, kColumns> columns(const LayerFeatures& f, const Ceilings& c) {
  double reduction = 0, outputs = 0;
  switch (f.kind) {
    case Kind::kConv:
    case Kind::kGroupedConv:
      reduction = f.in_channels / std::max(1.0, f.groups) * std::max(1.0, f.kernel);
      outputs = f.out_elements;
      break;
    case Kind::kMatMul:
    case Kind::kRecurrent:
      reduction = f.k;
      outputs = f.out_elements;
      break;
    case Kind::kPool:
      reduction = f.kernel;
      break;
    default:
      break;
  }
  return {1.0, f.flops / c.vector_flops * 1e6, compute_kernel(f.kind) ? 0.0 : f.bytes / c.dram_bytes_per_s * 1e6,
          reduction / 1000, outputs * kOutputScale / c.vector_flops * 1e6};
}

double smoothmax(double a, double b) {  // a soft max(a, b): differentiable, so the fit can move between the two
  double a2 = a * a, b2 = b * b;
  return std::sqrt(std::sqrt(a2 * a2 + b2 * b2));
}

// The pipeline's max(L_i, D_(i-1)) = D_(i-1) + softplus(L_i - D_(i-1)), softened over kPipelineSoftness_us so the fit
// has a gradient where the host and the device trade places. The softness is absolute, not relative: L and D are
// whole-run sums, and a relative softness would add a share of the run at every node.
constexpr double kPipelineSoftness_us = 1;
double softplus(double x) {
  const double t = kPipelineSoftness_us;
  return x > 0 ? x + t * std::log1p(std::exp(-x / t)) : t * std::log1p(std::exp(x / t));
}
double sigmoid(double x) { return 1 / (1 + std::exp(-x / kPipelineSoftness_us)); }

// A measured run, or (mode "device") the kernel times of one source's layers: device times themselves, from an
// Nsight Compute export of the executor, each checked against d alone.
struct RunData {
  std::string mode, source;
  double run_us = 0;
  int nodes = 0;          // executed, as the run recorded
  std::vector<int> kind;  // per measured node: index into the fitted kinds
  std::vector<std::array<double, kColumns>> x;
  std::vector<double> measured_us;
};

// The parameters of one kind, from its slice of the log-parameter vector.
GpuTimeModel::KindFit unpack(const Eigen::VectorXd& theta, int k) {
  auto p = [&](int i) { return std::exp(theta(k * kPerKind + i)); };
  GpuTimeModel::KindFit f;
  f.t0_s = p(0) * 1e-6;
  f.flops_factor = 1 + p(1);
  f.bytes_factor = 1 + p(2);
  f.reduction_s = p(3) * 1e-9;  // per reduction element (the column is K / 1000, in us)
  f.output_factor = p(4) * kOutputScale;
  f.host_s = p(5) * 1e-6;
  return f;
}

class Problem {
 public:
  Problem(std::vector<RunData> runs, int kinds) : runs_(std::move(runs)), kinds_(kinds) {
    rows_ = params();
    for (const auto& r : runs_)
      rows_ += r.mode == "device" ? static_cast<int>(r.kind.size())
                                  : 1 + (r.mode == "eager" ? static_cast<int>(r.kind.size()) : 0);
  }
  int params() const { return kinds_ * kPerKind + 2; }  // and e, g
  Eigen::VectorXd start() const {
    Eigen::VectorXd theta(params());
    for (int k = 0; k < kinds_; ++k) {
      const double initial[kPerKind] = {3, 1, 1, 0.1, 0.1, 5};  // us, factors - 1, us per 1000, ..., host us
      for (int i = 0; i < kPerKind; ++i) theta(k * kPerKind + i) = std::log(initial[i]);
    }
    theta(params() - 2) = 0;  // e = 1 us
    theta(params() - 1) = 0;  // g = 1 us
    return theta;
  }

  // The residuals (log predicted / measured, weighted) and, where `jacobian` is given, their derivatives by hand:
  // every time is a sum of exp(parameter) x column, so each derivative is that term. An eager run's pipeline is
  // differentiated forward along the run: dL and dD carry the derivatives of L_i and D_i, and a softened max passes
  // on sigmoid(L_i - D_(i-1)) of dL and the rest of dD. A few thousand rows of under a hundred parameters: a dense
  // Jacobian, and Eigen's product for J^T J.
  void evaluate(const Eigen::VectorXd& theta, Eigen::VectorXd& out, Eigen::MatrixXd* jacobian) const {
    const int n = params();
    out.resize(rows_);
    if (jacobian) jacobian->setZero(rows_, n);
    int row = 0;
    const double e = std::exp(theta(n - 2)), g = std::exp(theta(n - 1));
    Eigen::VectorXd dL(n), dD(n), step(n);
    double term[kColumns];
    // d of node i of run r, and its terms (d(d)/d(theta_c)); d's own term adds 1 x column for c = 1, 2.
    auto device = [&](const RunData& r, size_t i) {
      const double* t = theta.data() + r.kind[i] * kPerKind;
      double d = 0;
      for (int c = 0; c < kColumns; ++c) {
        term[c] = std::exp(t[c]) * r.x[i][c];
        d += term[c] + (c == 1 || c == 2 ? r.x[i][c] : 0.0);
      }
      return d;
    };
    auto add_terms = [&](Eigen::VectorXd& v, int k, double scale) {
      for (int c = 0; c < kColumns; ++c) v(k * kPerKind + c) += scale * term[c];
    };
    for (const auto& r : runs_) {
      const double node_weight = kNodeWeight / std::sqrt(std::max<double>(1, static_cast<double>(r.kind.size())));
      if (r.mode == "device") {
        for (size_t i = 0; i < r.kind.size(); ++i) {
          double d = device(r, i);
          out(row) = node_weight * std::log(d / r.measured_us[i]);
          if (jacobian)
            for (int c = 0; c < kColumns; ++c) (*jacobian)(row, r.kind[i] * kPerKind + c) = node_weight * term[c] / d;
          ++row;
        }
        continue;
      }
      const bool eager = r.mode == "eager";
      double total = 0;
      dD.setZero();  // the sum of d for a CUDA graph; D_n eager
      if (eager) {
        // Twice along the run: as profiled (each launch also records two events, e more of host time), which the
        // node times measured; and as timed whole, without the events.
        for (int profiled = 1; profiled >= 0; --profiled) {
          double launched = 0;
          total = 0;
          dL.setZero();
          dD.setZero();
          for (size_t i = 0; i < r.kind.size(); ++i) {
            const int k = r.kind[i];
            const double d = device(r, i), h = std::exp(theta(k * kPerKind + kColumns));
            launched += h + (profiled ? e : 0.0);
            const double ahead = launched - total, wait = softplus(ahead), w = sigmoid(ahead), node = wait + d;
            if (jacobian) {
              dL(k * kPerKind + kColumns) += h;
              if (profiled) dL(n - 2) += e;
              step = w * (dL - dD);
              add_terms(step, k, 1);  // d(D_i - D_(i-1))
            }
            if (profiled) {  // a node without a time of its own keeps a residual of 0
              out(row) = r.measured_us[i] > 0 ? node_weight * std::log(node / r.measured_us[i]) : 0.0;
              if (jacobian && r.measured_us[i] > 0) jacobian->row(row) = (node_weight / node) * step.transpose();
              ++row;
            }
            total += node;
            if (jacobian) dD += step;
          }
        }
      } else {
        for (size_t i = 0; i < r.kind.size(); ++i) {
          total += device(r, i);
          if (jacobian) add_terms(dD, r.kind[i], 1);
        }
      }
      const int unmeasured = std::max(0, r.nodes - static_cast<int>(r.kind.size()));
      const double predicted = total + g * (eager ? unmeasured : r.nodes);
      out(row) = kRunWeight * std::log(predicted / r.run_us);
      if (jacobian) {
        auto j = jacobian->row(row);
        j = (kRunWeight / predicted) * dD.transpose();
        j(n - 1) = kRunWeight / predicted * g * (eager ? unmeasured : r.nodes);
      }
      ++row;
    }
    for (int j = 0; j < n; ++j) {
      const bool host = j < kinds_ * kPerKind && j % kPerKind == kColumns;
      const double weight = host ? kHostPrior : kPrior, centre = host ? std::log(kHostPrior_us) : 0.0;
      out(row) = weight * (theta(j) - centre);
      if (jacobian) (*jacobian)(row, j) = weight;
      ++row;
    }
  }

  Eigen::VectorXd solve() const {
    Eigen::VectorXd theta = start(), r, trial_r;
    Eigen::MatrixXd jacobian;
    evaluate(theta, r, nullptr);
    double cost = r.squaredNorm(), lambda = 1e-3;
    const int n = params();
    Eigen::MatrixXd normal;
    Eigen::VectorXd gradient;
    std::vector<double> history;
    for (int iteration = 0; iteration < 300; ++iteration) {
      evaluate(theta, r, &jacobian);
      normal.noalias() = jacobian.transpose() * jacobian;
      gradient.noalias() = jacobian.transpose() * r;
      bool improved = false;
      while (lambda < 1e12) {
        Eigen::MatrixXd damped = normal;
        for (int j = 0; j < n; ++j) damped(j, j) += lambda * (normal(j, j) + 1e-9);
        Eigen::VectorXd step = damped.ldlt().solve(-gradient);
        Eigen::VectorXd trial = theta + step;
        evaluate(trial, trial_r, nullptr);
        double trial_cost = trial_r.squaredNorm();
        if (std::isfinite(trial_cost) && trial_cost < cost) {
          theta = trial, r = trial_r, cost = trial_cost;
          lambda = std::max(lambda / 3, 1e-12);
          improved = true;
          break;
        }
        lambda *= 4;
      }
      // Stop when ten iterations together gain less than 1e-5 of the cost: a long tail of tiny steps moves no
      // prediction by a measurable amount.
      history.push_back(cost);
      if (!improved || (history.size() > 10 && history[history.size() - 11] - cost < 1e-5 * cost)) break;
    }
    return theta;
  }

 private:
  std::vector<RunData> runs_;
  int kinds_ = 0, rows_ = 0;
};

// Joins node samples to their runs. `kinds` receives the kinds present, in index order.
std::vector<RunData> gather(const std::vector<Sample>& samples, const std::vector<OverheadSample>& overheads,
                            const Ceilings& ceilings, std::vector<Kind>& kinds) {
  std::map<std::string, size_t> index;
  std::vector<RunData> runs;
  for (const auto& o : overheads) {
    if (o.run.empty() || (o.mode != "eager" && o.mode != "cuda-graph") || !(o.run_s > 0)) continue;
    if (index.count(o.run)) continue;
    index[o.run] = runs.size();
    RunData r;
    r.mode = o.mode;
    r.source = o.source;
    r.run_us = o.run_s * 1e6;
    r.nodes = o.nodes;
    runs.push_back(std::move(r));
  }
  std::map<Kind, int> kind_index;
  for (const auto& s : samples) {
    if (s.mode == "device" && s.measured_s > 0) {  // kernel times: one group per source
      auto key = "device: " + s.source;
      if (!index.count(key)) {
        index[key] = runs.size();
        RunData r;
        r.mode = "device";
        r.source = s.source;
        runs.push_back(std::move(r));
      }
    }
    auto it = index.find(s.mode == "device" ? "device: " + s.source : s.run);
    if (it == index.end() || !(s.measured_s >= 0)) continue;  // 0: a layer of a run timed whole
    auto k = kind_index.try_emplace(s.features.kind, static_cast<int>(kind_index.size())).first->second;
    auto& r = runs[it->second];
    r.kind.push_back(k);
    r.x.push_back(columns(s.features, ceilings));
    r.measured_us.push_back(s.measured_s * 1e6);
  }
  std::erase_if(runs, [](const RunData& r) { return r.kind.empty(); });
  if (std::none_of(runs.begin(), runs.end(), [](const RunData& r) { return r.mode != "device"; }))
    throw Error(
        "the GPU calibration fits whole runs: no node sample names a measured run (a samples file of an older "
        "ridge has no run column; refit from the bench runs)");
  kinds.assign(kind_index.size(), Kind::kOther);
  for (auto [kind, k] : kind_index) kinds[static_cast<size_t>(k)] = kind;
  return runs;
}

}  // namespace

GpuTimeModel GpuTimeModel::fit(const std::vector<Sample>& samples, const std::vector<OverheadSample>& overheads,
                               const Ceilings& ceilings) {
  if (!(ceilings.vector_flops > 0) || !(ceilings.dram_bytes_per_s > 0))
    throw Error("the GPU calibration needs the device's fp32 FLOP rate and DRAM bandwidth");
  std::vector<Kind> kinds;
  auto runs = gather(samples, overheads, ceilings, kinds);
  std::vector<int> counts(kinds.size(), 0), layers(kinds.size(), 0), kernel_timed(kinds.size(), 0);
  for (const auto& r : runs)
    for (size_t i = 0; i < r.kind.size(); ++i) {
      auto k = static_cast<size_t>(r.kind[i]);
      if (r.mode == "device") {
        ++kernel_timed[k];
        continue;
      }
      ++layers[k];
      if (r.mode == "eager" && r.measured_us[i] > 0) ++counts[k];
    }
  Problem problem(std::move(runs), static_cast<int>(kinds.size()));
  auto theta = problem.solve();
  GpuTimeModel model;
  model.ceilings_ = ceilings;
  for (size_t k = 0; k < kinds.size(); ++k) {
    auto f = unpack(theta, static_cast<int>(k));
    f.nodes = counts[k];
    f.layers = layers[k];
    f.kernel_timed = kernel_timed[k];
    model.kinds_[kinds[k]] = f;
  }
  model.event_s_ = std::exp(theta(problem.params() - 2)) * 1e-6;
  model.launch_s_ = std::exp(theta(problem.params() - 1)) * 1e-6;
  return model;
}

std::map<std::string, ErrorStats> GpuTimeModel::validate(const std::vector<Sample>& samples,
                                                         const std::vector<OverheadSample>& overheads,
                                                         const Ceilings& ceilings, int folds, uint64_t seed,
                                                         std::string* how) {
  std::vector<Kind> kinds;
  auto runs = gather(samples, overheads, ceilings, kinds);
  std::vector<std::string> sources;
  for (const auto& r : runs)
    if (r.mode != "device" && std::find(sources.begin(), sources.end(), r.source) == sources.end())
      sources.push_back(r.source);
  std::map<std::string, ErrorStats> out;
  if (sources.size() < 2) {  // nothing to hold out
    if (how) *how = "whole runs; one model, none held out";
    return out;
  }
  // Up to a dozen sources (models): each is held out in turn, as a user predicts a model never measured.
  size_t groups = sources.size() <= 12 ? sources.size() : std::min<size_t>(std::max(folds, 2), sources.size());
  if (how)
    *how = sources.size() <= 12
               ? fmt::format("whole runs; each of {} models predicted by a fit on the others", sources.size())
               : fmt::format("whole runs; {} folds of {} sources, each predicted by a fit on the rest", groups,
                             sources.size());
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  if (sources.size() > 12) std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  std::map<std::string, size_t> group_of;
  for (size_t i = 0; i < order.size(); ++i) group_of[sources[order[i]]] = i % groups;
  std::map<std::string, std::vector<double>> errors;
  for (size_t group = 0; group < groups; ++group) {
    std::vector<Sample> train_samples;
    std::set<std::string> held_runs;
    std::vector<OverheadSample> train_overheads;
    auto held = [&](const std::string& source) { return group_of.count(source) && group_of[source] == group; };
    for (const auto& o : overheads) {
      if (held(o.source))
        held_runs.insert(o.run);
      else
        train_overheads.push_back(o);
    }
    // A held-out model's kernel times (mode device, no run) go with its runs.
    for (const auto& s : samples)
      if (!held_runs.count(s.run) && !(s.mode == "device" && held(s.source))) train_samples.push_back(s);
    GpuTimeModel part;
    try {
      part = fit(train_samples, train_overheads, ceilings);
    } catch (const Error&) {
      continue;  // nothing left to fit on without this group
    }
    // Each held-out run predicted from its nodes' features, as `ridge predict` predicts a model: a CUDA graph's
    // nodes summed, an eager run's on the host/device pipeline, in the run's order.
    std::map<std::string, std::pair<double, int>> predicted;  // run -> (sum of nodes, nodes predicted)
    std::map<std::string, std::vector<DeviceHost>> eager;
    for (const auto& s : samples) {
      if (!held_runs.count(s.run)) continue;
      // A run none of whose nodes the part covers is left unpredicted, not counted as 0 ms.
      if (s.mode == "eager") {
        if (auto t = part.device_host_s(s.features)) eager[s.run].push_back(*t), ++predicted[s.run].second;
      } else if (auto t = part.node_s(s.features, s.mode)) {
        auto& p = predicted[s.run];
        p.first += *t, ++p.second;
      }
    }
    for (const auto& [run, nodes] : eager)
      for (const auto& node : part.eager_run(nodes)) predicted[run].first += node.time_s;
    for (const auto& o : overheads) {
      auto it = predicted.find(o.run);
      if (!held_runs.count(o.run) || it == predicted.end()) continue;
      double run_s = it->second.first + part.run_overhead_s(o.mode, o.nodes) +
                     (o.mode == "eager" ? part.launch_s_ * std::max(0, o.nodes - it->second.second) : 0);
      double e = run_s / o.run_s - 1;
      errors["run/" + o.mode].push_back(e);
      errors["all"].push_back(e);
    }
  }
  for (const auto& [key, e] : errors) out[key] = error_stats(e);
  return out;
}

const GpuTimeModel::KindFit* GpuTimeModel::find(Kind kind) const {
  if (auto it = kinds_.find(kind); it != kinds_.end()) return &it->second;
  if (auto r = related().find(kind); r != related().end())
    for (auto other : r->second)
      if (auto it = kinds_.find(other); it != kinds_.end()) return &it->second;
  return nullptr;
}

std::optional<double> GpuTimeModel::node_s(const LayerFeatures& f, const std::string& mode) const {
  const auto* k = find(f.kind);
  if (!k) return std::nullopt;
  auto x = columns(f, ceilings_);
  // The fit's units: microseconds per column.
  double d = (k->t0_s * 1e6) * x[0] + k->flops_factor * x[1] + k->bytes_factor * x[2] + (k->reduction_s * 1e9) * x[3] +
             (k->output_factor / kOutputScale) * x[4];
  if (mode == "cuda-graph") return d * 1e-6;
  return smoothmax(d, k->host_s * 1e6) * 1e-6;
}

std::optional<GpuTimeModel::DeviceHost> GpuTimeModel::device_host_s(const LayerFeatures& f) const {
  const auto* k = find(f.kind);
  auto d = node_s(f, "cuda-graph");
  if (!k || !d) return std::nullopt;
  return DeviceHost{*d, k->host_s};
}

std::vector<GpuTimeModel::EagerNode> GpuTimeModel::eager_run(const std::vector<DeviceHost>& nodes) const {
  std::vector<EagerNode> out;
  out.reserve(nodes.size());
  double launched = 0, finished = 0;  // L_i and D_i (gpu_model.h), in microseconds as fitted
  for (const auto& n : nodes) {
    launched += n.host_s * 1e6;
    const double wait = softplus(launched - finished), device = n.device_s * 1e6;
    finished += wait + device;
    // Overhead-bound when the device spent longer waiting for the launch than on the node's work.
    out.push_back({(wait + device) * 1e-6, wait > device});
  }
  return out;
}

bool GpuTimeModel::covers(Kind kind) const { return find(kind) != nullptr; }

bool GpuTimeModel::host_bound(const LayerFeatures& f, const std::string& mode) const {
  if (mode != "eager") return false;
  const auto* k = find(f.kind);
  auto device = node_s(f, "cuda-graph");
  return k && device && k->host_s > *device;
}

double GpuTimeModel::run_overhead_s(const std::string& mode, int nodes) const {
  return mode == "cuda-graph" ? launch_s_ * nodes : 0;
}

std::map<std::string, std::string> GpuTimeModel::describe() const {
  std::map<std::string, std::string> out;
  for (auto kind : all_kinds()) {
    auto key = fmt::format("device/{}", name(kind));
    if (auto it = kinds_.find(kind); it != kinds_.end()) {
      const auto& k = it->second;
      // Each term of the device time as people read it: a rate, a time per step.
      std::string terms = fmt::format("{:.1f} us + FLOPs at {:.1f} TFLOP/s", k.t0_s * 1e6,
                                      ceilings_.vector_flops / k.flops_factor / 1e12);
      if (compute_kernel(kind))
        terms += fmt::format(" + {:.2f} ns per reduction step + {:.2f} ps per output", k.reduction_s * 1e9,
                             k.output_factor / ceilings_.vector_flops * 1e12);
      else
        terms += fmt::format(" + bytes at {:.2f} TB/s", ceilings_.dram_bytes_per_s / k.bytes_factor / 1e12);
      if (kind == Kind::kPool) terms += fmt::format(" + {:.2f} ns per window element", k.reduction_s * 1e9);
      auto evidence =
          k.nodes > 0 ? fmt::format("{} eager nodes", k.nodes) : fmt::format("{} layers of runs timed whole", k.layers);
      if (k.kernel_timed > 0) evidence += fmt::format(", {} kernel-timed", k.kernel_timed);
      out[key] = fmt::format("{}; device {}; host {:.1f} us", evidence, terms, k.host_s * 1e6);
    } else if (const auto* other = find(kind)) {
      for (const auto& [fitted, k] : kinds_)
        if (&k == other) out[key] = fmt::format("no samples: as {}", name(fitted));
    }
  }
  out["device/runs"] =
      fmt::format("CUDA-graph launch {:.2f} us per node; a profiled eager node's events +{:.2f} us of host time",
                  launch_s_ * 1e6, event_s_ * 1e6);
  return out;
}

nlohmann::json GpuTimeModel::to_json() const {
  nlohmann::json j;
  j["vector_flops"] = ceilings_.vector_flops;
  j["dram_bytes_per_s"] = ceilings_.dram_bytes_per_s;
  j["launch_s"] = launch_s_;
  j["profile_event_s"] = event_s_;
  auto& kinds = j["kinds"] = nlohmann::json::array();
  for (const auto& [kind, k] : kinds_)
    kinds.push_back({{"kind", std::string(name(kind))},
                     {"t0_s", k.t0_s},
                     {"flops_factor", k.flops_factor},
                     {"bytes_factor", k.bytes_factor},
                     {"reduction_s", k.reduction_s},
                     {"output_factor", k.output_factor},
                     {"host_s", k.host_s},
                     {"nodes", k.nodes},
                     {"layers", k.layers},
                     {"kernel_timed", k.kernel_timed}});
  return j;
}

GpuTimeModel GpuTimeModel::from_json(const nlohmann::json& j) {
  try {
    GpuTimeModel m;
    auto non_negative = [](const nlohmann::json& o, const char* key) {
      double v = o.at(key).get<double>();
      if (!(v >= 0) || !std::isfinite(v))
        throw Error(fmt::format("calibration model: GPU '{}' must be a non-negative number", key));
      return v;
    };
    m.ceilings_.vector_flops = non_negative(j, "vector_flops");
    m.ceilings_.dram_bytes_per_s = non_negative(j, "dram_bytes_per_s");
    if (!(m.ceilings_.vector_flops > 0) || !(m.ceilings_.dram_bytes_per_s > 0))
      throw Error("calibration model: the GPU block's ceilings must be positive");
    m.launch_s_ = non_negative(j, "launch_s");
    if (j.contains("profile_event_s")) m.event_s_ = non_negative(j, "profile_event_s");
    for (const auto& k : j.at("kinds"))
      m.kinds_[parse_kind(k.at("kind").get<std::string>())] = {
          non_negative(k, "t0_s"),          non_negative(k, "flops_factor"),
          non_negative(k, "bytes_factor"),  non_negative(k, "reduction_s"),
          non_negative(k, "output_factor"), non_negative(k, "host_s"),
          k.at("nodes").get<int>(),         k.value("layers", 0),
          k.value("kernel_timed", 0)};
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("calibration model: malformed GPU block ({})", e.what()));
  }
}

}  // namespace ridge::calib
