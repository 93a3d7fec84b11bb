#include "profile/ncu_metrics.h"

namespace ridge::profile {
namespace {

// FLOPs per instruction: an add or a multiply is 1 per thread, a fused multiply-add 2 (the NERSC
// scripts weigh dfma/ffma/hfma by 2). Tensor-core instructions are warp-level and their FLOPs depend
// on the architecture and the instruction shape (NERSC: 512 per instruction on V100).
constexpr NcuMetric kMetrics[] = {
    {"gpu__time_duration.sum", "kernel duration on the GPU (ns): the time of every roofline point"},
    {"sm__cycles_elapsed.avg", "SM clock cycles elapsed while the kernel ran, averaged over SMs (cycle)"},
    {"sm__cycles_elapsed.avg.per_second",
     "SM clock rate while the kernel ran (Hz): the clock the compute ceilings are scaled to"},
    {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "FP64 add instructions, per thread (1 FLOP each)"},
    {"sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "FP64 multiply instructions, per thread (1 FLOP each)"},
    {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
     "FP64 fused multiply-add instructions, per thread (2 FLOPs each)"},
    {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "FP32 add instructions, per thread (1 FLOP each)"},
    {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "FP32 multiply instructions, per thread (1 FLOP each)"},
    {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
     "FP32 fused multiply-add instructions, per thread (2 FLOPs each)"},
    {"sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "FP16 add instructions, per thread (1 FLOP each)"},
    {"sm__sass_thread_inst_executed_op_hmul_pred_on.sum", "FP16 multiply instructions, per thread (1 FLOP each)"},
    {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
     "FP16 fused multiply-add instructions, per thread (2 FLOPs each)"},
    {"sm__inst_executed_pipe_tensor.sum",
     "warp instructions issued to the tensor-core pipe (inst); FLOPs per instruction depend on the "
     "architecture and shape (512 on V100)"},
    {"l1tex__t_bytes.sum", "bytes requested from the L1/texture cache (byte): the L1 level of the roofline"},
    {"lts__t_bytes.sum", "bytes requested from the L2 cache slices (byte): the L2 level of the roofline"},
    {"dram__bytes.sum", "bytes read from and written to device memory (byte): the DRAM/HBM level of the roofline"},
};

}  // namespace

std::span<const NcuMetric> ncu_roofline_metrics() { return kMetrics; }

std::string ncu_roofline_metric_list() {
  std::string list;
  for (const auto& metric : kMetrics) list += (list.empty() ? "" : ",") + std::string(metric.name);
  return list;
}

const NcuMetric* find_ncu_roofline_metric(std::string_view name) {
  for (const auto& metric : kMetrics)
    if (name == metric.name) return &metric;
  return nullptr;
}

}  // namespace ridge::profile
