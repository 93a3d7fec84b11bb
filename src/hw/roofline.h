#pragma once
// A device's ceilings in one power mode: peak FLOP/s per unit and precision, bandwidth per
// memory level, fixed per-op overhead, each labelled with its source (datasheet or measured).
#include <map>
#include <optional>
#include <string>

#include "hw/device.h"

namespace ridge::hw {

struct Ceiling {
  double value = 0;
  std::string source;
  std::string label;  // datasheet, theoretical or measured
};

// A mode's energy ceilings (hw/energy.h): J per FLOP of each compute ceiling, J per DRAM byte, and
// the static power drawn for as long as anything runs.
struct EnergyRoofline {
  std::map<std::string, double> e_flop_j;  // ceiling key -> J/FLOP; "*" stands for any other key
  double e_byte_j = 0, p_static_w = 0;
  std::string source;
  std::string label;  // measured, datasheet or estimate

  // J per FLOP on the ceiling `key` (its own figure, else "*"); 0 when neither exists.
  double e_flop(const std::string& key) const;
};

struct Roofline {
  std::string device_id, device_name, mode;
  std::map<std::string, Ceiling> peak_flops;  // "fp32", "fp16_tensor", "cpu_fp32", ...
  std::map<std::string, Ceiling> bandwidth;   // "dram", "l2", ...
  double overhead_s = 0;
  std::string overhead_label;  // measured or estimate (hw::Device::overhead_label)
  std::string device_kind;     // gpu, cpu, soc: whether launches overlap the work before them
  std::optional<double> power_budget_w, tdp_w;
  std::map<std::string, double> clocks_mhz;  // the mode's clocks
  std::map<std::string, int> cores;
  std::optional<Calibration> calibration;
  std::optional<EnergyRoofline> energy;
  std::string energy_missing;  // why `energy` is empty (no TDP in the device file, ...)

  // FLOP per byte where the compute ceiling meets the DRAM bandwidth ceiling.
  double ridge_point(const std::string& peak_key) const;
};

// The named mode, a custom "gpu=918MHz,emc=2133MHz,cpu=8x1.5GHz" spec, or (empty) the default.
// Throws ridge::Error for an unknown mode or a frequency/core count the device cannot run.
PowerMode resolve_mode(const Device& device, const std::string& mode);

// The key of a unit's ceiling for a precision: "fp32", "fp16_tensor", "fp32_gemm", "cpu_fp32".
std::string ceiling_key(const ComputeUnit& unit, const std::string& precision);

// Peaks scale with the mode's clock of each unit's domain (and its online cores for CPU units);
// bandwidths scale with their memory clock; energy ceilings come from energy_roofline (hw/energy.h).
Roofline roofline_for(const Device& device, const PowerMode& mode);

}  // namespace ridge::hw
