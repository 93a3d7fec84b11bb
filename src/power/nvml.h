#pragma once
// NVIDIA GPUs through NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): no build
// dependency, and a machine without the driver gets a one-line error. The few functions ridge
// calls are declared here (their C types, from NVIDIA's nvml.h) and kept in a table that tests can
// fill with fakes.
#include <cstdint>
#include <memory>
#include <string>

#include "power/sampler.h"

namespace ridge::power {

struct NvmlApi {
  using Device = void*;                                           // nvmlDevice_t
  int (*init)() = nullptr;                                        // nvmlInit_v2
  int (*shutdown)() = nullptr;                                    // nvmlShutdown
  int (*device_count)(unsigned*) = nullptr;                       // nvmlDeviceGetCount_v2
  int (*handle_by_index)(unsigned, Device*) = nullptr;            // nvmlDeviceGetHandleByIndex_v2
  int (*power_usage_mw)(Device, unsigned*) = nullptr;             // nvmlDeviceGetPowerUsage
  int (*total_energy_mj)(Device, unsigned long long*) = nullptr;  // nvmlDeviceGetTotalEnergyConsumption
  int (*clock_mhz)(Device, int clock_type, unsigned*) = nullptr;  // nvmlDeviceGetClockInfo
  int (*temperature_c)(Device, int sensor, unsigned*) = nullptr;  // nvmlDeviceGetTemperature
  const char* (*error_string)(int) = nullptr;                     // nvmlErrorString
};

inline constexpr int kNvmlSuccess = 0;
inline constexpr int kNvmlNotSupported = 3;

// The table from `library`; a one-line error when it or one of the functions is missing.
NvmlApi load_nvml(const std::string& library = "libnvidia-ml.so.1");

// GPU `index`, or every GPU (index < 0) as rails gpu0, gpu1...; their total is the sum. Energy
// counters (Volta and newer) are used where every GPU has one.
std::unique_ptr<Sampler> nvml_sampler(const NvmlApi& api, int index);

}  // namespace ridge::power
