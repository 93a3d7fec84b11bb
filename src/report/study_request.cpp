#include "report/study_request.h"

#include <fmt/format.h>

#include <filesystem>
#include <thread>

#include "analysis/analysis_codec.h"
#include "hw/device_db.h"
#include "store/environment.h"
#include "util/error.h"

namespace ridge::report {

Study gather_study(const StudyRequest& o) {
  Study study;
  study.title = o.title;
  study.host = store::collect_environment(o.command_line);
  study.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());

  // Devices and modes first: a bad one is refused before any work.
  std::vector<hw::Device> devices;
  for (auto& d : hw::resolve_device_modes(o.devices, o.modes)) {
    study.devices.push_back({.id = d.device.id, .name = d.device.name, .rooflines = std::move(d.rooflines)});
    devices.push_back(std::move(d.device));
  }

  // The stored results: those the filters select (of MODEL's file by default, when one is given).
  auto filter = o.filter;
  if (filter.model == "all")
    filter.model.clear();
  else if (filter.model.empty() && o.model)
    filter.model = std::filesystem::path(o.model_name).stem().string();
  const auto& path = o.store_path;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    study.store_path = path;
    study.records = store::Store(path, true).query(filter);
  } else if (o.store_required) {
    throw Error("no results store at '" + path + "'");
  }

  if (o.model) {
    const auto& request = *o.model;
    auto analysis = analysis::run(request);
    study.model = o.model_name;
    study.batch = analysis::bound_batch(analysis.model);
    study.analysis = analysis::make_analysis(request, analysis, true);
    auto options = calib::prediction_options(o.choices, request);
    for (size_t i = 0; i < devices.size(); ++i)
      for (const auto& roofline : study.devices[i].rooflines)
        study.devices[i].predictions.push_back(
            calib::predict_on_device(analysis, devices[i], roofline, options, request.model_path));
  }
  if (study.records.empty() && !study.analysis)
    throw Error(fmt::format("nothing to report: no stored result matches in {} and no MODEL was given",
                            study.store_path.empty() ? path + " (no such store)" : path));
  return study;
}

}  // namespace ridge::report
