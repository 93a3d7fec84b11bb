#pragma once
// Calibration: fits per-op-family efficiency factors and the per-op overhead of a device from
// measured per-node times, so predictions can be corrected (`ridge calibrate`).
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

// CSV with a header naming a node column (node or name) and a time column (seconds, time_s or
// mean_ms). Throws ridge::Error naming the line of a malformed row.
std::vector<MeasuredNode> read_node_times(const std::string& path);
// The same from a stream; `source_name` names it in error messages.
std::vector<MeasuredNode> parse_node_times(std::istream& in, const std::string& source_name);

struct CalibrationFit {
  hw::Calibration calibration;
  int unmatched = 0;                 // measured names that are not nodes of the model
  std::vector<std::string> dropped;  // families whose fitted slope was not positive
};

// Least squares over the matched nodes: measured = roofline_time / efficiency[family] +
// overhead x kernels, one efficiency per family and one overhead for the device.
// `prediction` must be uncalibrated. Throws ridge::Error when nothing matches.
CalibrationFit fit_calibration(const Prediction& prediction, const std::vector<MeasuredNode>& measured,
                               const std::string& source);

// The device file's text with a `calibration:` section (replacing any earlier one).
std::string calibrated_device_yaml(const std::string& device_file, const hw::Calibration& calibration);

}  // namespace ridge::roofline
