#pragma once
// Fitting the energy roofline of one power mode from measured runs (`ridge calibrate --energy`):
// E = e_flop x W + e_byte x Q + p_static x T, W FLOPs, Q DRAM bytes, T seconds, E joules per
// inference, by non-negative least squares on the runs' relative errors.
#include <optional>
#include <string>
#include <vector>

#include "hw/device.h"

namespace ridge::roofline {

// One measured run: the work W and traffic Q ridge counts for it, its measured time and energy.
struct EnergyRun {
  std::string label;   // names the run in outputs: "alexnet.onnx batch 8 (eager, fp32)", a CSV label
  std::string source;  // the file (and line or run index) it was read from
  double flops = 0, bytes = 0, time_s = 0, energy_j = 0;
};

// The coefficients in the order of the fit's columns, as device files name them.
inline constexpr const char* kEnergyCoefficientNames[3] = {"e_flop_j", "e_byte_j", "p_static_w"};

struct EnergyFit {
  double e_flop_j = 0, e_byte_j = 0, p_static_w = 0;
  // Per coefficient (e_flop, e_byte, p_static): its standard error; none when the runs leave no
  // degree of freedom for the residual, or the coefficient is held at 0 by the non-negativity bound.
  std::optional<double> standard_error[3];
  bool at_bound[3] = {false, false, false};  // held at 0: the unconstrained fit wanted it negative
  std::vector<double> fitted_j;              // per run, in the order given
  std::vector<double> relative_error;        // (fitted - measured) / measured, per run
  double median_rel = 0, max_rel = 0;        // of |relative error|
  double r2 = 0;                             // of the energies: 1 - SS_res / SS_tot
  int degrees_of_freedom = 0;                // runs - free coefficients
};

// Minimises the sum of squared relative errors ((fitted - measured) / measured)^2 over the three
// coefficients constrained to be >= 0: every subset of free coefficients is solved (columns scaled
// to unit norm, so FLOPs, bytes and seconds of any magnitude are well conditioned) and the best
// feasible one kept — the exact non-negative optimum for three unknowns.
// Throws ridge::Error (one line) when the runs cannot determine the coefficients: fewer than 3 runs,
// fewer than 3 distinct (W, Q) work points (one model at one batch), or columns that are linearly
// dependent (every run at one intensity W/Q, no FLOPs at all, ...): the message names the
// coefficients that cannot be told apart and what to measure.
EnergyFit fit_energy(const std::vector<EnergyRun>& runs);

// The device file as YAML with an `energy:` entry for `coefficients.mode` replacing any earlier one for
// that mode; every other key (other modes' entries included) is kept.
// `output`: where the copy will be written. A shape-aware calibration the device file carries names its model file
// relative to that file; the copy names it relative to `output`, so time and energy calibrations stay one file
// wherever it is written.
std::string energy_device_yaml(const std::string& device_file, const hw::EnergyCoefficients& coefficients,
                               const std::string& output = "");

}  // namespace ridge::roofline
