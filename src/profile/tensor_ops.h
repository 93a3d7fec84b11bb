#pragma once
// Tensor-core work from Nsight Compute's ops counters (sm__ops_path_tensor_*): the math operations the tensor
// path executed, per source precision, whatever the instruction (mma.sync's HMMA/IMMA, Hopper's wgmma
// HGMMA/IGMMA) and its shape, so they are FLOPs exactly (a 4096^3 fp16 product reads 2 x 4096^3). The
// counters nest: a total per source precision, per instruction, per destination, per 2:4 sparsity; an
// export may hold any of them, and each operation is counted once, from the coarsest counters present.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/metric_value.h"

namespace ridge::profile {

// One ops counter, read from its name: sm__ops_path_tensor[_op_INSTR]_src_SRC[_dst_DST][_sparsity_{off,on}][.sum].
// An empty field is the total over it.
struct TensorOpsCounter {
  std::string instruction;  // hmma, hgmma, imma, igmma, bmma, bgmma, dmma; empty: every instruction
  std::string source;       // fp16, bf16, tf32, fp8, fp64, int8, int4, int1
  std::string destination;  // fp16, fp32; empty: every destination
  std::string sparsity;     // off, on; empty: both
};
std::optional<TensorOpsCounter> parse_tensor_ops_counter(std::string_view name);

// The key a source precision's operations are counted under, as the device files name its ceiling
// ("fp16" -> "fp16_tensor"); 2:4-sparse operations, where the counters tell them apart, "fp16_tensor_sparse".
std::string tensor_ops_key(const std::string& source, bool sparse = false);

struct TensorWork {
  bool has_counters = false;             // the launch holds at least one ops counter with a value
  std::map<std::string, double> ops;     // by tensor_ops_key; a source with no counter in the export is absent
  std::vector<std::string> not_counted;  // one line per source precision counted in part or not at all
};

// The tensor work of one launch (its metrics as the export holds them) on compute capability `cc`. Where
// ridge knows the CC's counters (9.0), a source precision is complete only when its counters cover every
// instruction, destination and sparsity of it; elsewhere only a total counter is known to be complete.
TensorWork tensor_work(const std::map<std::string, MetricValue>& metrics, const std::string& cc);

}  // namespace ridge::profile
