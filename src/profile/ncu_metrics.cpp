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

// Hopper (sm_90), from `ncu --query-metrics` on an H200 (../shared/data/gpu-h200/ncu/query-metrics-h200.txt.gz).
// The ops counters count tensor-core math operations (a multiply-add is 2), so they are FLOPs exactly whatever
// the instruction (mma.sync or wgmma) and its shape.
constexpr NcuMetric kSm90[] = {
    {"sm__ops_path_tensor_src_fp16.sum", "tensor-core operations with fp16 sources, every instruction (FLOP)"},
    {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "tensor-core operations with bf16 sources (FLOP)"},
    {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", "tensor-core operations with tf32 sources (FLOP)"},
    {"sm__ops_path_tensor_src_fp8.sum", "tensor-core operations with fp8 sources (FLOP)"},
    {"sm__ops_path_tensor_src_int8.sum", "tensor-core operations with int8 sources (integer operations)"},
    {"sm__ops_path_tensor_src_fp64.sum", "tensor-core operations with fp64 sources (FLOP)"},
    {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_on.sum",
     "2:4-sparse fp16 mma.sync operations, fp16 accumulator: the sparse part of the fp16 total"},
    {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_on.sum",
     "2:4-sparse fp16 mma.sync operations, fp32 accumulator"},
    {"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_on.sum", "2:4-sparse fp16 wgmma operations"},
    {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_on.sum", "2:4-sparse bf16 mma.sync operations"},
    {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_on.sum", "2:4-sparse bf16 wgmma operations"},
    {"sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_on.sum", "2:4-sparse tf32 mma.sync operations"},
    {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_on.sum", "2:4-sparse tf32 wgmma operations"},
    {"sm__ops_path_tensor_src_fp8_sparsity_on.sum", "2:4-sparse fp8 operations"},
    {"sm__ops_path_tensor_op_imma_src_int8_sparsity_on.sum", "2:4-sparse int8 mma.sync operations"},
    {"sm__ops_path_tensor_op_igmma_src_int8_sparsity_on.sum", "2:4-sparse int8 wgmma operations"},
    {"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum",
     "HFMA2.MMA warp instructions (inst): fp16 FMAs the compiler issues to the tensor pipe in fp32 code, counted "
     "32x by the fp16 FMA counter; subtracted from it, as they are neither fp16 nor tensor-core work"},
};

struct CcMetrics {
  const char* cc;
  std::span<const NcuMetric> metrics;
};
constexpr CcMetrics kCcMetrics[] = {{"9.0", kSm90}};

}  // namespace

std::span<const NcuMetric> ncu_roofline_metrics() { return kMetrics; }

std::span<const NcuMetric> ncu_cc_metrics(const std::string& cc) {
  for (const auto& table : kCcMetrics)
    if (cc == table.cc) return table.metrics;
  return {};
}

std::vector<std::string> ncu_cc_tables() {
  std::vector<std::string> ccs;
  for (const auto& table : kCcMetrics) ccs.emplace_back(table.cc);
  return ccs;
}

std::string ncu_roofline_metric_list(const std::string& cc) {
  std::string list;
  for (const auto& metric : kMetrics) list += (list.empty() ? "" : ",") + std::string(metric.name);
  for (const auto& metric : ncu_cc_metrics(cc)) list += "," + std::string(metric.name);
  return list;
}

const NcuMetric* find_ncu_roofline_metric(std::string_view name) {
  for (const auto& metric : kMetrics)
    if (name == metric.name) return &metric;
  for (const auto& table : kCcMetrics)
    for (const auto& metric : table.metrics)
      if (name == metric.name) return &metric;
  return nullptr;
}

}  // namespace ridge::profile
