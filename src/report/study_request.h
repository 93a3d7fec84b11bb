#pragma once
// The study `ridge report` renders, gathered in one call: this machine, the devices and power modes asked for, the
// stored results the filters select, and, with a model, its analysis and its predictions on every device and mode.
#include <optional>
#include <string>
#include <vector>

#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/study_report.h"
#include "store/store.h"

namespace ridge::report {

struct StudyRequest {
  std::optional<analysis::Request> model;  // analysed and predicted on every device and mode
  std::string model_name;                  // as the user named it
  calib::PredictionChoices choices;        // precision, traffic, TF32 of the predictions
  std::vector<std::string> devices;        // ID[:MODE] or device files
  std::string modes;                       // every device's modes: all, or M1,M2
  std::string store_path;                  // the results store; a missing one is read as empty unless required
  bool store_required = false;             // the user named the store: it must exist
  // Which stored results. Its model is --of-model: "all" every model's results even with a MODEL; none, the MODEL's
  // (its file stem) when one is given.
  store::Filter filter;
  std::string title;         // "": from the model
  std::string command_line;  // this invocation, recorded with the host
};

// Throws ridge::Error (one line) for an unknown device or mode, a named store that does not exist, a model that
// does not analyse, and nothing to report (no result matches and no model).
Study gather_study(const StudyRequest& request);

}  // namespace ridge::report
