#pragma once
// The Nsight Compute metrics of the hierarchical roofline (NERSC's method; Yang, Kurth, Williams,
// "Hierarchical Roofline analysis for GPUs", 2020): kernel time and SM clock, floating-point
// instructions per precision and kind, tensor-core instructions, and bytes at L1, L2 and DRAM.
// `ridge ncu command|run` asks ncu for exactly these; `ridge import ncu` reads them back.
#include <span>
#include <string>
#include <string_view>

namespace ridge::profile {

struct NcuMetric {
  const char* name;     // as ncu names it ("dram__bytes.sum")
  const char* meaning;  // what it counts, with its unit and how the roofline uses it
};

// The table, in the order ncu is asked for it: time and clock, FP64, FP32, FP16, tensor pipe, bytes.
std::span<const NcuMetric> ncu_roofline_metrics();
// The names, comma-joined, as `ncu --metrics` takes them.
std::string ncu_roofline_metric_list();
// The row of `name`; nullptr when it is not in the table.
const NcuMetric* find_ncu_roofline_metric(std::string_view name);

}  // namespace ridge::profile
