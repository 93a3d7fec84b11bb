#pragma once
// Tensors in the ONNX test-data layout: a directory of input_N.pb / output_N.pb files, each one
// serialized TensorProto (as in the ONNX backend tests).
#include <string>
#include <vector>

#include "exec/host_tensor.h"

namespace ridge::exec {

HostTensor read_tensor_file(const std::string& path);
// Reads `<prefix>_0.pb`, `<prefix>_1.pb`, ... until the first missing index. Throws ridge::Error
// when the directory does not exist or holds no `<prefix>_0.pb`.
std::vector<HostTensor> read_tensor_dir(const std::string& directory, const std::string& prefix);
void write_tensor_file(const std::string& path, const HostTensor& tensor);
// Writes `<prefix>_N.pb` for each tensor, creating the directory.
void write_tensor_dir(const std::string& directory, const std::string& prefix, const std::vector<HostTensor>& tensors);

}  // namespace ridge::exec
