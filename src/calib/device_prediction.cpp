#include "calib/device_prediction.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <thread>

#include "calib/model.h"
#include "calib/shape_prediction.h"
#include "graph/dtype.h"
#include "roofline/energy.h"
#include "util/error.h"

namespace ridge::calib {

DevicePredictionOptions prediction_options(const PredictionChoices& c, const analysis::Request& request) {
  DevicePredictionOptions o;
  auto& p = o.roofline;
  p.precision = !c.precision.empty()               ? c.precision
                : request.options.activation_dtype ? std::string(graph::dtype_name(*request.options.activation_dtype))
                                                   : "fp32";
  p.allow_tf32 = c.allow_tf32;
  p.traffic = c.traffic == "fused" ? roofline::Traffic::kFused : roofline::Traffic::kUnfused;
  p.batch = request.bindings.batch.value_or(1);
  o.exec_mode = c.exec_mode;
  o.threads = c.threads;
  return o;
}

roofline::Prediction predict_on_device(const analysis::Result& analysis, const hw::Device& device,
                                       const hw::Roofline& roofline, const DevicePredictionOptions& o,
                                       const std::string& model_path) {
  auto prediction = roofline::predict(analysis.cost, roofline, o.roofline);
  prediction.model = model_path;
  const auto& calibration = device.calibration;
  if (!calibration || calibration->model_file.empty()) {
    if (!o.exec_mode.empty() || o.threads > 0)
      throw Error(fmt::format(
          "--exec-mode and --threads need a device with a shape-aware calibration; '{}' has none (fit one with "
          "`ridge calibrate --device {} --sample`)",
          device.id, device.file));
    return prediction;
  }
  // Sweeps predict many points with one model: load it once. Never destroyed: at exit XGBoost's own
  // static state may be gone before this map's destructor would free the boosters.
  static auto* loaded = new std::map<std::string, std::shared_ptr<ShapeModel>>;
  auto& model = (*loaded)[calibration->model_file];
  if (!model) model = std::make_shared<ShapeModel>(ShapeModel::load(calibration->model_file));
  const bool gpu = model->on_gpu();
  const std::string what = model->executor() == "pytorch" ? model->framework() + " on the GPU" : "the GPU executor";
  if (!gpu && o.exec_mode == "cuda-graph")
    throw Error(
        fmt::format("--exec-mode cuda-graph: the calibration of '{}' covers the CPU executor's eager and "
                    "optimized modes, not a GPU's",
                    device.id));
  if (gpu && o.exec_mode == "optimized")
    throw Error(fmt::format("--exec-mode optimized: the calibration of '{}' covers {}'s eager and cuda-graph modes",
                            device.id, what));
  if (gpu && o.threads > 0)
    throw Error(fmt::format("--threads: the calibration of '{}' is of {}, which has no thread count", device.id, what));
  if (prediction.precision != model->ceilings().precision)
    throw Error(fmt::format("the calibration of '{}' was fitted for {}, not {}", device.id, model->ceilings().precision,
                            prediction.precision));
  CalibratedOptions options;
  options.mode = o.exec_mode.empty() ? "eager" : o.exec_mode;
  options.executor = model->executor();
  options.threads = gpu             ? 0
                    : o.threads > 0 ? o.threads
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.model_file = calibration->model_file;
  options.model_directory = analysis.model.directory;
  apply(prediction, analysis.model.graph, analysis.cost, *model, options);
  roofline::add_energy(prediction, roofline);  // from the calibrated times
  return prediction;
}

}  // namespace ridge::calib
