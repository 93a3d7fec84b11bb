#include "report/figure/energy_roofline_request.h"

#include <filesystem>
#include <map>
#include <vector>

#include "hw/device_db.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/figure/sources.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

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

}  // namespace

EnergyRooflinePlot energy_roofline_plot(const EnergyRooflinePlotRequest& o) {
  // The device and its modes first: a bad one is refused before any model work.
  auto [id, mode_text] = hw::split_device_and_mode(o.device);
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
  EnergyRooflineInput input;
  const hw::Roofline* points_roofline = nullptr;
  for (const auto& m : modes) input.modes.push_back(hw::roofline_for(device, m));
  for (const auto& r : input.modes)
    if (r.mode == points_mode.name) points_roofline = &r;
  input.points_series = points_mode.name;

  std::optional<roofline::Prediction> prediction;
  std::string source = "the device file";
  if (o.model) {
    const auto& request = *o.model;
    auto analysis = analysis::run(request);
    prediction = calib::predict_on_device(analysis, device, *points_roofline,
                                          calib::prediction_options(o.choices, request), request.model_path);
    if (!prediction->energy_predicted) throw Error("no energy to plot: " + prediction->energy_missing);
    input.points = energy_points(*prediction);
    input.points_label = prediction->energy_label;
    source = o.model_name;
  }
  input.peak_key = o.ceiling.empty() ? main_ceiling(prediction ? &*prediction : nullptr, *points_roofline) : o.ceiling;
  if (!points_roofline->peak_flops.count(input.peak_key))
    throw Error("device '" + device.id + "' has no ceiling '" + input.peak_key + "' (see `ridge devices show " +
                device.id + "`)");
  input.title = o.title;
  if (input.title.empty()) {
    input.title = "Energy roofline";
    if (prediction) input.title += ": " + std::filesystem::path(o.model_name).stem().string();
    input.title +=
        " on " + device.id + " (" + input.peak_key + (prediction ? ", points in " + points_mode.name : "") + ")";
  }
  auto figure = energy_roofline_figure(input);
  if (prediction)
    for (const auto& note : prediction->notes) figure.notes.push_back(note);
  int series = static_cast<int>(data_values(figure.spec, "bends").size());
  return {std::move(figure), series, source};
}

}  // namespace ridge::report::figure
