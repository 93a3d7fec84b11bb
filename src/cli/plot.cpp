// `ridge plot KIND ... -o FILE.svg|png|pdf|html|vg.json`: figures drawn by Vega from a model and
// devices, from a command's JSON output (--from) or from the results store. Argument parsing only;
// the figures are built in report/figure.

#include "cli/command.h"
#include "cli/common.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/plot_options.h"
#include "cli/store_options.h"
#include "report/figure/roofline_request.h"
#include "report/plot_report.h"

namespace ridge::cli {
namespace fig = report::figure;

void add_plot_output_options(CLI::App& app, PlotOutput& o) {
  app.add_option("-o,--output", o.path, "figure file: .html (interactive), .svg, .png, .pdf or .vg.json (the spec)")
      ->required();
  app.add_option("--width", o.width_px, "PNG width in pixels (default: twice the figure's size)")
      ->check(integer_in(16, 20000));
  app.add_option("--title", o.title, "the figure's title (default: what it shows)");
  add_format_option(app, o.format);
}

int finish_plot(const fig::Figure& figure, const PlotOutput& o, int series, const std::string& source) {
  report::write_plot(figure, o.path, o.width_px, o.format, series, source);
  return 0;
}

namespace {

struct RooflineOptions {
  DeviceOptions model;  // the model options and precision/traffic; `device` unused (see request.devices)
  fig::RooflinePlotRequest request;
  StoreOptions store;
  PlotOutput out;
};

int run_plot_roofline(RooflineOptions& o) {
  auto& r = o.request;
  r.model_name = o.model.model.model;
  r.choices = o.model.choices();
  r.title = o.out.title;
  if (!o.model.model.model.empty()) r.model = make_request(o.model.model);
  if (!r.results.empty()) r.store_path = store_path(o.store);
  auto plot = fig::roofline_plot(r);
  return finish_plot(plot.figure, o.out, plot.series, plot.source);
}

struct RenderOptions {
  std::string spec;
  PlotOutput out;
};

}  // namespace

Command add_plot_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("plot", "figures: rooflines, sweeps, layer breakdowns (HTML, SVG, PNG, PDF)");
  app->require_subcommand(1);
  app->footer(
      "Vega draws every figure: .html pages are interactive (hover a point for its numbers) and work offline;\n"
      ".svg comes from Vega's headless renderer (Node + node-vega), .png and .pdf from that SVG (rsvg-convert).\n"
      "Where a renderer is missing the Vega specification is written beside the file (FILE.vg.json).");
  std::vector<std::pair<CLI::App*, std::function<int()>>> kinds;

  auto r = std::make_shared<RooflineOptions>();
  auto* roofline = app->add_subcommand("roofline", "a model's layers (or profiler kernels) on device rooflines");
  roofline->footer(
      "Ceilings: every compute unit and precision and every memory level of each device and power mode,\n"
      "labelled datasheet / theoretical / measured. Points: arithmetic intensity against achieved FLOP/s\n"
      "(predicted, or measured with --measured), coloured by op family, sized by their share of the time.\n"
      "Examples:\n"
      "  ridge plot roofline models/resnet50.onnx --device jetson-agx-orin-64gb --modes all -o r.png\n"
      "  ridge plot roofline models/alexnet.onnx -d h100-sxm -d a100-sxm-80gb --with-training -o r.html\n"
      "  ridge plot roofline models/alexnet.onnx -d host.yaml --measured bench.json -o measured.svg\n"
      "  ridge plot roofline --from prediction.json -o r.pdf");
  add_model_options(*roofline, r->model.model, true);
  roofline->get_option("model")->required(false)->description("ONNX model file (optional with --from)");
  roofline->add_option("-d,--device", r->request.devices,
                       "device ID[:MODE] or device.yaml; repeat for several on one chart");
  roofline->add_option("--modes", r->request.modes, "power modes of every device: all, or MODE1,MODE2,...");
  add_prediction_choice_options(*roofline, r->model);
  roofline->add_option("--ceilings", r->request.ceilings,
                       "compute ceilings drawn: all (default for one device and mode), used (those the predictions "
                       "used; default for several), or KEY,KEY (fp32,fp16_tensor,...)");
  roofline->add_flag("--with-training", r->request.with_training, "also draw the training step as a series of its own");
  roofline->add_option("--measured", r->request.measured,
                       "a `ridge bench -f json` output of this model: measured node times as a series");
  roofline->add_option("--from", r->request.from,
                       "a `ridge predict -f json` or `ridge import ncu -f json` output, or another profiler's kernels "
                       "JSON (repeatable)");
  roofline->add_option("--result", r->request.results,
                       "a stored `ridge predict` or `ridge import ncu` result to draw, by id (see `ridge results`)");
  roofline->add_option("--store", r->store.path,
                       "results store of --result (default: $RIDGE_STORE, else ./ridge-results.db)");
  roofline->add_flag("--hierarchical", r->request.hierarchical,
                     "one point per memory level per kernel (profiler kernels)");
  add_plot_output_options(*roofline, r->out);
  kinds.emplace_back(roofline, [r] { return run_plot_roofline(*r); });

  auto g = std::make_shared<RenderOptions>();
  auto* render = app->add_subcommand("render", "render a Vega specification (FILE.vg.json) ridge wrote earlier");
  render->add_option("spec", g->spec, "the .vg.json file")->required();
  add_plot_output_options(*render, g->out);
  kinds.emplace_back(render, [g] { return finish_plot(fig::read_spec_figure(g->spec), g->out, 0, g->spec); });

  kinds.push_back(add_energy_roofline_kind(*app));
  for (auto& [kind, run] : add_plot_kinds(*app)) kinds.emplace_back(kind, run);
  return {app, [kinds] {
            for (const auto& [kind, run] : kinds)
              if (kind->parsed()) return run();
            return 0;
          }};
}

}  // namespace ridge::cli
