#pragma once
// One profiled kernel's roofline figures from its ncu counters, by the hierarchical-roofline method
// (Yang, Kurth and Williams, NERSC): time, FLOPs per precision (an FMA is 2 FLOPs), bytes at L1,
// L2 and DRAM. A figure whose counters the export lacks is empty and named, never zero.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "profile/ncu_export.h"

namespace ridge::profile {

struct KernelFigures {
  std::string name;  // the kernel as ncu printed it
  int64_t id = -1;
  std::string process_id, device, cc, block, grid, nvtx;
  std::vector<std::string> nvtx_ranges;  // outermost first
  int64_t invocations = 1;               // > 1: a summary row; every figure below is the average of one launch
  bool failed = false;                   // ncu could not profile it (every metric "nan")
  std::optional<double> time_s;
  std::string time_source;  // the counters the time comes from
  std::optional<double> sm_clock_hz;
  // Counted precisions, by the keys of flops_keys(): fp64, fp32, fp16 (CUDA cores), SRC_tensor and SRC_tensor_sparse
  // (tensor-core operations by source precision, from the ops counters), tensor (Volta's instruction estimate).
  std::map<std::string, double> flops_by_precision;
  std::vector<std::string> not_counted;  // "fp16: no ... counters", one line per precision
  std::vector<std::string> notes;        // how a figure was counted, where it is not plain (one line each)
  // Counters the figures would use that hold no usable value ("dram__bytes.sum: negative (-512)", an unknown
  // unit, "inf"): left out, so the figures they feed are empty, never computed from them.
  std::vector<std::string> bad_values;
  std::optional<double> l1_bytes, l2_bytes, dram_bytes;
  std::string line;  // where it is in the file ("file.csv:12")

  // The FLOPs of every counted precision; empty when no precision could be counted.
  std::optional<double> flops() const;
};

// The figures of one launch (or summary row) of an export.
KernelFigures kernel_figures(const NcuLaunch& launch, const std::string& path);

// Every key of KernelFigures::flops_by_precision, in the order outputs list them.
std::span<const char* const> flops_keys();

// FLOPs per tensor-pipe warp instruction (sm__inst_executed_pipe_tensor) on compute capability `cc`,
// where one instruction shape fixes it: 512 on Volta (7.0, 7.2: HMMA.884), the factor of ncu's own
// tensor roofline section. Later architectures issue several shapes, so the count alone cannot say.
std::optional<double> tensor_flops_per_instruction(const std::string& cc);

}  // namespace ridge::profile
