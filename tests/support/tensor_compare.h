#pragma once
// Expected tensors read with ONNX's own generated protobuf classes (independent of ridge's
// reader), and the comparison of the executor's outputs against them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/host_tensor.h"

namespace ridge::test {

struct Expected {
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

// Null for files that are not a TensorProto or hold types not compared (strings, complex, ...).
std::optional<Expected> read_expected(const std::string& path);
std::vector<double> host_values(const exec::HostTensor& tensor);
// An fp32 input tensor, and an fp32 output's values.
exec::HostTensor float_tensor(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values);
exec::HostTensor int64_tensor(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values);
std::vector<float> floats(const exec::HostTensor& tensor);
// An int64 tensor's values (axes, repeats, shapes).
std::vector<int64_t> int64s(const exec::HostTensor& tensor);
// Empty when `got` has the expected shape, type and values (|a - b| <= atol + rtol |b|, NaN equal
// to NaN), else what differs first.
std::string compare_tensor(const exec::HostTensor& got, const Expected& want, double rtol, double atol);
// Empty when every output matches `directory`/output_N.pb, else the first difference ("output 1 ...").
std::string compare_outputs(const std::vector<exec::HostTensor>& outputs, const std::string& directory, double rtol,
                            double atol);

}  // namespace ridge::test
