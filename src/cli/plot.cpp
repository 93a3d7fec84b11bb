// `ridge plot KIND ... -o FILE.svg|png|pdf|html|vg.json`: figures drawn by Vega from a model and
// devices, from a command's JSON output (--from) or from the results store. Argument parsing only;
// the figures are built in report/figure.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/plot_options.h"
#include "cli/store_options.h"
#include "exec/bench_codec.h"
#include "hw/device_db.h"
#include "onnx/model_reader.h"
#include "report/analysis_report.h"
#include "report/document_codec.h"
#include "report/figure/render.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "report/ncu_import_codec.h"
#include "report/prediction_report.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "roofline/prediction_codec.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::cli {
namespace fig = report::figure;

fig::Json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read '" + path + "'");
  try {
    return fig::Json::parse(in);
  } catch (const std::exception& e) {
    throw Error("'" + path + "' is not JSON: " + std::string(e.what()).substr(0, 120));
  }
}

void add_plot_output_options(CLI::App& app, PlotOutput& o) {
  app.add_option("-o,--output", o.path, "figure file: .html (interactive), .svg, .png, .pdf or .vg.json (the spec)")
      ->required();
  app.add_option("--width", o.width_px, "PNG width in pixels (default: twice the figure's size)")
      ->check(integer_in(16, 20000));
  app.add_option("--title", o.title, "the figure's title (default: what it shows)");
  add_format_option(app, o.format);
}

int finish_plot(const fig::Figure& figure, const PlotOutput& o, int series, const std::string& source) {
  fig::write_figure(figure, o.path, {.width_px = o.width_px});
  report::Document doc;
  doc.command = "plot";
  doc.subject = figure.title;
  doc.field("output", "wrote", o.path, o.path);
  doc.field("kind", "figure", figure.kind, figure.kind);
  doc.field("source", "from", source, source);
  int points = 0;
  for (const auto& data : figure.spec.at("data"))
    if (data.value("name", "") == "points") points = static_cast<int>(data.at("values").size());
  doc.field("points", "points", std::to_string(points), points);
  doc.field("series", "series", std::to_string(series), series);
  doc.notes = figure.notes;
  emit(doc, o.format);
  return 0;
}

namespace {

struct RooflineOptions {
  DeviceOptions model;  // the model options and precision/traffic; `device` unused (see devices)
  std::vector<std::string> devices, from;
  std::vector<int64_t> results;
  StoreOptions store;
  std::string modes, measured, ceilings;
  bool with_training = false, hierarchical = false;
  PlotOutput out;
};

int run_plot_roofline(const RooflineOptions& o) {
  fig::RooflineInput input;
  std::string source;
  // Devices and modes first: a bad one is refused before any model work.
  std::vector<std::pair<hw::Device, hw::Roofline>> targets;
  for (auto& d : resolve_device_modes(o.devices, o.modes))
    for (auto& roofline : d.rooflines) targets.emplace_back(d.device, std::move(roofline));
  auto series_of = [&](const hw::Roofline& r) { return r.device_id + (r.mode.empty() ? "" : " " + r.mode); };
  // Which ceilings: every one for one device and mode; with several, those the predictions used (and
  // every memory level), or the keys given, so the chart stays readable.
  std::string which = o.ceilings.empty() ? (targets.size() > 1 ? "used" : "all") : o.ceilings;
  std::set<std::string> keys;
  if (which != "all" && which != "used")
    for (const auto& key : split_commas(which)) keys.insert(key);
  for (const auto& [device, roofline] : targets) {
    for (const auto& key : keys)
      if (!roofline.peak_flops.count(key) && !roofline.bandwidth.count(key))
        throw Error("device '" + device.id + "' has no ceiling '" + key + "' (see `ridge devices show " + device.id +
                    "`)");
    auto ceilings = fig::ceilings_of(roofline, series_of(roofline));
    input.ceilings.insert(input.ceilings.end(), ceilings.begin(), ceilings.end());
  }
  std::set<std::string> used;  // "fp32", "dram": filled by the predictions below
  if (!o.model.model.model.empty()) {
    if (targets.empty()) throw Error("a roofline of a model needs a device: --device ID (see `ridge devices`)");
    auto request = make_request(o.model.model);
    std::vector<bool> phases{request.options.training};
    if (o.with_training) {
      if (request.options.training) throw Error("--with-training adds the training step to inference; drop --training");
      phases.push_back(true);
    }
    for (bool training : phases) {
      auto phase_request = request;
      phase_request.options.training = training;
      auto analysis = analysis::run(phase_request);
      for (const auto& [device, roofline] : targets) {
        auto options = o.model;
        options.device = device.id;
        auto prediction = predict_on_device(analysis, device, roofline, options, phase_request);
        for (const auto& node : prediction.nodes)
          if (!node.peak_key.empty()) used.insert(node.peak_key);
        auto series = series_of(roofline) + (o.with_training ? (training ? " training" : " inference") : "");
        auto points = fig::prediction_points(prediction, series);
        input.points.insert(input.points.end(), points.begin(), points.end());
      }
      if (!o.measured.empty() && !training) {
        auto bench = exec::read_bench_file(o.measured);
        auto batch = analysis::bound_batch(analysis.model);
        int used = 0;
        std::vector<std::string> unmatched;
        auto points = fig::bench_points(bench.runs, analysis.cost, batch, used, unmatched);
        if (!unmatched.empty())
          throw Error(
              fmt::format("{} measured node(s) of '{}' are not in the model (first: {}): was it measured "
                          "on another model?",
                          unmatched.size(), o.measured, unmatched.front()));
        input.points.insert(input.points.end(), points.begin(), points.end());
        if (used == 0)
          throw Error(
              fmt::format("'{}' has no inference run at batch {}: give --batch to match it", o.measured, batch));
      }
    }
    source = o.model.model.model;
  }
  // --from files and stored results (--result ID): predictions through their codec, profiler kernels from the JSON of
  // `ridge import` (a kind without a codec of its own yet).
  auto add_predictions = [&](const std::vector<roofline::Prediction>& predictions, const std::string& where) {
    for (const auto& p : predictions) {
      auto series = p.device_id + " " + p.mode;
      auto points = fig::prediction_points(p, series);
      input.points.insert(input.points.end(), points.begin(), points.end());
      if (targets.empty()) {  // the device the prediction was made for, unless --device gave ceilings
        if (p.device_id.empty()) throw Error(where + " names no device (device.id)");
        auto device = hw::find_device(p.device_id);
        auto roofline = hw::roofline_for(device, hw::resolve_mode(device, p.mode));
        auto ceilings = fig::ceilings_of(roofline, series);
        input.ceilings.insert(input.ceilings.end(), ceilings.begin(), ceilings.end());
      }
    }
  };
  auto add_kernels = [&](const fig::Json& doc, const std::string& where) {
    auto points = fig::kernel_points(doc, where);
    input.points.insert(input.points.end(), points.begin(), points.end());
    input.hierarchical = true;
  };
  for (const auto& path : o.from) {
    auto doc = read_json_file(path);
    auto kind = fig::document_kind(doc);
    if (kind == "predict") {
      add_predictions(roofline::decode_predictions(doc, "'" + path + "'"), "'" + path + "'");
    } else if (report::is_ncu_import(doc)) {  // ridge's own import, through its codec
      auto points = fig::kernel_points(report::decode_ncu_import(doc, "'" + path + "'").import, path);
      input.points.insert(input.points.end(), points.begin(), points.end());
      input.hierarchical = true;
    } else if (kind == "kernels") {  // another tool's kernels in the documented layout
      add_kernels(doc, path);
    } else {
      throw Error("'" + path +
                  "' is not a JSON output ridge can draw a roofline from (`ridge predict -f json`, `ridge import ncu "
                  "-f json`, or profiler kernels with kernels[].name, time_s, flops, bytes.{l1,l2,dram})");
    }
    source += (source.empty() ? "" : ", ") + path;
  }
  if (!o.results.empty()) {
    auto path = store_path(o.store);
    store::Store store(path, true);
    store::Filter filter;
    filter.ids = o.results;
    auto records = store.query(filter);
    for (auto id : o.results)
      if (std::none_of(records.begin(), records.end(), [&](const store::Record& r) { return r.id == id; }))
        throw Error("no result " + std::to_string(id) + " in " + path + " (see `ridge results`)");
    for (const auto& record : records) {
      auto where = "result " + std::to_string(record.id);
      auto typed = report::typed_result(record);
      if (typed && !typed->predictions.empty()) {
        add_predictions(typed->predictions, where);
      } else if (typed && typed->ncu) {
        auto points = fig::kernel_points(*typed->ncu, where);
        input.points.insert(input.points.end(), points.begin(), points.end());
        input.hierarchical = true;
      } else {
        throw Error(where + " (" + record.command +
                    ") is not a result ridge can draw a roofline from (a prediction, or an Nsight Compute import)" +
                    (!typed && record.status == "ok" ? ": it was stored before ridge kept typed results" : ""));
      }
      source += (source.empty() ? "" : ", ") + where;
    }
  }
  if (source.empty()) source = "the device files";
  if (o.hierarchical) input.hierarchical = true;
  if (which == "used" && !used.empty()) keys = used;
  if (!keys.empty())
    std::erase_if(input.ceilings, [&](const fig::RooflineCeiling& c) { return c.compute && !keys.count(c.key); });
  if (input.points.empty() && input.ceilings.empty())
    throw Error("nothing to plot: give a MODEL with --device, or --from FILE.json");
  std::set<std::string> series;
  for (const auto& c : input.ceilings) series.insert(c.series);
  for (const auto& p : input.points) series.insert(p.series);
  input.title = o.out.title;
  if (input.title.empty()) {
    input.title = input.hierarchical ? "Hierarchical roofline" : "Roofline";
    if (!o.model.model.model.empty()) input.title += ": " + std::filesystem::path(o.model.model.model).stem().string();
    std::set<std::string> device_ids;
    for (const auto& [device, roofline] : targets) device_ids.insert(device.id);
    if (device_ids.size() == 1)
      input.title += " on " + *device_ids.begin() +
                     (targets.size() > 1                    ? " (" + std::to_string(targets.size()) + " power modes)"
                      : targets[0].second.mode == "default" ? ""
                                                            : ", mode " + targets[0].second.mode);
    else if (device_ids.size() > 1)
      input.title += " on " + std::to_string(device_ids.size()) + " devices";
  }
  return finish_plot(fig::roofline_figure(input), o.out, static_cast<int>(series.size()), source);
}

struct RenderOptions {
  std::string spec;
  PlotOutput out;
};

int run_plot_render(const RenderOptions& o) {
  fig::Figure figure{.kind = "spec", .spec = read_json_file(o.spec)};
  if (!figure.spec.is_object() || !figure.spec.contains("marks"))
    throw Error("'" + o.spec + "' is not a Vega specification (no marks)");
  figure.title = figure.spec.contains("description") && figure.spec["description"].is_string()
                     ? figure.spec["description"].get<std::string>()
                     : o.spec;
  return finish_plot(figure, o.out, 0, o.spec);
}

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
  roofline->add_option("-d,--device", r->devices, "device ID[:MODE] or device.yaml; repeat for several on one chart");
  roofline->add_option("--modes", r->modes, "power modes of every device: all, or MODE1,MODE2,...");
  roofline->add_option("--precision", r->model.precision, "arithmetic precision (default: the model's)");
  roofline->add_flag("--allow-tf32", r->model.allow_tf32, "let fp32 matrix products use TF32 tensor units");
  roofline->add_option("--traffic", r->model.traffic, "memory traffic per node: unfused (default) or fused")
      ->check(CLI::IsMember({"unfused", "fused"}));
  roofline->add_option("--ceilings", r->ceilings,
                       "compute ceilings drawn: all (default for one device and mode), used (those the predictions "
                       "used; default for several), or KEY,KEY (fp32,fp16_tensor,...)");
  roofline->add_flag("--with-training", r->with_training, "also draw the training step as a series of its own");
  roofline->add_option("--measured", r->measured,
                       "a `ridge bench -f json` output of this model: measured node times as a series");
  roofline->add_option("--from", r->from,
                       "a `ridge predict -f json` or `ridge import ncu -f json` output, or another profiler's kernels "
                       "JSON (repeatable)");
  roofline->add_option("--result", r->results,
                       "a stored `ridge predict` or `ridge import ncu` result to draw, by id (see `ridge results`)");
  roofline->add_option("--store", r->store.path,
                       "results store of --result (default: $RIDGE_STORE, else ./ridge-results.db)");
  roofline->add_flag("--hierarchical", r->hierarchical, "one point per memory level per kernel (profiler kernels)");
  add_plot_output_options(*roofline, r->out);
  kinds.emplace_back(roofline, [r] { return run_plot_roofline(*r); });

  auto g = std::make_shared<RenderOptions>();
  auto* render = app->add_subcommand("render", "render a Vega specification (FILE.vg.json) ridge wrote earlier");
  render->add_option("spec", g->spec, "the .vg.json file")->required();
  add_plot_output_options(*render, g->out);
  kinds.emplace_back(render, [g] { return run_plot_render(*g); });

  kinds.push_back(add_energy_roofline_kind(*app));
  for (auto& [kind, run] : add_plot_kinds(*app)) kinds.emplace_back(kind, run);
  return {app, [kinds] {
            for (const auto& [kind, run] : kinds)
              if (kind->parsed()) return run();
            return 0;
          }};
}

}  // namespace ridge::cli
