#include "report/ert_codec.h"

#include <fmt/format.h>

#include "report/ert_report.h"
#include "report/format.h"
#include "report/gpu_ert_report.h"
#include "report/printer.h"
#include "sys/host_cpu.h"
#include "util/error.h"

// Member lists for nlohmann's (de)serialisers, in the namespaces of the types (found by argument-dependent lookup).
// A new member is written and read once added here.
namespace ridge::sys {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Summary, samples, mean, stddev, min, median, p90, p99, max,
                                                relative_standard_error)
}  // namespace ridge::sys

namespace ridge::sys {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostCpu, model, vendor, family, model_number, cores, max_mhz,
                                                clock_source, simd_bits, fma_units, simd_note, caches, flags)
}  // namespace ridge::sys

namespace ridge::hw::ert {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FmaWidth, fma256_per_cycle, fma512_per_cycle, fmas_per_cycle, bits,
                                                flops_per_cycle_fp32, description)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PeakPoint, threads, clock_mhz, fp32, fp64, theoretical_fp32,
                                                theoretical_fp64)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BandwidthPoint, kernel, threads, bytes_per_thread, rate, level)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(IntensityPoint, level, fmas, intensity, flops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ErtResult, cpu, isa, fma, threads, peaks, bandwidth, level_bandwidth,
                                                level_kernel_bandwidth, intensity, gemm_fp32, gemm_kernel,
                                                gemm_by_kernel, gemm_n, seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuProperties, index, name, cc_major, cc_minor, sms, clock_mhz,
                                                memory_clock_mhz, memory_bus_bits, memory_bytes, free_bytes, l2_bytes,
                                                shared_per_sm_bytes, max_threads_per_sm, integrated, versions)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuPeak, precision, rate, theoretical, clock_mhz, n, method, skipped)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuBandwidthPoint, level, kernel, bytes, rate, theoretical)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuErtResult, gpu, quick, repetitions, fma, tensor, bandwidth,
                                                launch_overhead_s, seconds)
}  // namespace ridge::hw::ert

namespace ridge::report {
namespace {

// The macros of this nlohmann (3.11.2) serialise to nlohmann::json only: its keys come out sorted.
template <class T>
nlohmann::ordered_json values(const T& value) {
  return nlohmann::ordered_json::parse(nlohmann::json(value).dump());
}

}  // namespace

nlohmann::ordered_json encode_ert(const ErtMeasurement& result) {
  return std::visit(
      [](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        nlohmann::ordered_json out;
        if constexpr (std::is_same_v<T, hw::ert::ErtResult>) {
          out = to_json(ert_document(r));
          out["ert"] = {{"cpu", values(r)}};
        } else {
          out = to_json(gpu_ert_document(r));
          out["ert"] = {{"gpu", values(r)}};
        }
        return out;
      },
      result);
}

bool is_ert(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("ert") && doc["ert"].is_object() &&
         (doc["ert"].contains("cpu") || doc["ert"].contains("gpu"));
}

ErtMeasurement decode_ert(const nlohmann::json& doc, const std::string& where) {
  if (!is_ert(doc)) throw Error(fmt::format("{} is no `ridge ert -f json` output (it has no ert {{cpu|gpu}})", where));
  const auto& ert = doc["ert"];
  try {
    if (ert.contains("gpu")) return ert["gpu"].get<hw::ert::GpuErtResult>();
    return ert["cpu"].get<hw::ert::ErtResult>();
  } catch (const nlohmann::json::exception& e) {
    // nlohmann says which type it wanted ("type must be number, but is string"), not which member: the message is
    // still one line naming the file.
    throw Error(fmt::format("{}: ert is malformed: {}", where, e.what()));
  }
}

std::string ert_headline(const ErtMeasurement& result) {
  return std::visit(
      [](const auto& r) -> std::string {
        using T = std::decay_t<decltype(r)>;
        double fp32 = 0, dram = 0;
        if constexpr (std::is_same_v<T, hw::ert::ErtResult>) {
          if (!r.peaks.empty()) fp32 = r.peaks.back().fp32.max;
          if (auto it = r.level_bandwidth.find("dram"); it != r.level_bandwidth.end()) dram = it->second;
        } else {
          for (const auto& p : r.fma)
            if (p.precision == "fp32") fp32 = p.rate.max;
          auto best = hw::ert::best_level_bandwidth(r);
          if (auto it = best.find("dram"); it != best.end()) dram = it->second.rate;
        }
        std::string text = fp32 > 0 ? "fp32 " + si(fp32, "FLOP/s") : "";
        if (dram > 0) text += (text.empty() ? "" : ", ") + std::string("DRAM ") + si(dram, "B/s");
        return text;
      },
      result);
}

}  // namespace ridge::report
