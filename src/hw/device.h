#pragma once
// A device as the roofline model sees it: clock domains, compute units with peak FLOP/s per
// precision at a reference clock, memory levels with size and bandwidth, power figures, named
// power modes, and the cited source of every figure. Loaded from devices/*.yaml.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ridge::hw {

// How a figure was obtained; every output shows it next to the number.
inline constexpr const char* kDatasheet = "datasheet";
inline constexpr const char* kTheoretical = "theoretical";
inline constexpr const char* kMeasured = "measured";
// Derived by a stated rule from other figures (energy coefficients from TDP and clocks) until a
// measurement replaces it; outputs always show the label.
inline constexpr const char* kEstimate = "estimate";

struct Sourced {
  double value = 0;
  std::string source;  // where the figure comes from (datasheet, whitepaper, measurement)
};

struct ClockDomain {
  double max_mhz = 0;  // the reference clock: unit peaks are given at this frequency
  double min_mhz = 0;
  int cores = 0;  // for CPU domains: cores at the reference
  std::string source;
  // The frequencies the domain can be set to (the driver's table: devfreq available_frequencies,
  // cpufreq scaling_available_frequencies, EMC rates), ascending, within [min_mhz, max_mhz]; empty
  // when the device file gives none. `ridge tune` enumerates custom modes from them.
  std::vector<double> steps_mhz;
};

// vector: SIMD / CUDA cores (key "fp32"); matrix: tensor units (key "fp16_tensor"); gemm: the
// matrix-product rate a BLAS measurably attains (key "fp32_gemm"), the ceiling of matrix families
// (Conv, Gemm, MatMul, ...) on devices without tensor units for the precision.
enum class UnitType { kVector, kMatrix, kGemm };

struct ComputeUnit {
  std::string name;  // e.g. "cuda-cores", "tensor-cores", "cpu-simd"
  UnitType type = UnitType::kVector;
  std::string clock;                         // clock domain the unit runs on
  bool scales_with_cores = false;            // CPU units: peak also scales with the online cores
  std::map<std::string, double> peak_flops;  // precision (fp64, fp32, tf32, fp16, bf16, int8, fp8) -> FLOP/s
  std::string key_prefix;  // e.g. "cpu_" for the CPU of an SoC, so its keys do not collide with the GPU's
  std::string source;
  std::string label = kDatasheet;
};

struct MemoryLevel {
  std::string level;      // dram, l3, l2, l1
  std::string kind;       // HBM3, LPDDR5, ... (informative)
  double size_bytes = 0;  // 0 when unknown
  double bandwidth = 0;   // bytes/s at the reference clock; 0 when unknown
  std::string clock;      // clock domain its bandwidth follows (e.g. emc), empty if fixed
  std::string source;
  std::string label = kDatasheet;
};

struct PowerMode {
  std::string name;
  std::map<std::string, double> clocks_mhz;  // domain -> frequency
  std::map<std::string, int> cores;          // domain -> online cores (CPU domains)
  std::optional<double> power_budget_w;
  std::string source;
  std::optional<int> nvpmodel_id;  // `nvpmodel -m ID` selects it on a Jetson
};

// A calibration fitted from measurements (`ridge calibrate`): either per-op-family efficiency
// factors (from one model's node times), or a shape-aware model (calib/model.h) in a file beside
// the device file, with its cross-validated error.
struct Calibration {
  double overhead_s = 0;                     // fixed cost per op
  std::map<std::string, double> efficiency;  // op family -> fraction of the roofline attained
  std::string fitted_from;                   // the measurement file(s)
  int nodes = 0;                             // how many measured nodes (layers) the fit used
  std::string model_file;                    // shape-aware model, resolved against the device file
  struct Validation {
    int points = 0;
    double median_abs = 0, p90_abs = 0, within_10 = 0;  // held-out relative errors (fractions)
  };
  std::optional<Validation> validation;
};

// The energy roofline of one power mode (Choi et al., "A roofline model of energy", 2013):
// E = e_flop * W + e_byte * Q + p_static * T, W FLOPs, Q DRAM bytes, T seconds.
struct EnergyCoefficients {
  std::string mode;                        // the power mode they hold for
  std::map<std::string, double> e_flop_j;  // ceiling key ("fp32", "fp16_tensor") -> J per FLOP; "*": any key
  double e_byte_j = 0;                     // J per DRAM byte
  double p_static_w = 0;                   // W drawn whatever runs (idle, leakage, the rest of the board)
  std::string source;
  std::string label = kMeasured;  // measured, datasheet, or estimate
};

struct Device {
  std::string id, name, kind;  // kind: gpu, cpu, soc
  std::map<std::string, ClockDomain> clocks;
  std::vector<ComputeUnit> units;
  std::vector<MemoryLevel> memory;
  std::optional<Sourced> tdp_w, idle_w;
  double overhead_s = 0;  // fixed per-op cost (kernel launch / dispatch)
  std::string overhead_source;
  // measured (`ridge ert` timed it on this machine) or estimate (a default): only a measured figure may enter a
  // lower bound, since a default can exceed what the hardware does.
  std::string overhead_label = kEstimate;
  std::vector<PowerMode> modes;            // the first is the default
  std::vector<EnergyCoefficients> energy;  // per mode, from a publication or `ridge calibrate --energy`
  std::optional<Calibration> calibration;
  std::string file;  // where it was loaded from
};

}  // namespace ridge::hw
