#pragma once
// `ridge compare` as one call: a model predicted on a device against a run of it, read from a bench file or
// measured now on the executor, with the prediction made under the run's own conditions (its executor mode,
// threads and precision), and inputs that do not belong together (another batch or input size) refused.
#include <functional>
#include <iostream>
#include <string>

#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/command_output.h"
#include "report/compare_report.h"

namespace ridge::report {

struct CompareRequest {
  analysis::Request model;  // the model and its bindings (a batch the run fixes is taken from the run)
  std::string model_name;   // as the user named it: the comparison's and a run's model
  std::string device;       // ID[:MODE], host or a device file
  calib::PredictionChoices choices;
  std::string measured;  // a `ridge bench -f json` file or `bench --csv` directory; empty: measure now (run)
  bool run = false;
  double max_time_s = 10;  // the timed runs' budget when measuring now
  // Lines for people while a run is measured (the CLI prints them on stderr).
  std::function<void(const std::string&)> progress;
};

// Throws ridge::Error (one line) when the device cannot predict (the undetected host's missing bandwidth), an option
// contradicts the run's conditions, the run is of another batch or input size, or the model cannot run.
Comparison compare_model(const CompareRequest& request);

// `ridge compare` printed and kept: compare_model, its document (the `top` nodes with the largest difference; 0: all)
// printed on `out` in `format` (-f json: the comparison's codec, which the store and `results import` read back), and
// the comparison kept in the store with `params`.
void compare_and_keep(const CompareRequest& request, int top, const std::string& format, const StoreOptions& store,
                      const store::Params& params, std::ostream& out = std::cout);

}  // namespace ridge::report
