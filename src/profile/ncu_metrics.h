#pragma once
// The Nsight Compute metrics of the hierarchical roofline (NERSC's method; Yang, Kurth, Williams,
// "Hierarchical Roofline analysis for GPUs", 2020): kernel time and SM clock, floating-point
// instructions per precision and kind, tensor-core instructions, and bytes at L1, L2 and DRAM.
// `ridge ncu command|run` asks ncu for exactly these; `ridge import ncu` reads them back.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::profile {

struct NcuMetric {
  const char* name;     // as ncu names it ("dram__bytes.sum")
  const char* meaning;  // what it counts, with its unit and how the roofline uses it
};

// The table every GPU is asked for, in this order: time and clock, FP64, FP32, FP16, tensor pipe, bytes.
std::span<const NcuMetric> ncu_roofline_metrics();
// What compute capability `cc` ("9.0") is asked for beyond that: the tensor-core ops counters per source
// precision and their 2:4-sparse parts (profile/tensor_ops.h), and the HFMA2.MMA instructions that the fp16 FMA
// counter counts. Empty for a CC without a table: the counters' names differ per architecture.
std::span<const NcuMetric> ncu_cc_metrics(const std::string& cc);
// The compute capabilities with a table ("9.0").
std::vector<std::string> ncu_cc_tables();
// The names for `cc` (the table and the CC's own rows), comma-joined, as `ncu --metrics` takes them.
std::string ncu_roofline_metric_list(const std::string& cc = "");
// The row of `name` in the table or any CC's rows; nullptr when it is in none.
const NcuMetric* find_ncu_roofline_metric(std::string_view name);

}  // namespace ridge::profile
