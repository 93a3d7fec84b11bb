#include "exec/aten/kernels/kernel.h"

#include <fmt/format.h>

#include "exec/aten/interpreter.h"
#include "exec/aten/tensors.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::exec::aten {

using graph::DType;

const at::Tensor& KernelContext::in(size_t i) const {
  if (!has(i)) fail(fmt::format("input {} is missing", i));
  return inputs[i];
}

std::vector<int64_t> KernelContext::ints(size_t i) const { return to_vector(in(i)); }

bool KernelContext::is_constant(size_t i) const {
  if (i >= node.inputs.size() || node.inputs[i] == graph::kNoValue) return false;
  auto id = node.inputs[i];
  if (graph.value(id).initializer) return true;
  auto& constants = interpreter.constants(graph);
  return static_cast<size_t>(id) < constants.size() && constants[static_cast<size_t>(id)].defined();
}

graph::DType KernelContext::output_dtype(size_t i) const {
  if (i >= node.outputs.size() || node.outputs[i] == graph::kNoValue) return DType::kUndefined;
  return graph.value(node.outputs[i]).dtype;
}

void KernelContext::set(size_t i, at::Tensor value) {
  if (i >= outputs.size()) return;  // an output the model does not name
  outputs[i] = std::move(value);
}

at::Tensor KernelContext::attribute_tensor(std::string_view name) const {
  const auto* attr = node.attribute(name);
  if (!attr || !attr->tensor) return {};
  // Decoded once per attribute: Constant nodes run every time, their values never change.
  return interpreter.cached(attr, Interpreter::Derived::kAttributeValue, [&] {
    HostTensor host;
    host.name = attr->tensor->name;
    host.dtype = attr->tensor->dtype;
    host.dims = attr->tensor->dims;
    try {
      host.bytes = onnx::read_tensor_bytes(*attr->tensor, interpreter.model().directory);
    } catch (const Error& e) {
      fail(fmt::format("attribute '{}': {}", name, e.what()));  // the tensor of an attribute often has no name
    }
    return from_host(host);
  });
}

void KernelContext::fail(const std::string& what) const {
  throw Error(fmt::format("node '{}' ({}): {}", node.name, node.op_type, what));
}

int64_t normalize_axis(int64_t axis, int64_t rank, const KernelContext& ctx) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    ctx.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> to_vector(const at::Tensor& t) {
  auto flat = t.to(at::kLong).contiguous().view(-1);
  const int64_t* p = flat.data_ptr<int64_t>();
  return {p, p + flat.numel()};
}

at::ScalarType scalar_type(DType type) {
  switch (type) {
    case DType::kFloat32:
      return at::kFloat;
    case DType::kFloat64:
      return at::kDouble;
    case DType::kFloat16:
      return at::kHalf;
    case DType::kBFloat16:
      return at::kBFloat16;
    case DType::kInt64:
      return at::kLong;
    case DType::kInt32:
      return at::kInt;
    case DType::kInt16:
      return at::kShort;
    case DType::kInt8:
      return at::kChar;
    case DType::kUInt8:
      return at::kByte;
    case DType::kBool:
      return at::kBool;
    case DType::kComplex64:
      return at::kComplexFloat;
    case DType::kComplex128:
      return at::kComplexDouble;
    default:
      throw Error(fmt::format("the executor has no tensors of type {}", graph::dtype_name(type)));
  }
}

DType dtype_of(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return DType::kFloat32;
    case at::kDouble:
      return DType::kFloat64;
    case at::kHalf:
      return DType::kFloat16;
    case at::kBFloat16:
      return DType::kBFloat16;
    case at::kLong:
      return DType::kInt64;
    case at::kInt:
      return DType::kInt32;
    case at::kShort:
      return DType::kInt16;
    case at::kChar:
      return DType::kInt8;
    case at::kByte:
      return DType::kUInt8;
    case at::kBool:
      return DType::kBool;
    case at::kComplexFloat:
      return DType::kComplex64;
    case at::kComplexDouble:
      return DType::kComplex128;
    default:
      return DType::kUndefined;
  }
}

}  // namespace ridge::exec::aten

namespace ridge {

using namespace exec::aten;

template <>
const KernelRegistry& KernelRegistry::instance() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    register_elementwise_kernels(r);
    register_conv_kernels(r);
    register_matmul_kernels(r);
    register_normalization_kernels(r);
    register_pooling_kernels(r);
    register_reduction_kernels(r);
    register_manipulation_kernels(r);
    register_generator_kernels(r);
    register_quantization_kernels(r);
    register_resize_kernels(r);
    register_attention_kernels(r);
    register_detection_kernels(r);
    register_recurrent_kernels(r);
    register_loss_kernels(r);
    register_control_kernels(r);
    register_sequence_kernels(r);
    register_signal_kernels(r);
    return r;
  }();
  return registry;
}

}  // namespace ridge
