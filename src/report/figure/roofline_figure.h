#pragma once
// The roofline figure: a device's ceilings (every compute unit and precision, every memory level,
// labelled datasheet / theoretical / measured) with layers or kernels as points at (arithmetic
// intensity, achieved FLOP/s). Several devices or power modes share one chart as series. The
// hierarchical variant draws one point per memory level per kernel (a profiler's L1, L2, DRAM bytes),
// joined by a line, as in the NERSC hierarchical roofline.
#include <string>
#include <vector>

#include "hw/roofline.h"
#include "report/figure/figure.h"

namespace ridge::report::figure {

struct RooflineCeiling {
  std::string series;   // device and power mode ("jetson-agx-orin-64gb MAXN")
  std::string key;      // "fp32", "fp16_tensor", "dram", "l2"
  bool compute = true;  // a FLOP/s ceiling, else a bandwidth (bytes/s)
  double value = 0;
  std::string label;  // datasheet, theoretical or measured
};

struct RooflinePoint {
  std::string series, name, op, family;
  std::string level;  // hierarchical: the memory level these bytes were counted at
  double flops = 0, bytes = 0, time_s = 0;
  std::string time_kind;  // "predicted" or "measured"
};

struct RooflineInput {
  std::string title;
  std::vector<RooflineCeiling> ceilings;
  std::vector<RooflinePoint> points;
  bool hierarchical = false;
};

// Every compute ceiling and bandwidth of `roofline`, under `series`.
std::vector<RooflineCeiling> ceilings_of(const hw::Roofline& roofline, const std::string& series);

// Data sets: "ceilings" (one segment per ceiling, with its value and label), "points" (one per
// drawable point: intensity = flops / bytes, flops_per_s = flops / time_s, share = its part of the
// series' time) and, when hierarchical, "links" (one per kernel). Points without FLOPs, bytes or time
// cannot sit on a roofline; they are counted in the notes, never drawn at zero.
Figure roofline_figure(const RooflineInput& input);

}  // namespace ridge::report::figure
