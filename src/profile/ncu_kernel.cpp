#include "profile/ncu_kernel.h"

#include <fmt/format.h>

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

void count_flops(const NcuLaunch& launch, KernelFigures& k) {
  for (const auto& p : kPrecisions) {
    std::string add = std::string(p.letter) + "add", mul = std::string(p.letter) + "mul",
                fma = std::string(p.letter) + "fma";
    auto a = instruction_count(launch, add), m = instruction_count(launch, mul), f = instruction_count(launch, fma);
    if (a && m && f) {
      k.flops_by_precision[p.key] = *a + *m + 2 * *f;  // thread instructions; an FMA is 2 FLOPs
      continue;
    }
    std::vector<std::string> missing;
    if (!a) missing.push_back(add);
    if (!m) missing.push_back(mul);
    if (!f) missing.push_back(fma);
    k.not_counted.push_back(fmt::format("{}: no {} counter{} (sm__sass_thread_inst_executed_op_*_pred_on.sum)", p.key,
                                        fmt::join(missing, "/"), missing.size() > 1 ? "s" : ""));
  }
  auto tensor = first_of(launch, {"sm__inst_executed_pipe_tensor.sum", "smsp__inst_executed_pipe_tensor.sum"});
  if (!tensor) {
    k.not_counted.push_back("tensor: no tensor-pipe counter (sm__inst_executed_pipe_tensor.sum)");
  } else if (*tensor == 0) {
    k.flops_by_precision["tensor"] = 0;  // no tensor instruction: zero on any architecture
  } else if (auto factor = tensor_flops_per_instruction(k.cc)) {
    k.flops_by_precision["tensor"] = *tensor * *factor;
  } else {
    k.not_counted.push_back(
        fmt::format("tensor: {:.0f} tensor-pipe instructions, but their FLOPs per instruction are not fixed on CC {}",
                    *tensor, k.cc.empty() ? "(not exported)" : k.cc));
  }
}

}  // namespace

std::optional<double> tensor_flops_per_instruction(const std::string& cc) {
  if (cc == "7.0" || cc == "7.2") return 512.0;
  return std::nullopt;
}

std::optional<double> KernelFigures::flops() const {
  if (flops_by_precision.empty()) return std::nullopt;
  double total = 0;
  for (const auto& [precision, value] : flops_by_precision) total += value;
  return total;
}

KernelFigures kernel_figures(const NcuLaunch& launch, const std::string& path) {
  KernelFigures k;
  k.name = launch.kernel;
  k.id = launch.id;
  k.process_id = launch.process_id;
  k.device = launch.device;
  k.cc = launch.cc;
  k.block = launch.block;
  k.grid = launch.grid;
  k.nvtx = launch.nvtx;
  k.invocations = launch.invocations;
  k.failed = launch.failed();
  k.line = fmt::format("{}:{}", path, launch.line);
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
