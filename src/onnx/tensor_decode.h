#pragma once
// Turns a tensor's stored bytes into values, for the small tensors that shape inference needs.
#include <memory>
#include <string>
#include <vector>

#include "graph/tensor.h"

namespace ridge::onnx {

// Builds values from TensorProto's typed repeated fields (float_data, int32_data, ...).
std::shared_ptr<graph::ConstantData> constant_from_typed_fields(const graph::TensorRef& tensor,
                                                                std::vector<int64_t> ints, std::vector<double> reals);

// Decodes a tensor's values if it has at most `max_elements` elements. Returns null when the
// tensor is larger, or its external file is absent (analysis must not need it then).
// Throws ridge::Error when the stored bytes disagree with the declared size.
std::shared_ptr<graph::ConstantData> decode_constant(const graph::TensorRef& tensor, const std::string& model_directory,
                                                     int64_t max_elements);

// Values of `header`'s dtype and dims from bytes in the little-endian layout; null for types whose
// values are not decoded (strings, complex, 8- and 4-bit floats). Throws on a size mismatch.
std::shared_ptr<graph::ConstantData> decode_values(const graph::TensorRef& header, const std::vector<uint8_t>& bytes);

// A tensor's bytes in its dtype's little-endian layout, whatever way the file stores them
// (raw data, external file, typed fields). Throws ridge::Error when they are missing or short.
std::vector<uint8_t> read_tensor_bytes(const graph::TensorRef& tensor, const std::string& model_directory);

float half_to_float(uint16_t bits);
uint16_t float_to_half(float value);
uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(uint16_t bits);

}  // namespace ridge::onnx
