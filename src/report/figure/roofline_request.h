#pragma once
// `ridge plot roofline` as one call: the ceilings of devices and power modes, and the points to draw on them (a
// model's layers predicted on each device, a measured bench run of it, predictions and profiler kernels from
// files or the results store), gathered into one figure.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/figure/figure.h"

namespace ridge::report::figure {

struct RooflinePlotRequest {
  std::optional<analysis::Request> model;  // a model's layers, predicted on every device and mode
  std::string model_name;                  // as the user named it (the title's)
  calib::PredictionChoices choices;        // precision, traffic, TF32 of those predictions
  bool with_training = false;              // the training step as a series of its own too
  std::string measured;                    // a `ridge bench -f json` file of the model: its node times
  std::vector<std::string> devices;        // ID[:MODE] or device files
  std::string modes;                       // every device's modes: all, or M1,M2
  std::string ceilings;                    // "", all, used, or KEY,KEY (see `plot roofline --help`)
  std::vector<std::string> from;           // predict / import ncu JSON outputs, or another profiler's kernels
  std::string store_path;                  // where `results` are
  std::vector<int64_t> results;            // stored predictions or ncu imports, by id
  bool hierarchical = false;               // one point per memory level per kernel
  std::string title;                       // "": what it shows
};

struct RooflinePlot {
  Figure figure;
  int series = 0;      // distinct series of ceilings and points
  std::string source;  // what the points came from, for the summary
};

// Throws ridge::Error (one line) for an unknown device, mode or ceiling key, a file ridge cannot draw from, a
// measured run of another model or batch, a result id not in the store, and nothing to plot.
RooflinePlot roofline_plot(const RooflinePlotRequest& request);

}  // namespace ridge::report::figure
