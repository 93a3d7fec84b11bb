#include "hw/ert/gpu_ert.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <utility>

#include "hw/device.h"
#include "sys/cuda_module.h"
#include "util/error.h"

namespace ridge::hw::ert {

GpuErtResult run_gpu_ert(const GpuErtOptions& options) {
  // The module's one entry point (src/hw/cuda/ert_module.cpp): it catches every exception and
  // returns its message.
  using Entry = void (*)(const GpuErtOptions*, GpuErtResult*, std::string*);
  auto entry = reinterpret_cast<Entry>(sys::cuda_module_symbol("ridge_cuda_ert"));
  GpuErtResult result;
  std::string error;
  entry(&options, &result, &error);
  if (!error.empty()) throw Error(error);
  return result;
}

namespace {

std::string number(double v) { return fmt::format("{:.6g}", v); }

// "16 KiB", "25 MiB", "1 GiB": working sets are sized in binary units.
std::string binary_size(double bytes) {
  if (bytes >= kGiB) return fmt::format("{:.4g} GiB", bytes / kGiB);
  if (bytes >= 1024 * kKiB) return fmt::format("{:.4g} MiB", bytes / (1024 * kKiB));
  return fmt::format("{:.4g} KiB", bytes / kKiB);
}

// The clock the measured peaks ran at: the SM clock measured during the FP32 FMA kernel, else the
// device's peak clock.
std::pair<double, std::string> reference_clock(const GpuErtResult& r) {
  for (const auto& p : r.fma)
    if (p.precision == "fp32" && p.clock_mhz > 0)
      return {p.clock_mhz,
              "measured by ridge ert --device cuda: SM clock cycles (clock64) over %globaltimer nanoseconds "
              "during the FP32 FMA kernel"};
  return {r.gpu.clock_mhz, "the device's peak SM clock (cudaDevAttrClockRate); not measured"};
}

void emit_peaks(YAML::Emitter& e, const std::vector<GpuPeak>& peaks) {
  e << YAML::Key << "peak_flops" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& p : peaks)
    if (p.skipped.empty() && p.rate.max > 0) e << YAML::Key << p.precision << YAML::Value << number(p.rate.max);
  e << YAML::EndMap;
}

bool any_measured(const std::vector<GpuPeak>& peaks) {
  for (const auto& p : peaks)
    if (p.skipped.empty() && p.rate.max > 0) return true;
  return false;
}

}  // namespace

std::string gpu_ert_device_yaml(const GpuErtResult& r) {
  const auto& g = r.gpu;
  const std::string when = fmt::format("ridge ert --device cuda ({}, sm_{}{}, {} SMs; best of {} repetitions)", g.name,
                                       g.cc_major, g.cc_minor, g.sms, r.repetitions);
  const auto [clock_mhz, clock_source] = reference_clock(r);
  YAML::Emitter e;
  e << YAML::Comment(
           "The measured roofline of this GPU, written by `ridge ert --device cuda`. Every figure is\n"
           "measured; use it anywhere a device is accepted: --device this-file.yaml")
    << YAML::Newline;
  e << YAML::BeginMap;
  e << YAML::Key << "id" << YAML::Value << "gpu-measured";
  e << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << g.name + " (measured)";
  e << YAML::Key << "kind" << YAML::Value << "gpu";
  e << YAML::Key << "clocks" << YAML::Value << YAML::BeginMap << YAML::Key << "gpu" << YAML::Value << YAML::Flow
    << YAML::BeginMap << YAML::Key << "max_mhz" << YAML::Value << number(clock_mhz) << YAML::Key << "source"
    << YAML::Value << YAML::DoubleQuoted << clock_source << YAML::EndMap << YAML::EndMap;

  e << YAML::Key << "units" << YAML::Value << YAML::BeginSeq;
  if (!any_measured(r.fma)) throw Error("ert: cannot write the profile: no FMA peak was measured");
  e << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "cuda-cores" << YAML::Key << "type" << YAML::Value
    << "vector" << YAML::Key << "clock" << YAML::Value << "gpu" << YAML::Key << "label" << YAML::Value << kMeasured;
  emit_peaks(e, r.fma);
  e << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
    << when + ": FMA kernels (fma on double, fmaf on float, __hfma2 on half2), independent chains on every SM"
    << YAML::EndMap;
  if (any_measured(r.tensor)) {
    int n = 0;
    for (const auto& p : r.tensor) n = std::max(n, p.n);
    e << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "tensor-cores" << YAML::Key << "type" << YAML::Value
      << "matrix" << YAML::Key << "clock" << YAML::Value << "gpu" << YAML::Key << "label" << YAML::Value << kMeasured;
    emit_peaks(e, r.tensor);
    e << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
      << fmt::format(
             "{}: cuBLASLt matmul, M = N = K = {}, FP32 accumulation (tf32: CUBLAS_COMPUTE_32F_FAST_TF32; int8: "
             "INT32 accumulation, operations per second)",
             when, n)
      << YAML::EndMap;
  }
  e << YAML::EndSeq;

  auto levels = best_level_bandwidth(r);
  if (!levels.count("dram")) throw Error("ert: cannot write the profile: no DRAM bandwidth was measured");
  e << YAML::Key << "memory" << YAML::Value << YAML::BeginSeq;
  for (const char* level : {"dram", "l2", "l1"}) {
    auto it = levels.find(level);
    if (it == levels.end() || it->second.rate <= 0) continue;
    const auto& b = it->second;
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "level" << YAML::Value << level;
    double size = it->first == "dram" ? g.memory_bytes : it->first == "l2" ? g.l2_bytes : 0;
    if (size > 0) e << YAML::Key << "size_bytes" << YAML::Value << number(size);
    e << YAML::Key << "bandwidth" << YAML::Value << number(b.rate) << YAML::Key << "label" << YAML::Value << kMeasured
      << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
      << fmt::format("{}: {} kernel over {}{}, the best point of the level", when, b.kernel, binary_size(b.bytes),
                     it->first == "l1" ? " per SM" : "")
      << YAML::EndMap;
  }
  e << YAML::EndSeq;

  e << YAML::Key << "overhead" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (r.launch_overhead_s.samples > 0 && r.launch_overhead_s.min > 0)
    e << YAML::Key << "seconds" << YAML::Value << number(r.launch_overhead_s.min) << YAML::Key << "label" << YAML::Value
      << kMeasured << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
      << when + ": empty kernels launched back to back on one stream, seconds per launch";
  else
    e << YAML::Key << "seconds" << YAML::Value << "5.0e-6" << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
      << "ridge default for a CUDA kernel launch (about 5 us), until calibrated";
  e << YAML::EndMap;
  e << YAML::Key << "modes" << YAML::Value << YAML::BeginSeq << YAML::Flow << YAML::BeginMap << YAML::Key << "name"
    << YAML::Value << "measured" << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted
    << "the clocks ridge ert --device cuda ran at" << YAML::EndMap << YAML::EndSeq;
  e << YAML::EndMap;
  if (!e.good()) throw Error("ert: cannot write the profile: " + e.GetLastError());
  return std::string(e.c_str()) + "\n";
}

}  // namespace ridge::hw::ert
