// `ridge plot energy-roofline`: FLOP per joule against intensity, one curve per power mode of a device,
// with a model's predicted nodes as points. Argument parsing only; report/figure builds the figure.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>

#include "cli/device_options.h"
#include "cli/plot_options.h"
#include "hw/device_db.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/figure/sources.h"
#include "report/prediction_report.h"
#include "report/printer.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::cli {
namespace fig = report::figure;
namespace {

struct EnergyRooflineOptions {
  DeviceOptions model;  // the model, device (ID[:MODE]: the mode of the points), precision, traffic
  std::string modes = "all", ceiling;
  PlotOutput out;
};

// The compute ceiling that carries most of the prediction's FLOPs; "fp32" (else the first) without one.
std::string main_ceiling(const roofline::Prediction* p, const hw::Roofline& r) {
  std::map<std::string, double> flops;
  if (p)
    for (const auto& n : p->nodes)
      if (!n.peak_key.empty() && n.predicted) flops[n.peak_key] += n.flops;
  std::string best;
  for (const auto& [key, f] : flops)
    if (best.empty() || f > flops[best]) best = key;
  if (!best.empty()) return best;
  if (r.peak_flops.count("fp32")) return "fp32";
  if (r.peak_flops.empty()) throw Error("device '" + r.device_id + "' has no compute ceiling");
  return r.peak_flops.begin()->first;
}

int run_plot_energy_roofline(const EnergyRooflineOptions& o) {
  // The device and its modes first: a bad one is refused before any model work.
  auto [id, mode_text] = hw::split_device_and_mode(o.model.device);
  auto device = hw::find_device(id);
  auto points_mode = hw::resolve_mode(device, mode_text);
  std::vector<hw::PowerMode> modes;
  if (o.modes == "all")
    modes = device.modes;
  else
    for (const auto& name : split_commas(o.modes)) modes.push_back(hw::resolve_mode(device, name));
  bool listed = false;
  for (const auto& m : modes) listed = listed || m.name == points_mode.name;
  if (!listed) modes.push_back(points_mode);  // the points' own curve is always drawn
  fig::EnergyRooflineInput input;
  const hw::Roofline* points_roofline = nullptr;
  for (const auto& m : modes) input.modes.push_back(hw::roofline_for(device, m));
  for (const auto& r : input.modes)
    if (r.mode == points_mode.name) points_roofline = &r;
  input.points_series = points_mode.name;

  std::optional<roofline::Prediction> prediction;
  std::string source = "the device file";
  if (!o.model.model.model.empty()) {
    auto request = make_request(o.model.model);
    auto analysis = analysis::run(request);
    prediction = predict_on_device(analysis, device, *points_roofline, o.model, request);
    if (!prediction->energy_predicted) throw Error("no energy to plot: " + prediction->energy_missing);
    input.points = fig::energy_points(*prediction);
    input.points_label = prediction->energy_label;
    source = o.model.model.model;
  }
  input.peak_key = o.ceiling.empty() ? main_ceiling(prediction ? &*prediction : nullptr, *points_roofline) : o.ceiling;
  if (!points_roofline->peak_flops.count(input.peak_key))
    throw Error("device '" + device.id + "' has no ceiling '" + input.peak_key + "' (see `ridge devices show " +
                device.id + "`)");
  input.title = o.out.title;
  if (input.title.empty()) {
    input.title = "Energy roofline";
    if (prediction) input.title += ": " + std::filesystem::path(o.model.model.model).stem().string();
    input.title +=
        " on " + device.id + " (" + input.peak_key + (prediction ? ", points in " + points_mode.name : "") + ")";
  }
  auto figure = fig::energy_roofline_figure(input);
  if (prediction)
    for (const auto& note : prediction->notes) figure.notes.push_back(note);
  int series = static_cast<int>(fig::data_values(figure.spec, "bends").size());
  return finish_plot(figure, o.out, series, source);
}

}  // namespace

std::pair<CLI::App*, std::function<int()>> add_energy_roofline_kind(CLI::App& plot) {
  auto o = std::make_shared<EnergyRooflineOptions>();
  auto* app = plot.add_subcommand(
      "energy-roofline", "FLOP per joule against arithmetic intensity: one curve per power mode, a model's nodes");
  app->footer(
      "Curves: 1 / (e_flop + e_byte / I + p_static x max(1/peak, 1/(I x B))) per power mode (docs/energy.md),\n"
      "on one compute ceiling (--ceiling; default: the one carrying most of the model's FLOPs, else fp32).\n"
      "Points: each predicted node at (FLOPs / bytes, FLOPs / its predicted energy) in the mode of --device\n"
      "ID:MODE (default: the first mode). Coefficients that are estimates say so in the legend.\n"
      "Examples:\n"
      "  ridge plot energy-roofline models/resnet50.onnx -d jetson-agx-orin-64gb:MAXN --precision fp16 -o e.png\n"
      "  ridge plot energy-roofline -d jetson-agx-orin-64gb --modes MAXN,15W --ceiling fp32 -o e.svg");
  add_model_options(*app, o->model.model, true);
  app->get_option("model")->required(false)->description("ONNX model file (optional: without it, curves only)");
  add_device_options(*app, o->model);
  app->add_option("--modes", o->modes, "power modes drawn as curves: all (default), or MODE1,MODE2,...");
  app->add_option("--ceiling", o->ceiling, "the compute ceiling of the curves: fp32, fp16_tensor, ...");
  add_plot_output_options(*app, o->out);
  return {app, [o] { return run_plot_energy_roofline(*o); }};
}

}  // namespace ridge::cli
