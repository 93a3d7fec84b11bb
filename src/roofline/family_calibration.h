#pragma once
// Calibration: fits per-op-family efficiency factors and the per-op overhead of a device from
// measured per-node times, so predictions can be corrected (`ridge calibrate`).
#include <yaml-cpp/yaml.h>

#include <istream>
#include <string>
#include <vector>

#include "hw/device.h"
#include "roofline/predict.h"

namespace ridge::roofline {

struct MeasuredNode {
  std::string name;
  double seconds = 0;
};

// CSV with a header naming a node column (node, name or layer) and time columns whose names carry
// their unit: a bare unit (seconds, s, ms, us, ns) or STATISTIC_UNIT (time_s, mean_ms, median_us,
// min_ns, ...). Units are never guessed: a time column without one ("time", "mean") is refused.
// The time is the mean (or a plain time) if there is one, else the median, else the minimum;
// other columns of that statistic (the same mean in another unit) must agree with it row by row.
// A file holding several runs (`ridge bench --csv` appends) is read for its last run (RunSelection);
// a node measured twice within one run is refused.
// Throws ridge::Error with one line naming the problem (and the line of a malformed row).
// Which run of a file the times come from: files written by `ridge bench --csv` hold every run of
// every call, each row naming its run (batch, mode, ..., timestamp); the last run is used.
struct RunSelection {
  int runs = 0;        // distinct runs in the file (1 for a file without run columns)
  std::string chosen;  // "batch 1, mode eager, ..., timestamp ...": the run used
};
std::vector<MeasuredNode> read_node_times(const std::string& path, RunSelection* selection = nullptr);
// The same from a stream; `source_name` names it in errors.
std::vector<MeasuredNode> parse_node_times(std::istream& in, const std::string& source_name,
                                           RunSelection* selection = nullptr);

struct CalibrationFit {
  hw::Calibration calibration;
  int unmatched = 0;                 // measured names that are not nodes of the model
  int without_work = 0;              // measured nodes with no roofline time (views, unknown ops): not fitted
  std::vector<std::string> dropped;  // families whose fitted slope was not positive
};

// Least squares over the matched nodes: measured = roofline_time / efficiency[family] +
// overhead x kernels, one efficiency per family and one overhead for the device.
// `prediction` must be uncalibrated. Throws ridge::Error when nothing matches.
CalibrationFit fit_calibration(const Prediction& prediction, const std::vector<MeasuredNode>& measured,
                               const std::string& source);

// The device file as YAML (yaml-cpp's emitter) with a `calibration:` section replacing any
// earlier one; every other key, figure and source is kept and loads back identically.
std::string calibrated_device_yaml(const std::string& device_file, const hw::Calibration& calibration);

// A device file's YAML tree, for the writers of calibrated copies. Throws ridge::Error naming the
// file when it cannot be read or is not a YAML mapping.
YAML::Node device_yaml_root(const std::string& device_file);

}  // namespace ridge::roofline
