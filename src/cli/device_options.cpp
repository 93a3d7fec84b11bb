#include "cli/device_options.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <thread>

#include "calib/predict.h"
#include "graph/dtype.h"
#include "hw/device_db.h"
#include "roofline/energy.h"
#include "util/error.h"

namespace ridge::cli {

roofline::PredictOptions predict_options(const DeviceOptions& o, const analysis::Request& request) {
  roofline::PredictOptions p;
  p.precision = o.precision.empty() ? (request.options.activation_dtype
                                           ? std::string(graph::dtype_name(*request.options.activation_dtype))
                                           : "fp32")
                                    : o.precision;
  p.allow_tf32 = o.allow_tf32;
  p.traffic = o.traffic == "fused" ? roofline::Traffic::kFused : roofline::Traffic::kUnfused;
  p.batch = request.bindings.batch.value_or(1);
  return p;
}

void add_device_options(CLI::App& app, DeviceOptions& o) {
  app.add_option("-d,--device", o.device, "ID[:MODE], host, or path/to/device.yaml[:MODE] (see `ridge devices`)")
      ->required();
  app.add_option("--precision", o.precision,
                 "arithmetic precision: fp32 (default, or --dtype's), fp16, bf16, int8, fp64")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "int8", "fp64", "fp8"}));
  app.add_flag("--allow-tf32", o.allow_tf32, "let fp32 convolutions and matrix products use TF32 tensor units");
  app.add_option("--traffic", o.traffic, "memory traffic per node: unfused (default) or fused")
      ->check(CLI::IsMember({"unfused", "fused"}));
}

void add_calibrated_options(CLI::App& app, DeviceOptions& o) {
  app.add_option("--exec-mode", o.exec_mode,
                 "executor mode a calibrated device predicts: eager (default) or optimized (bench's --mode); "
                 "cuda-graph selects a GPU run")
      ->check(CLI::IsMember({"eager", "optimized", "cuda-graph"}));
  app.add_option("--threads", o.threads, "executor threads a calibrated device predicts (default: logical CPUs)")
      ->check(CLI::Range(1, 4096));
}

roofline::Prediction predict_on_device(const analysis::Result& analysis, const hw::Device& device,
                                       const hw::Roofline& roofline, const DeviceOptions& o,
                                       const analysis::Request& request) {
  auto prediction = roofline::predict(analysis.cost, roofline, predict_options(o, request));
  prediction.model = request.model_path;
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
  static auto* loaded = new std::map<std::string, std::shared_ptr<calib::ShapeModel>>;
  auto& model = (*loaded)[calibration->model_file];
  if (!model) model = std::make_shared<calib::ShapeModel>(calib::ShapeModel::load(calibration->model_file));
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
  calib::CalibratedOptions options;
  options.mode = o.exec_mode.empty() ? "eager" : o.exec_mode;
  options.executor = model->executor();
  options.threads = gpu             ? 0
                    : o.threads > 0 ? o.threads
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.model_file = calibration->model_file;
  calib::apply(prediction, analysis.model.graph, analysis.cost, *model, options);
  roofline::add_energy(prediction, roofline);  // from the calibrated times
  return prediction;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

std::vector<DeviceModes> resolve_device_modes(const std::vector<std::string>& specs, const std::string& modes) {
  auto listed = modes.empty() || modes == "all" ? std::vector<std::string>{} : split_commas(modes);
  std::vector<DeviceModes> out;
  for (const auto& spec : specs) {
    auto [id, mode_text] = hw::split_device_and_mode(spec);
    DeviceModes d{.device = hw::find_device(id)};
    std::vector<std::string> names;
    if (modes == "all") {
      for (const auto& m : d.device.modes) names.push_back(m.name);
    } else if (!listed.empty()) {
      if (!mode_text.empty()) throw Error("give the mode either in --device ID:MODE or in --modes, not both");
      names = listed;
    } else {
      names.push_back(mode_text);
    }
    for (const auto& name : names) d.rooflines.push_back(hw::roofline_for(d.device, hw::resolve_mode(d.device, name)));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ridge::cli
