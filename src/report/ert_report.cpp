#include "report/ert_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/format.h"
#include "report/text_table.h"

namespace ridge::report {

namespace {

// kAboveTheoreticalFlag where a measured peak exceeds the stated theoretical one, else "".
std::string flag(const hw::ert::PeakPoint& p) {
  bool above = hw::ert::above_theoretical(p.fp32.max, p.theoretical_fp32) ||
               hw::ert::above_theoretical(p.fp64.max, p.theoretical_fp64);
  return above ? hw::ert::kAboveTheoreticalFlag : "";
}

std::string percent_of(double measured, double theoretical) {
  auto text = fixed(100 * measured / theoretical, 1) + "%";
  return hw::ert::above_theoretical(measured, theoretical) ? text + " (" + hw::ert::kAboveTheoreticalFlag + ")" : text;
}

}  // namespace

nlohmann::json ert_json(const hw::ert::ErtResult& r) {
  const auto& top = r.peaks.back();
  nlohmann::json doc;
  doc["cpu"] = {{"model", r.cpu.model},
                {"cores", r.cpu.cores},
                {"max_mhz", r.cpu.max_mhz},
                {"clock_source", r.cpu.clock_source},
                {"simd_bits", r.cpu.simd_bits},
                {"fma_units", r.cpu.fma_units},
                {"isa", r.isa}};
  doc["fma_width"] = {{"fma256_per_cycle", r.fma.fma256_per_cycle},
                      {"fma512_per_cycle", r.fma.fma512_per_cycle},
                      {"fmas_per_cycle", r.fma.fmas_per_cycle},
                      {"bits", r.fma.bits},
                      {"flops_per_cycle_fp32", r.fma.flops_per_cycle_fp32},
                      {"description", r.fma.description}};
  doc["threads"] = r.threads;
  doc["peak_flops"] = {{"fp32", top.fp32.max}, {"fp64", top.fp64.max}};
  doc["theoretical"] = {{"fp32", top.theoretical_fp32}, {"fp64", top.theoretical_fp64}};
  nlohmann::json bandwidth = nlohmann::json::object();
  for (const auto& [level, bw] : r.level_bandwidth) bandwidth[level] = bw;
  doc["bandwidth"] = bandwidth;
  doc["bandwidth_by_kernel"] = r.level_kernel_bandwidth;
  doc["gemm_flops"] = {{"fp32", r.gemm_fp32.max}};
  doc["gemm_n"] = r.gemm_n;
  nlohmann::json peaks = nlohmann::json::array();
  for (const auto& p : r.peaks)
    peaks.push_back({{"threads", p.threads},
                     {"clock_mhz", p.clock_mhz},
                     {"fp32", {{"min", p.fp32.min}, {"median", p.fp32.median}, {"max", p.fp32.max}}},
                     {"fp64", {{"min", p.fp64.min}, {"median", p.fp64.median}, {"max", p.fp64.max}}},
                     {"fraction_fp32", p.fp32.max / p.theoretical_fp32},
                     {"fraction_fp64", p.fp64.max / p.theoretical_fp64},
                     {"flag", flag(p)}});
  doc["peaks"] = peaks;
  doc["seconds"] = r.seconds;
  return doc;
}

void write_ert_table(std::ostream& out, const hw::ert::ErtResult& r) {
  fmt::print(
      out, "{}: {} cores; widest SIMD {}; FMA width {}; theoretical peaks use it and the clock measured under load\n\n",
      r.cpu.model, r.cpu.cores, r.isa, r.fma.description);
  TextTable peaks(
      {"threads", "clock", "fp32 best", "median", "of theoretical", "fp64 best", "median", "of theoretical"});
  for (const auto& p : r.peaks)
    peaks.add_row({std::to_string(p.threads), fixed(p.clock_mhz, 0) + " MHz", si(p.fp32.max, "FLOP/s"),
                   si(p.fp32.median, "FLOP/s"), percent_of(p.fp32.max, p.theoretical_fp32), si(p.fp64.max, "FLOP/s"),
                   si(p.fp64.median, "FLOP/s"), percent_of(p.fp64.max, p.theoretical_fp64)});
  peaks.print(out);
  fmt::print(out, "\nbandwidth at {} thread(s), best point of each level (bytes as STREAM counts them):\n", r.threads);
  TextTable bw({"level", "read", "write", "copy", "triad"});
  for (const char* level : {"l1", "l2", "l3", "dram"}) {
    auto it = r.level_kernel_bandwidth.find(level);
    if (it == r.level_kernel_bandwidth.end()) continue;
    std::vector<std::string> row{level};
    for (const char* k : {"read", "write", "copy", "triad"})
      row.push_back(it->second.count(k) ? si(it->second.at(k), "B/s") : "");
    bw.add_row(row);
  }
  bw.print(out);
  fmt::print(out, "\nERT sweep (FLOP/s against FLOPs per byte, {} thread(s)):\n", r.threads);
  TextTable ert({"array in", "FLOP/B", "FLOP/s"});
  for (const auto& p : r.intensity) ert.add_row({p.level, fixed(p.intensity, 2), si(p.flops.max, "FLOP/s")});
  ert.print(out);
  fmt::print(out, "\nGEMM fp32 (ATen at::mm, n = {}): {} (median {})\n", r.gemm_n, si(r.gemm_fp32.max, "FLOP/s"),
             si(r.gemm_fp32.median, "FLOP/s"));
  fmt::print(out, "ran in {:.1f} s\n", r.seconds);
}

void write_ert_points_csv(std::ostream& out, const hw::ert::ErtResult& r) {
  fmt::print(out, "kind,kernel,threads,bytes_per_thread,level,intensity,min,median,max\n");
  for (const auto& p : r.peaks) {
    fmt::print(out, "fma,fp32,{},,,,{:.6g},{:.6g},{:.6g}\n", p.threads, p.fp32.min, p.fp32.median, p.fp32.max);
    fmt::print(out, "fma,fp64,{},,,,{:.6g},{:.6g},{:.6g}\n", p.threads, p.fp64.min, p.fp64.median, p.fp64.max);
  }
  for (const auto& p : r.bandwidth)
    fmt::print(out, "bandwidth,{},{},{:.0f},{},,{:.6g},{:.6g},{:.6g}\n", p.kernel, p.threads, p.bytes_per_thread,
               p.level, p.rate.min, p.rate.median, p.rate.max);
  for (const auto& p : r.intensity)
    fmt::print(out, "ert,fma{},{},,{},{:.4g},{:.6g},{:.6g},{:.6g}\n", p.fmas, r.threads, p.level, p.intensity,
               p.flops.min, p.flops.median, p.flops.max);
}

}  // namespace ridge::report
