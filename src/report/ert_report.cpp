#include "report/ert_report.h"

#include <fmt/format.h>

#include "report/format.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

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

Column rate(std::string key, std::string title, std::string json_path, const char* unit = "FLOP/s") {
  return {.key = std::move(key),
          .title = std::move(title),
          .style = Style::kSi,
          .unit = unit,
          .json_path = std::move(json_path)};
}

void add_header(Document& doc, const hw::ert::ErtResult& r) {
  add_ridge_version(doc);
  doc.field("cpu", "",
            fmt::format("{}: {} cores; widest SIMD {}; FMA width {}; theoretical peaks use it and the clock measured "
                        "under load",
                        r.cpu.model, r.cpu.cores, r.isa, r.fma.description),
            {{"model", r.cpu.model},
             {"cores", r.cpu.cores},
             {"max_mhz", r.cpu.max_mhz},
             {"clock_source", r.cpu.clock_source},
             {"simd_bits", r.cpu.simd_bits},
             {"fma_units", r.cpu.fma_units},
             {"isa", r.isa}});
  doc.field("fma_width", "", "",
            {{"fma256_per_cycle", r.fma.fma256_per_cycle},
             {"fma512_per_cycle", r.fma.fma512_per_cycle},
             {"fmas_per_cycle", r.fma.fmas_per_cycle},
             {"bits", r.fma.bits},
             {"flops_per_cycle_fp32", r.fma.flops_per_cycle_fp32},
             {"description", r.fma.description}},
            kJson);
  doc.field("threads", "", "", r.threads, kJson);
  if (r.peaks.empty()) return;
  const auto& top = r.peaks.back();
  doc.field("peak_flops", "", "", {{"fp32", top.fp32.max}, {"fp64", top.fp64.max}}, kJson);
  doc.field("theoretical", "", "", {{"fp32", top.theoretical_fp32}, {"fp64", top.theoretical_fp64}}, kJson);
}

void add_peaks(Document& doc, const hw::ert::ErtResult& r) {
  auto& t = doc.table("peaks", "");
  t.column({.key = "threads"})
      .column({.key = "clock_mhz", .title = "clock", .style = Style::kFixed, .unit = "MHz", .decimals = 0})
      .column(rate("fp32_max", "fp32 best", "fp32.max"))
      .column(rate("fp32_median", "median", "fp32.median"))
      .column({.key = "fp32_min", .audience = kMachine, .json_path = "fp32.min"})
      .column({.key = "fp32_of_theoretical", .title = "of theoretical", .audience = kHuman})
      .column(rate("fp64_max", "fp64 best", "fp64.max"))
      .column(rate("fp64_median", "median", "fp64.median"))
      .column({.key = "fp64_min", .audience = kMachine, .json_path = "fp64.min"})
      .column({.key = "fp64_of_theoretical", .title = "of theoretical", .audience = kHuman})
      .column({.key = "fraction_fp32", .audience = kMachine})
      .column({.key = "fraction_fp64", .audience = kMachine})
      .column({.key = "flag", .audience = kMachine});
  for (const auto& p : r.peaks)
    t.add({static_cast<int64_t>(p.threads), p.clock_mhz, p.fp32.max, p.fp32.median, p.fp32.min,
           percent_of(p.fp32.max, p.theoretical_fp32), p.fp64.max, p.fp64.median, p.fp64.min,
           percent_of(p.fp64.max, p.theoretical_fp64), p.fp32.max / p.theoretical_fp32, p.fp64.max / p.theoretical_fp64,
           flag(p)});
}

void add_bandwidth(Document& doc, const hw::ert::ErtResult& r) {
  json bandwidth = json::object();
  for (const auto& [level, bw] : r.level_bandwidth) bandwidth[level] = bw;
  doc.field("bandwidth", "", "", bandwidth, kJson);
  doc.field("bandwidth_by_kernel", "", "", r.level_kernel_bandwidth, kJson);
  auto& t = doc.table(
      "bandwidth_levels",
      fmt::format("bandwidth at {} thread(s), best point of each level (bytes as STREAM counts them):", r.threads),
      Table::Layout::kRows, kHuman);
  t.column({.key = "level"});
  for (const char* kernel : {"read", "write", "copy", "triad"})
    t.column({.key = kernel, .style = Style::kSi, .unit = "B/s"});
  for (const char* level : {"l1", "l2", "l3", "dram"}) {
    auto it = r.level_kernel_bandwidth.find(level);
    if (it == r.level_kernel_bandwidth.end()) continue;
    std::vector<Value> row{std::string(level)};
    for (const char* k : {"read", "write", "copy", "triad"})
      row.push_back(it->second.count(k) ? Value{it->second.at(k)} : Value{});
    t.add(std::move(row));
  }
}

void add_intensity_and_gemm(Document& doc, const hw::ert::ErtResult& r) {
  auto& t = doc.table("ert_sweep", fmt::format("ERT sweep (FLOP/s against FLOPs per byte, {} thread(s)):", r.threads),
                      Table::Layout::kRows, kHuman);
  t.column({.key = "array in"})
      .column({.key = "FLOP/B", .style = Style::kFixed, .decimals = 2})
      .column({.key = "FLOP/s", .style = Style::kSi, .unit = "FLOP/s"});
  for (const auto& p : r.intensity) t.add({p.level, p.intensity, p.flops.max});
  doc.field("gemm_flops", "", "", {{"fp32", r.gemm_fp32.max}}, kJson);
  doc.field("gemm_n", "", "", r.gemm_n, kJson);
  doc.field("gemm_kernel", "", "", r.gemm_kernel, kJson);
  json by_kernel = json::object();
  std::string others;
  for (const auto& [kernel, stats] : r.gemm_by_kernel) {
    by_kernel[kernel] = stats.max;
    if (kernel != r.gemm_kernel) others += fmt::format("; {} {}", kernel, si(stats.max, "FLOP/s"));
  }
  doc.field("gemm_flops_by_kernel", "", "", by_kernel, kJson);
  doc.field("gemm", fmt::format("GEMM fp32 ({}, n = {})", r.gemm_kernel, r.gemm_n),
            fmt::format("{} (median {}){}", si(r.gemm_fp32.max, "FLOP/s"), si(r.gemm_fp32.median, "FLOP/s"), others),
            {}, kHuman)
      .at_end = true;
  doc.field("seconds", "", fmt::format("ran in {:.1f} s", r.seconds), r.seconds).at_end = true;
}

}  // namespace

Document ert_document(const hw::ert::ErtResult& r) {
  Document doc;
  doc.command = "ert";
  doc.subject = r.cpu.model;
  add_header(doc, r);
  add_peaks(doc, r);
  add_bandwidth(doc, r);
  add_intensity_and_gemm(doc, r);
  auto points = ert_points_table(r);
  points.audience = kCsv;
  doc.tables.push_back(std::move(points));
  doc.csv_table = "points";
  return doc;
}

Table ert_points_table(const hw::ert::ErtResult& r) {
  Table t;
  t.key = "points";
  for (const char* key :
       {"kind", "kernel", "threads", "bytes_per_thread", "level", "intensity", "min", "median", "max"})
    t.column({.key = key});
  for (const auto& p : r.peaks)
    for (const auto& [kernel, s] : {std::pair{"fp32", &p.fp32}, std::pair{"fp64", &p.fp64}})
      t.add({std::string("fma"), std::string(kernel), static_cast<int64_t>(p.threads), Value{}, Value{}, Value{},
             s->min, s->median, s->max});
  for (const auto& p : r.bandwidth)
    t.add({std::string("bandwidth"), p.kernel, static_cast<int64_t>(p.threads), p.bytes_per_thread, p.level, Value{},
           p.rate.min, p.rate.median, p.rate.max});
  for (const auto& p : r.intensity)
    t.add({std::string("ert"), fmt::format("fma{}", p.fmas), static_cast<int64_t>(r.threads), Value{}, p.level,
           p.intensity, p.flops.min, p.flops.median, p.flops.max});
  return t;
}

}  // namespace ridge::report
