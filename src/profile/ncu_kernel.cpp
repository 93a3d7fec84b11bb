#include "profile/ncu_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "profile/tensor_ops.h"

namespace ridge::profile {
namespace {

std::optional<double> metric(const NcuLaunch& launch, const std::string& name) {
  auto it = launch.metrics.find(name);
  if (it == launch.metrics.end() || !it->second.value || !it->second.unit_known) return std::nullopt;
  return it->second.value;
}

// The first of `names` the launch has; sm__ and smsp__ forms of a .sum counter are the same total.
std::optional<double> first_of(const NcuLaunch& launch, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto v = metric(launch, name)) return v;
  return std::nullopt;
}

std::optional<double> sum_of(const NcuLaunch& launch, const char* a, const char* b) {
  auto x = metric(launch, a), y = metric(launch, b);
  if (x && y) return *x + *y;
  return std::nullopt;
}

struct PrecisionCounters {
  const char* key;     // fp64, fp32, fp16
  const char* letter;  // d, f, h: the instruction prefix in ncu's counter names
};
constexpr PrecisionCounters kPrecisions[] = {{"fp64", "d"}, {"fp32", "f"}, {"fp16", "h"}};

std::optional<double> instruction_count(const NcuLaunch& launch, const std::string& op) {
  return first_of(launch, {("sm__sass_thread_inst_executed_op_" + op + "_pred_on.sum").c_str(),
                           ("smsp__sass_thread_inst_executed_op_" + op + "_pred_on.sum").c_str()});
}

// HFMA2.MMA: a half-precision FMA that sm_90 compilers issue to the tensor pipe inside fp32 code (register
// moves and zeroing). ncu's fp16 FMA counter counts each as up to 32 thread instructions (one per active
// thread), and the tensor-pipe counter as one warp instruction; it is neither fp16 nor tensor-core work.
struct Hfma2Mma {
  double fp16_fmas = 0;            // thread FMA instructions that are HFMA2.MMA: not fp16 work
  double tensor_instructions = 0;  // tensor-pipe warp instructions that are HFMA2.MMA: not tensor work
  bool tensor_explained = true;    // every other tensor-pipe instruction is real tensor-core work
  std::string note;                // how they were told apart, where no counter says so
};
Hfma2Mma hfma2_mma(const NcuLaunch& launch) {
  auto hfma = instruction_count(launch, "hfma");
  if (auto counted = metric(launch, "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"))
    return {std::min(hfma.value_or(0), 32 * *counted), *counted, true, ""};
  // Without their counter: a kernel whose fp16 FMAs are exactly 32x its tensor pipe's (HMMA) instructions runs
  // HFMA2.MMA alone there (a real fp16 or tensor-core kernel does not meet the pattern: HMMA issues no FMA
  // thread instructions); fewer than 32x, with no other fp16 instruction, are HFMA2.MMA in part-active warps.
  auto pipe = first_of(launch, {"sm__inst_executed_pipe_tensor_op_hmma.sum", "sm__inst_executed_pipe_tensor.sum",
                                "smsp__inst_executed_pipe_tensor.sum"});
  if (!hfma || !pipe || *pipe <= 0 || *hfma <= 0) return {};
  if (*hfma == 32 * *pipe)
    return {*hfma, *pipe, true,
            "fp16: FMAs exactly 32x the tensor-pipe instructions are HFMA2.MMA (sm_90 compilers emit them in fp32 "
            "code), neither fp16 nor tensor work: not counted (sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum "
            "counts them)"};
  auto hadd = instruction_count(launch, "hadd"), hmul = instruction_count(launch, "hmul");
  if (*hfma < 32 * *pipe && hadd && hmul && *hadd == 0 && *hmul == 0)
    return {*hfma, std::ceil(*hfma / 32), false,
            "fp16: FMAs fewer than 32x the tensor-pipe instructions, in kernels with no other fp16 instruction, are "
            "HFMA2.MMA of part-active warps: not counted as fp16 work "
            "(sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum counts them)"};
  return {};
}

void count_flops(const NcuLaunch& launch, KernelFigures& k) {
  auto phantom = hfma2_mma(launch);
  for (const auto& p : kPrecisions) {
    std::string add = std::string(p.letter) + "add", mul = std::string(p.letter) + "mul",
                fma = std::string(p.letter) + "fma";
    auto a = instruction_count(launch, add), m = instruction_count(launch, mul), f = instruction_count(launch, fma);
    if (a && m && f) {
      double fmas = *f;
      if (std::string(p.key) == "fp16" && phantom.fp16_fmas > 0) {
        fmas = std::max(0.0, fmas - phantom.fp16_fmas);
        if (!phantom.note.empty()) k.notes.push_back(phantom.note);
      }
      k.flops_by_precision[p.key] = *a + *m + 2 * fmas;  // thread instructions; an FMA is 2 FLOPs
      continue;
    }
    std::vector<std::string> missing;
    if (!a) missing.push_back(add);
    if (!m) missing.push_back(mul);
    if (!f) missing.push_back(fma);
    k.not_counted.push_back(fmt::format("{}: no {} counter{} (sm__sass_thread_inst_executed_op_*_pred_on.sum)", p.key,
                                        fmt::join(missing, "/"), missing.size() > 1 ? "s" : ""));
  }
  // Tensor cores: the ops counters count their operations exactly, wherever the export has them.
  auto work = tensor_work(launch.metrics, k.cc);
  if (work.has_counters) {
    for (const auto& [key, ops] : work.ops) k.flops_by_precision[key] = ops;
    k.not_counted.insert(k.not_counted.end(), work.not_counted.begin(), work.not_counted.end());
    return;
  }
  // Otherwise only instruction counts, whose FLOPs are fixed on Volta alone.
  auto tensor = first_of(launch, {"sm__inst_executed_pipe_tensor.sum", "smsp__inst_executed_pipe_tensor.sum"});
  if (!tensor) {
    k.not_counted.push_back("tensor: no tensor ops counters (sm__ops_path_tensor_*) or tensor-pipe counter");
    return;
  }
  double instructions = std::max(0.0, *tensor - phantom.tensor_instructions);
  if (!phantom.tensor_explained) {
    k.not_counted.push_back(
        "tensor: tensor-pipe instructions that may be HFMA2.MMA or tensor-core work, without ops counters "
        "(sm__ops_path_tensor_*) to tell (ridge ncu run asks for them)");
  } else if (instructions == 0) {
    k.flops_by_precision["tensor"] = 0;  // no tensor-core instruction: zero on any architecture
  } else if (auto factor = tensor_flops_per_instruction(k.cc)) {
    k.flops_by_precision["tensor"] = instructions * *factor;
    k.notes.push_back(fmt::format(
        "tensor: tensor-pipe instructions x {:.0f} (Volta's HMMA.884), as the export has no ops counters", *factor));
  } else {
    k.not_counted.push_back(
        fmt::format("tensor: tensor-pipe instructions without ops counters (sm__ops_path_tensor_*), and their FLOPs "
                    "per instruction are not fixed on CC {} (ridge ncu run asks for the ops counters)",
                    k.cc.empty() ? "(not exported)" : k.cc));
  }
}

// The counters kernel figures are computed from: a value among them that cannot be used is named.
bool feeds_figures(const std::string& name) {
  static constexpr const char* kPrefixes[] = {"sm__sass_thread_inst_executed_op_",
                                              "smsp__sass_thread_inst_executed_op_",
                                              "sm__ops_path_tensor",
                                              "sm__inst_executed_pipe_tensor",
                                              "smsp__inst_executed_pipe_tensor",
                                              "gpu__time_duration",
                                              "sm__cycles_elapsed",
                                              "l1tex__t_bytes",
                                              "lts__t_bytes",
                                              "dram__bytes"};
  if (name == "Duration" || name == "SM Frequency") return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](const char* prefix) { return name.rfind(prefix, 0) == 0; });
}

// What is wrong with a counter's value, or "" when it can be used.
std::string bad_value(const MetricValue& m) {
  if (m.infinite) return "infinite";
  if (!m.unit_known) return fmt::format("unit '{}' unknown", m.base_unit);
  if (m.value && *m.value < 0) return fmt::format("negative ({})", *m.value);
  return "";
}

}  // namespace

std::optional<double> tensor_flops_per_instruction(const std::string& cc) {
  if (cc == "7.0" || cc == "7.2") return 512.0;
  return std::nullopt;
}

std::span<const char* const> flops_keys() {
  static constexpr const char* kKeys[] = {"fp64",
                                          "fp32",
                                          "fp16",
                                          "fp64_tensor",
                                          "tf32_tensor",
                                          "fp16_tensor",
                                          "bf16_tensor",
                                          "fp8_tensor",
                                          "int8_tensor",
                                          "tf32_tensor_sparse",
                                          "fp16_tensor_sparse",
                                          "bf16_tensor_sparse",
                                          "fp8_tensor_sparse",
                                          "int8_tensor_sparse",
                                          "tensor"};
  return kKeys;
}

std::optional<double> KernelFigures::flops() const {
  if (flops_by_precision.empty()) return std::nullopt;
  double total = 0;
  for (const auto& [precision, value] : flops_by_precision) total += value;
  return total;
}

KernelFigures kernel_figures(const NcuLaunch& exported, const std::string& path) {
  // Unusable counters are taken out before any figure is computed from them, and named.
  std::vector<std::string> bad;
  for (const auto& [name, m] : exported.metrics)
    if (feeds_figures(name))
      if (auto why = bad_value(m); !why.empty()) bad.push_back(name + ": " + why);
  NcuLaunch cleaned;
  if (!bad.empty()) {
    cleaned = exported;
    for (const auto& line : bad) cleaned.metrics.erase(line.substr(0, line.find(": ")));
  }
  const NcuLaunch& launch = bad.empty() ? exported : cleaned;
  KernelFigures k;
  k.name = launch.kernel;
  k.id = launch.id;
  k.process_id = launch.process_id;
  k.device = launch.device;
  k.cc = launch.cc;
  k.block = launch.block;
  k.grid = launch.grid;
  k.nvtx = launch.nvtx;
  k.nvtx_ranges = launch.nvtx_ranges;
  k.invocations = launch.invocations;
  k.failed = launch.failed();
  k.line = fmt::format("{}:{}", path, launch.line);
  k.bad_values = std::move(bad);
  if (k.failed) return k;

  k.sm_clock_hz = first_of(launch, {"sm__cycles_elapsed.avg.per_second", "SM Frequency"});
  if (auto t = first_of(launch, {"gpu__time_duration.sum", "gpu__time_duration", "Duration"})) {
    k.time_s = t;
    k.time_source = metric(launch, "gpu__time_duration.sum") ? "gpu__time_duration.sum" : "Duration";
  } else if (auto cycles = metric(launch, "sm__cycles_elapsed.avg"); cycles && k.sm_clock_hz && *k.sm_clock_hz > 0) {
    k.time_s = *cycles / *k.sm_clock_hz;  // the NERSC method's time: elapsed cycles at the measured clock
    k.time_source = "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second";
  }
  count_flops(launch, k);
  k.l1_bytes = metric(launch, "l1tex__t_bytes.sum");
  k.l2_bytes = metric(launch, "lts__t_bytes.sum");
  k.dram_bytes = metric(launch, "dram__bytes.sum");
  if (!k.dram_bytes) k.dram_bytes = sum_of(launch, "dram__bytes_read.sum", "dram__bytes_write.sum");
  if (!k.dram_bytes) k.dram_bytes = sum_of(launch, "dram__bytes_op_read.sum", "dram__bytes_op_write.sum");
  return k;
}

}  // namespace ridge::profile
