#pragma once
// An ONNX sequence inside the CPU interpreter. Its values, a subgraph's inputs and outputs and a Loop's carried state
// are at::Tensor slots; a sequence travels in one as an opaque tensor whose handle holds the list of its tensors by
// reference (ATen's own opaque tensors, as its MKL-DNN tensors are, so that the interpreter, the release plan and the
// control kernels carry it unchanged). It has no storage: an ATen op given one fails (no kernel for its dispatch key)
// instead of reading it as data; the sequence kernels and the control flow are what take it.
#include <ATen/ATen.h>

#include <memory>
#include <vector>

namespace ridge::exec::aten {

using TensorList = std::vector<at::Tensor>;

// A sequence of `elements`, each a tensor of `element_type` (its type also when it is empty).
at::Tensor make_sequence(TensorList elements, at::ScalarType element_type);
bool is_sequence(const at::Tensor& value);
// The tensors of a sequence; throws ridge::Error where `value` is a tensor.
const TensorList& sequence_elements(const at::Tensor& value);

}  // namespace ridge::exec::aten
