// `ridge plot energy-roofline`: FLOP per joule against intensity, one curve per power mode of a device,
// with a model's predicted nodes as points. Argument parsing only; report/figure/energy_roofline_request builds it.
#include <fmt/format.h>

#include <memory>

#include "cli/device_options.h"
#include "cli/plot_options.h"
#include "report/figure/energy_roofline_request.h"

namespace ridge::cli {
namespace fig = report::figure;
namespace {

struct EnergyRooflineOptions {
  DeviceOptions model;  // the model, device (ID[:MODE]: the mode of the points), precision, traffic
  std::string modes = "all", ceiling;
  PlotOutput out;
};

int run_plot_energy_roofline(const EnergyRooflineOptions& o) {
  fig::EnergyRooflinePlotRequest r{.model_name = o.model.model.model,
                                   .device = o.model.device,
                                   .choices = o.model.choices(),
                                   .modes = o.modes,
                                   .ceiling = o.ceiling,
                                   .title = o.out.title};
  if (!o.model.model.model.empty()) r.model = make_request(o.model.model);
  auto plot = fig::energy_roofline_plot(r);
  return finish_plot(plot.figure, o.out, plot.series, plot.source);
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
