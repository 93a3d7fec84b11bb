#pragma once
// `ridge plot energy-roofline` as one call: FLOP per joule against intensity, one curve per power mode of a device,
// with a model's nodes predicted in one of the modes as points.
#include <optional>
#include <string>

#include "analysis/run.h"
#include "calib/device_prediction.h"
#include "report/figure/figure.h"

namespace ridge::report::figure {

struct EnergyRooflinePlotRequest {
  std::optional<analysis::Request> model;  // the model whose nodes are the points
  std::string model_name;                  // as the user named it (the title's)
  std::string device;                      // ID[:MODE]: the mode is the points' (default: the first)
  calib::PredictionChoices choices;        // precision, traffic, TF32 of the prediction
  std::string modes = "all";               // the curves: all, or M1,M2 (the points' mode is always drawn)
  std::string ceiling;                     // the compute ceiling of the curves; "": the one with most FLOPs
  std::string title;                       // "": what it shows
};

struct EnergyRooflinePlot {
  Figure figure;
  int series = 0;      // curves drawn
  std::string source;  // the model, or the device file
};

// Throws ridge::Error (one line) for an unknown device, mode or ceiling, and a prediction without energy.
EnergyRooflinePlot energy_roofline_plot(const EnergyRooflinePlotRequest& request);

}  // namespace ridge::report::figure
