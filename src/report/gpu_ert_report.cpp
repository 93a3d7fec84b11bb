#include "report/gpu_ert_report.h"

#include <fmt/format.h>

#include <cmath>

#include "report/format.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;
namespace ert = hw::ert;

// A figure that is 0 when unknown (no theoretical peak, no measured clock) is no value at all.
Value known(double v) { return v > 0 ? Value{v} : Value{}; }

Value fraction(double measured, double theoretical) {
  return theoretical > 0 ? Value{measured / theoretical} : Value{};
}

std::string percent_of(double measured, double theoretical) {
  if (theoretical <= 0) return "-";
  auto text = fixed(100 * measured / theoretical, 1) + "%";
  return ert::above_theoretical(measured, theoretical) ? text + " (" + ert::kAboveTheoreticalFlag + ")" : text;
}

std::string flag(double measured, double theoretical) {
  return ert::above_theoretical(measured, theoretical) ? ert::kAboveTheoreticalFlag : "";
}

Column rate(std::string key, std::string title, const char* unit) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kSi, .unit = unit};
}

bool measured(const ert::GpuPeak& p) { return p.skipped.empty() && p.rate.samples > 0; }

void add_header(Document& doc, const ert::GpuErtResult& r) {
  add_ridge_version(doc);
  const auto& g = r.gpu;
  std::string memory = g.memory_bus_bits > 0 && g.memory_clock_mhz > 0
                           ? fmt::format(", {}-bit memory bus at {:.0f} MHz", g.memory_bus_bits, g.memory_clock_mhz)
                           : "";
  doc.field(
      "gpu", "",
      fmt::format("{} (GPU {}): sm_{}{}, {} SMs at up to {:.0f} MHz, {}, {} L2{}; {}", g.name, g.index, g.cc_major,
                  g.cc_minor, g.sms, g.clock_mhz, si_bytes(g.memory_bytes), si_bytes(g.l2_bytes), memory, g.versions),
      {{"index", g.index},
       {"name", g.name},
       {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
       {"sms", g.sms},
       {"clock_mhz", g.clock_mhz},
       {"memory_clock_mhz", g.memory_clock_mhz},
       {"memory_bus_bits", g.memory_bus_bits},
       {"memory_bytes", g.memory_bytes},
       {"free_bytes", g.free_bytes},
       {"l2_bytes", g.l2_bytes},
       {"shared_per_sm_bytes", g.shared_per_sm_bytes},
       {"max_threads_per_sm", g.max_threads_per_sm},
       {"integrated", g.integrated},
       {"versions", g.versions}});
  doc.field("repetitions", "", "", r.repetitions, kJson);
  doc.field("quick", "", "", r.quick, kJson);
  // The figures under ridge's ceiling keys: a vector unit's precision, a tensor unit's <precision>_tensor.
  json peaks = json::object(), theoretical = json::object();
  for (const auto& p : r.fma) {
    if (measured(p)) peaks[p.precision] = p.rate.max;
    if (p.theoretical > 0) theoretical[p.precision] = p.theoretical;
  }
  for (const auto& p : r.tensor) {
    if (measured(p)) peaks[p.precision + "_tensor"] = p.rate.max;
    if (p.theoretical > 0) theoretical[p.precision + "_tensor"] = p.theoretical;
  }
  doc.field("peak_flops", "", "", peaks, kJson);
  doc.field("theoretical_flops", "", "", theoretical, kJson);
  json bandwidth = json::object(), theoretical_bandwidth = json::object();
  for (const auto& [level, b] : ert::best_level_bandwidth(r)) {
    bandwidth[level] = b.rate;
    if (b.theoretical > 0) theoretical_bandwidth[level] = b.theoretical;
  }
  doc.field("bandwidth", "", "", bandwidth, kJson);
  doc.field("theoretical_bandwidth", "", "", theoretical_bandwidth, kJson);
}

// The measured rate's columns both peak tables share: best, median, min, theoretical and how they compare.
Table& add_rate_columns(Table& t) {
  return t.column(rate("best_flop_per_s", "best", "FLOP/s"))
      .column(rate("median_flop_per_s", "median", "FLOP/s"))
      .column({.key = "min_flop_per_s", .audience = kMachine})
      .column(rate("theoretical_flop_per_s", "theoretical", "FLOP/s"))
      .column({.key = "of_theoretical", .title = "of theoretical", .audience = kHuman})
      .column({.key = "fraction_of_theoretical", .audience = kMachine})
      .column({.key = "flag", .audience = kMachine});
}

void add_fma(Document& doc, const ert::GpuErtResult& r) {
  auto& t = doc.table("fma", "FMA peaks (CUDA cores; clock measured during each kernel):");
  t.column({.key = "precision"})
      .column({.key = "clock_mhz", .title = "clock", .style = Style::kFixed, .unit = "MHz", .decimals = 0});
  add_rate_columns(t).column({.key = "method", .audience = kMachine});
  for (const auto& p : r.fma)
    t.add({p.precision, known(p.clock_mhz), p.rate.max, p.rate.median, p.rate.min, known(p.theoretical),
           percent_of(p.rate.max, p.theoretical), fraction(p.rate.max, p.theoretical), flag(p.rate.max, p.theoretical),
           p.method});
}

void add_tensor(Document& doc, const ert::GpuErtResult& r) {
  auto& t = doc.table("tensor", "tensor cores (cuBLASLt matmul, M = N = K = n; FLOPs = 2 n^3):");
  t.column({.key = "precision"}).column({.key = "n"});
  add_rate_columns(t)
      .column({.key = "skipped", .title = "note", .left_aligned = true})
      .column({.key = "method", .audience = kMachine});
  for (const auto& p : r.tensor) {
    if (!measured(p)) {
      t.add({p.precision, static_cast<int64_t>(p.n), Value{}, Value{}, Value{}, known(p.theoretical), std::string("-"),
             Value{}, std::string(""), "skipped: " + p.skipped, p.method});
      continue;
    }
    t.add({p.precision, static_cast<int64_t>(p.n), p.rate.max, p.rate.median, p.rate.min, known(p.theoretical),
           percent_of(p.rate.max, p.theoretical), fraction(p.rate.max, p.theoretical), flag(p.rate.max, p.theoretical),
           Value{}, p.method});
  }
}

void add_bandwidth(Document& doc, const ert::GpuErtResult& r) {
  auto& t =
      doc.table("bandwidth_points", "bandwidth (bytes read + written per second; a level's figure is its best point):");
  t.column({.key = "level"})
      .column({.key = "kernel"})
      .column({.key = "working_set_bytes", .title = "working set", .style = Style::kBytes})
      .column(rate("best_bytes_per_s", "best", "B/s"))
      .column(rate("median_bytes_per_s", "median", "B/s"))
      .column({.key = "min_bytes_per_s", .audience = kMachine})
      .column(rate("theoretical_bytes_per_s", "theoretical", "B/s"))
      .column({.key = "of_theoretical", .title = "of theoretical", .audience = kHuman})
      .column({.key = "fraction_of_theoretical", .audience = kMachine})
      .column({.key = "flag", .audience = kMachine});
  for (const auto& p : r.bandwidth)
    t.add({p.level, p.kernel, p.bytes, p.rate.max, p.rate.median, p.rate.min, known(p.theoretical),
           percent_of(p.rate.max, p.theoretical), fraction(p.rate.max, p.theoretical),
           flag(p.rate.max, p.theoretical)});
  t.footer.push_back(
      "l1: every block re-reads 16 KiB through L1 (l1-read) or from shared memory (shared-read); l2: device arrays "
      "of 1/8 to 1/2 of L2; dram: at least 8 x L2");
}

void add_notes(Document& doc, const ert::GpuErtResult& r) {
  const auto& g = r.gpu;
  if (!ert::sm_rates(g.cc_major, g.cc_minor))
    doc.notes.push_back(fmt::format(
        "compute capability {}.{} is not in ridge's table of per-SM rates (src/hw/ert/gpu_ert.h): no theoretical "
        "peaks are shown",
        g.cc_major, g.cc_minor));
  bool consumer_tensor =
      (g.cc_major == 7 && g.cc_minor == 5) || (g.cc_major == 8 && (g.cc_minor == 6 || g.cc_minor == 9));
  if (consumer_tensor)
    doc.notes.push_back(
        "tensor theoretical peaks are the full rate of the data-centre and professional parts; GeForce boards run "
        "FP32 accumulation at half of it");
  for (const auto& p : r.tensor)
    if (p.precision == "int8" && measured(p))
      doc.notes.push_back("int8 tensor figures count integer operations (OP/s) in the FLOP/s columns");
  // Measured on an H100 (bench/results/gpu-h100-2026-11-26-kernels): every form of the half2 FMA chain runs at
  // 64 HFMA2 per clock per SM, and the SASS of every form has plain HFMA2 in its loop, HFMA2.MMA only for constants.
  for (const auto& p : r.fma)
    if (p.precision == "fp16" && g.cc_major == 9 && measured(p) && p.theoretical > 0 &&
        std::abs(p.rate.max / p.theoretical - 0.5) < 0.05)
      doc.notes.push_back(
          "fp16 FMA: half of the theoretical FP16 (non-tensor) rate, as on every Hopper measured: the compiler issues "
          "__hfma2 as HFMA2 on the FMA pipe at half the fp32 instruction rate (fp16 FLOP/s = fp32 FLOP/s); the "
          "datasheet's figure needs the HFMA2.MMA form, which ptxas emits for constants only (bench/gpu_fp16_probe.cu, "
          "docs/gpu-ert.md). The measured figure is what CUDA-core fp16 code reaches");
}

}  // namespace

Document gpu_ert_document(const ert::GpuErtResult& r) {
  Document doc;
  doc.command = "ert";
  doc.subject = r.gpu.name;
  add_header(doc, r);
  add_fma(doc, r);
  add_tensor(doc, r);
  add_bandwidth(doc, r);
  add_notes(doc, r);
  const auto& o = r.launch_overhead_s;
  doc.field("launch_overhead_s", "launch overhead",
            o.samples > 0 ? fmt::format("{} per empty kernel launched back to back (median {})", duration(o.min),
                                        duration(o.median))
                          : "not measured",
            o.samples > 0 ? json(o.min) : json(nullptr))
      .at_end = true;
  doc.field("seconds", "", fmt::format("ran in {:.1f} s", r.seconds), r.seconds).at_end = true;
  auto points = gpu_ert_points_table(r);
  points.audience = kCsv;
  doc.tables.push_back(std::move(points));
  doc.csv_table = "points";
  return doc;
}

Table gpu_ert_points_table(const ert::GpuErtResult& r) {
  Table t;
  t.key = "points";
  for (const char* key : {"kind", "name", "level", "bytes", "n", "unit", "min", "median", "max", "theoretical", "flag"})
    t.column({.key = key});
  for (const auto& p : r.fma)
    t.add({std::string("fma"), p.precision, Value{}, Value{}, Value{}, std::string("FLOP/s"), p.rate.min, p.rate.median,
           p.rate.max, known(p.theoretical), flag(p.rate.max, p.theoretical)});
  for (const auto& p : r.tensor)
    if (measured(p))
      t.add({std::string("tensor"), p.precision, Value{}, Value{}, static_cast<int64_t>(p.n),
             std::string(p.precision == "int8" ? "OP/s" : "FLOP/s"), p.rate.min, p.rate.median, p.rate.max,
             known(p.theoretical), flag(p.rate.max, p.theoretical)});
  for (const auto& p : r.bandwidth)
    t.add({std::string("bandwidth"), p.kernel, p.level, p.bytes, Value{}, std::string("B/s"), p.rate.min, p.rate.median,
           p.rate.max, known(p.theoretical), flag(p.rate.max, p.theoretical)});
  if (r.launch_overhead_s.samples > 0)
    t.add({std::string("launch"), std::string("empty-kernel"), Value{}, Value{}, Value{}, std::string("s"),
           r.launch_overhead_s.min, r.launch_overhead_s.median, r.launch_overhead_s.max, Value{}, std::string("")});
  return t;
}

}  // namespace ridge::report
