#pragma once
// The GPU executor's time, split into what the device does and what the host does.
//
// An eager GPU run times each node between two CUDA events. The device runs the node's kernels in its device
// time d; the host needs its own time h to launch them (cuDNN's legacy convolution call alone takes ~100 us of
// host time on an H200). When the device outruns the host the events measure the host, so an eager node time
// is about max(d, h), and a whole eager run about the sum of those. A CUDA-graph replay pays no host time: its
// run is the sum of the device times plus a small launch cost per node. The node times therefore bound d from
// above, and each run's own time ties them together; the fit recovers both from bench runs of whole models.
//
// Per layer kind (features.h), with P the fp32 FLOP rate and B the DRAM bandwidth of the device file:
//   d = t0 + a * FLOPs / P + b * bytes / B + r * K + c * outputs / P     (a, b >= 1: never above the roofline)
// K is the reduction each output needs (input channels x kernel elements of a convolution, K of a product):
// a small problem that fills few of the GPU's cores takes time in proportion to it; `outputs` is the elements
// written, the per-output cost of a product's tiles. Convolutions and products are compute kernels: their
// bytes term is left out (a large activation does not slow a convolution down; letting it in fits ResNet's
// slow 1x1 convolutions by bytes and mispredicts VGG's). h is one host time per kind.
//   eager:      run = D_n + g * (nodes not measured), where the host and the device form a two-stage pipeline:
//               the host has launched node i at L_i = h_1 + ... + h_i, and the device finishes it at
//               D_i = max(L_i, D_(i-1)) + d_i. The host runs ahead while the device works, so a run's launches
//               hide behind long kernels (DenseNet-121 at batch 32 runs eager in 1.08x its CUDA-graph time,
//               though its nodes' max(d, h) sum to more); a node's eager time (between two events) is
//               D_i - D_(i-1), and the node times sum to the run. The profiled pass that timed the nodes also
//               records two events per node: its launches take e more host time each (fitted, one figure).
//   cuda-graph: run = sum(d) + g * nodes
// Fitted by Levenberg-Marquardt on log run times (weight 5) and log eager node times (weight 1 over sqrt of
// the run's nodes, so a run's nodes together weigh as one row), with a weak pull (weight 0.01) of every log
// parameter toward 0 (1 us, a factor of 2), which keeps parameters no evidence touches finite, and a firmer one
// (0.1) of each host time toward 5 us, about one launch (gpu_model.cpp says why); parameters live in log space so every
// time stays positive. Eigen has no bounded nonlinear least squares outside its unsupported modules, and the problem
// has under a hundred parameters: a dense Levenberg-Marquardt loop is a few lines here. Kernel times of the executor
// (samples of mode "device", from an Nsight Compute export: calibrate --ncu) are device times themselves: each enters
// as log(d / kernel time), weight 1 over sqrt of its source's count.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "calib/model.h"
#include "calib/sample.h"

namespace ridge::calib {

class GpuTimeModel {
 public:
  // Fits from node samples grouped into runs: Sample::run names the run, whose OverheadSample (same run) holds
  // its measured time and node count. Throws ridge::Error when no run has both.
  static GpuTimeModel fit(const std::vector<Sample>& samples, const std::vector<OverheadSample>& overheads,
                          const Ceilings& ceilings);
  // Held-out run errors: leave one source (model) out when there are three or more, else `folds` folds of runs.
  // Keys "run/eager", "run/cuda-graph" and "all".
  static std::map<std::string, ErrorStats> validate(const std::vector<Sample>& samples,
                                                    const std::vector<OverheadSample>& overheads,
                                                    const Ceilings& ceilings, int folds, uint64_t seed,
                                                    std::string* how = nullptr);  // receives how, for people

  // One node in a run of `mode`: eager, the longer of device and host time (a node among many like it, the host
  // and the device each busy all the time; eager_run() places nodes in a run);
  // cuda-graph, its device time. nullopt for a kind neither fitted nor borrowed (see kinds()).
  std::optional<double> node_s(const LayerFeatures& f, const std::string& mode) const;
  bool covers(Kind kind) const;  // fitted, or borrowed from a related kind
  // Whether the host's launch time, not the device, sets an eager node's time.
  bool host_bound(const LayerFeatures& f, const std::string& mode) const;

  // The device and host time of one node (seconds); nullopt for a kind neither fitted nor borrowed.
  struct DeviceHost {
    double device_s = 0, host_s = 0;
  };
  std::optional<DeviceHost> device_host_s(const LayerFeatures& f) const;
  // An eager run of these nodes, in execution order, on the host/device pipeline above: each node's time between
  // events (D_i - D_(i-1)) and whether it is bound by the launch: the device waited longer for the host to launch it
  // than it then worked on it.
  struct EagerNode {
    double time_s = 0;
    bool host_bound = false;
  };
  std::vector<EagerNode> eager_run(const std::vector<DeviceHost>& nodes) const;
  // Time a run of `nodes` nodes pays outside them: a CUDA graph's launch cost per node; none eager.
  double run_overhead_s(const std::string& mode, int nodes) const;

  // "device/KIND": what was fitted, for the calibration's summary.
  std::map<std::string, std::string> describe() const;

  nlohmann::json to_json() const;
  static GpuTimeModel from_json(const nlohmann::json& j);  // throws ridge::Error on a malformed block

  struct KindFit {
    double t0_s = 0, flops_factor = 1, bytes_factor = 1, reduction_s = 0, output_factor = 0, host_s = 0;
    int nodes = 0;         // eager node times it was fitted on
    int layers = 0;        // layers of its kind in the runs fitted (timed alone or only with their run)
    int kernel_timed = 0;  // layers whose kernels' own times (an Nsight Compute export) it was fitted on
  };

 private:
  const KindFit* find(Kind kind) const;  // the kind's own fit, else a related kind's

  Ceilings ceilings_;
  std::map<Kind, KindFit> kinds_;
  double launch_s_ = 0;  // g: per node of a CUDA graph (and per node an eager run did not time)
  double event_s_ = 0;   // e: host time a profiled eager node adds (its two events)
};

}  // namespace ridge::calib
