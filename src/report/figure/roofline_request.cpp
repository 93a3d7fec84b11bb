#include "report/figure/roofline_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "exec/bench_codec.h"
#include "hw/device_db.h"
#include "report/figure/sources.h"
#include "report/ncu_import_codec.h"
#include "report/result_codec.h"
#include "roofline/prediction_codec.h"
#include "store/store.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::report::figure {

RooflinePlot roofline_plot(const RooflinePlotRequest& o) {
  RooflineInput input;
  std::string source;
  // Devices and modes first: a bad one is refused before any model work.
  std::vector<std::pair<hw::Device, hw::Roofline>> targets;
  for (auto& d : hw::resolve_device_modes(o.devices, o.modes))
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
    auto ceilings = ceilings_of(roofline, series_of(roofline));
    input.ceilings.insert(input.ceilings.end(), ceilings.begin(), ceilings.end());
  }
  std::set<std::string> used;  // "fp32", "dram": filled by the predictions below
  if (o.model) {
    if (targets.empty()) throw Error("a roofline of a model needs a device: --device ID (see `ridge devices`)");
    const auto& request = *o.model;
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
        auto prediction = calib::predict_on_device(
            analysis, device, roofline, calib::prediction_options(o.choices, phase_request), phase_request.model_path);
        for (const auto& node : prediction.nodes)
          if (!node.peak_key.empty()) used.insert(node.peak_key);
        auto series = series_of(roofline) + (o.with_training ? (training ? " training" : " inference") : "");
        auto points = prediction_points(prediction, series);
        input.points.insert(input.points.end(), points.begin(), points.end());
      }
      if (!o.measured.empty() && !training) {
        auto bench = exec::read_bench_file(o.measured);
        auto batch = analysis::bound_batch(analysis.model);
        int used = 0;
        std::vector<std::string> unmatched;
        auto points = bench_points(bench.runs, analysis.cost, batch, used, unmatched);
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
    source = o.model_name;
  }
  // --from files and stored results (--result ID): predictions through their codec, profiler kernels from the JSON of
  // `ridge import` (a kind without a codec of its own yet).
  auto add_predictions = [&](const std::vector<roofline::Prediction>& predictions, const std::string& where) {
    for (const auto& p : predictions) {
      auto series = p.device_id + " " + p.mode;
      auto points = prediction_points(p, series);
      input.points.insert(input.points.end(), points.begin(), points.end());
      if (targets.empty()) {  // the device the prediction was made for, unless --device gave ceilings
        if (p.device_id.empty()) throw Error(where + " names no device (device.id)");
        auto device = hw::find_device(p.device_id);
        auto roofline = hw::roofline_for(device, hw::resolve_mode(device, p.mode));
        auto ceilings = ceilings_of(roofline, series);
        input.ceilings.insert(input.ceilings.end(), ceilings.begin(), ceilings.end());
      }
    }
  };
  auto add_kernels = [&](const Json& doc, const std::string& where) {
    auto points = kernel_points(doc, where);
    input.points.insert(input.points.end(), points.begin(), points.end());
    input.hierarchical = true;
  };
  for (const auto& path : o.from) {
    auto doc = read_json_file(path);
    auto kind = document_kind(doc);
    if (kind == "predict") {
      add_predictions(roofline::decode_predictions(doc, "'" + path + "'"), "'" + path + "'");
    } else if (is_ncu_import(doc)) {  // ridge's own import, through its codec
      auto points = kernel_points(decode_ncu_import(doc, "'" + path + "'").import, path);
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
    const auto& path = o.store_path;
    store::Store store(path, true);
    store::Filter filter;
    filter.ids = o.results;
    auto records = store.query(filter);
    for (auto id : o.results)
      if (std::none_of(records.begin(), records.end(), [&](const store::Record& r) { return r.id == id; }))
        throw Error("no result " + std::to_string(id) + " in " + path + " (see `ridge results`)");
    for (const auto& record : records) {
      auto where = "result " + std::to_string(record.id);
      auto typed = typed_result(record);
      if (typed && !typed->predictions.empty()) {
        add_predictions(typed->predictions, where);
      } else if (typed && typed->ncu) {
        auto points = kernel_points(*typed->ncu, where);
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
    std::erase_if(input.ceilings, [&](const RooflineCeiling& c) { return c.compute && !keys.count(c.key); });
  if (input.points.empty() && input.ceilings.empty())
    throw Error("nothing to plot: give a MODEL with --device, or --from FILE.json");
  std::set<std::string> series;
  for (const auto& c : input.ceilings) series.insert(c.series);
  for (const auto& p : input.points) series.insert(p.series);
  input.title = o.title;
  if (input.title.empty()) {
    input.title = input.hierarchical ? "Hierarchical roofline" : "Roofline";
    if (o.model) input.title += ": " + std::filesystem::path(o.model_name).stem().string();
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
  return {roofline_figure(input), static_cast<int>(series.size()), source};
}

}  // namespace ridge::report::figure
