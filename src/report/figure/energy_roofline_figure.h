#pragma once
// The energy roofline figure (Choi et al., "A roofline model of energy", 2013): FLOP per joule
// against arithmetic intensity, one curve per power mode of a device (roofline::flops_per_joule on
// one compute ceiling), with a model's predicted nodes as points (FLOPs / predicted node energy).
// Curves and points drawn from estimated coefficients say "estimate" in the legend and tooltips.
#include <string>
#include <vector>

#include "hw/roofline.h"
#include "report/figure/figure.h"

namespace ridge::report::figure {

struct EnergyPoint {
  std::string name, op, family, ceiling;
  double flops = 0, bytes = 0, energy_j = 0, time_s = 0;
};

struct EnergyRooflineInput {
  std::string title;
  std::vector<hw::Roofline> modes;  // one curve each; a mode without energy ceilings is named in the notes
  std::string peak_key;             // the compute ceiling of the curves: "fp32", "fp16_tensor"
  std::string points_series;        // the mode the points were predicted in ("MAXN")
  std::string points_label;         // the label of the coefficients behind the points (estimate, measured)
  std::vector<EnergyPoint> points;
};

// Log-spaced intensities per decade of each curve.
inline constexpr int kEnergyCurveSamplesPerDecade = 24;

// Data sets: "curves" (series, label, intensity, flops_per_joule: kEnergyCurveSamplesPerDecade
// log-spaced intensities per decade over the x axis, plus the ridge point where the curve bends),
// "bends" (one per mode: its ridge point and energy balance e_byte / e_flop) and "points" (intensity =
// flops / bytes, flops_per_joule = flops / energy_j, share = its part of the model's energy). Points
// without FLOPs, bytes or energy cannot sit on the chart: they are counted in the notes, never drawn
// at zero. Throws ridge::Error when no mode has energy ceilings on `peak_key`.
Figure energy_roofline_figure(const EnergyRooflineInput& input);

}  // namespace ridge::report::figure
