#include "exec/cuda/storage_plan.h"

#include <fmt/format.h>

namespace ridge::exec::cuda {

using graph::DType;

graph::DType activation_storage(const ExecOptions& options, bool training) {
  if (training || options.mode != Mode::kOptimized) return DType::kFloat32;
  if (options.precision == Precision::kFp16) return DType::kFloat16;
  if (options.precision == Precision::kBf16) return DType::kBFloat16;
  return DType::kFloat32;
}

graph::DType input_type(const KernelRow& row, size_t i, graph::DType declared, graph::DType storage) {
  if (declared != DType::kFloat32) return declared;
  bool takes = i < 32 && (row.storage & storage_input(static_cast<int>(i))) != 0;
  return takes ? storage : DType::kFloat32;
}

int64_t StoragePlan::per_run() const {
  int64_t n = output_conversions;
  for (const auto& c : conversions) n += !c.constant;
  return n;
}

std::string StoragePlan::summary() const {
  if (storage == DType::kFloat32) return "";
  int64_t to_16 = 0, to_32 = 0, constants = 0;
  for (const auto& c : conversions) {
    if (c.constant) {
      ++constants;
      continue;
    }
    (c.to == storage ? to_16 : to_32) += 1;
  }
  auto line = fmt::format(
      "activations kept in {} between ops: {} conversion(s) per run ({} to {}, {} to fp32, {} output(s) back to fp32), "
      "{} constant(s) converted once",
      graph::dtype_name(storage), per_run(), to_16, graph::dtype_name(storage), to_32, output_conversions, constants);
  if (!fp32_kernels.empty()) {
    std::string list;
    for (const auto& [op, count] : fp32_kernels) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", op, count);
    line += "; kernels without a 16-bit form read fp32: " + list;
  }
  return line;
}

StoragePlan plan_storage(const graph::Graph& g, const std::vector<const KernelRow*>& kernels, graph::DType storage) {
  StoragePlan plan;
  plan.storage = storage;
  plan.value_types.reserve(g.values.size());
  for (const auto& v : g.values) plan.value_types.push_back(v.dtype);
  if (storage == DType::kFloat32) return plan;
  // A value no executed node computes is held as declared: an input, a weight, a folded constant.
  auto computed = [&](graph::ValueId id) {
    auto producer = g.value(id).producer;
    return producer >= 0 && kernels.at(static_cast<size_t>(producer)) != nullptr;
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto* row = kernels.at(n);
    if (!row) continue;
    const auto& node = g.nodes[n];
    bool fp32_read = false;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      auto id = node.inputs[i];
      if (id == graph::kNoValue) continue;
      const auto& v = g.value(id);
      auto want = input_type(*row, i, v.dtype, storage);
      auto& held = plan.value_types[static_cast<size_t>(id)];
      if (held == want) continue;
      const bool runtime_input = v.is_graph_input && !v.initializer;
      const bool constant = !runtime_input && !computed(id) && (v.initializer || v.constant);
      plan.conversions.push_back({n, i, want, constant});
      fp32_read = fp32_read || want == DType::kFloat32;
    }
    if (fp32_read) ++plan.fp32_kernels[node.op_type];
    for (auto id : node.outputs) {
      if (id == graph::kNoValue || g.value(id).dtype != DType::kFloat32) continue;
      plan.value_types[static_cast<size_t>(id)] = row->storage != kNoStorage ? storage : DType::kFloat32;
    }
  }
  for (auto id : g.outputs) plan.output_conversions += plan.value_types[static_cast<size_t>(id)] != g.value(id).dtype;
  return plan;
}

}  // namespace ridge::exec::cuda
