#pragma once
// Source specs, as `--source`/`--power` take them:
//   nvml | nvml:INDEX             NVIDIA GPUs through NVML (all summed, or one)
//   jetson                        Jetson INA3221 rails in sysfs (Orin hwmon, Xavier/Nano iio)
//   tegrastats | tegrastats:FILE  tegrastats run live, or its log
//   rapl | rapl:package | rapl:dram   Linux powercap RAPL counters
//   csv:FILE                      a meter's trace: a timestamp column and a watts column
#include <memory>
#include <string>

#include "power/sampler.h"
#include "power/trace.h"

namespace ridge::power {

struct SourceOptions {
  double interval_s = 0;  // 0: the source's default (tegrastats: 1 s; its logs: 1 s between lines)
};

// True for the specs that name a file (tegrastats:FILE, csv:FILE): they are read, not sampled.
bool is_file_source(const std::string& spec);

// Opens a live source; an unknown spec, a file spec or a source that cannot be read is a one-line
// ridge::Error (the sampler has read once before it is returned).
std::unique_ptr<Sampler> open_sampler(const std::string& spec, const SourceOptions& options = {});

// Reads a file source whole into a trace.
Trace read_trace_file(const std::string& spec, const SourceOptions& options = {});

}  // namespace ridge::power
