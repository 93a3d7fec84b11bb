#include "exec/test_data.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/wire_format_lite.h>

#include <filesystem>
#include <fstream>

#include "onnx/model_reader.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::exec {

namespace fs = std::filesystem;

HostTensor read_tensor_file(const std::string& path) {
  auto ref = onnx::load_tensor_file(path);
  HostTensor tensor;
  tensor.name = ref->name;
  tensor.dtype = ref->dtype;
  tensor.dims = ref->dims;
  tensor.bytes = onnx::read_tensor_bytes(*ref, fs::path(path).parent_path().string());
  return tensor;
}

std::vector<HostTensor> read_tensor_dir(const std::string& directory, const std::string& prefix) {
  if (!fs::is_directory(directory)) throw Error(fmt::format("'{}' is not a directory", directory));
  std::vector<HostTensor> tensors;
  for (int i = 0;; ++i) {
    auto path = fs::path(directory) / fmt::format("{}_{}.pb", prefix, i);
    if (!fs::exists(path)) break;
    tensors.push_back(read_tensor_file(path.string()));
  }
  if (tensors.empty()) throw Error(fmt::format("'{}' holds no {}_0.pb", directory, prefix));
  return tensors;
}

// A TensorProto with dims, data_type, name and raw_data, written with protobuf's wire format
// directly: ridge reads ONNX files without generated classes and needs none to write one message.
void write_tensor_file(const std::string& path, const HostTensor& tensor) {
  using google::protobuf::internal::WireFormatLite;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw Error(fmt::format("cannot write '{}'", path));
  {
    google::protobuf::io::OstreamOutputStream stream(&file);
    google::protobuf::io::CodedOutputStream out(&stream);
    for (auto d : tensor.dims) WireFormatLite::WriteInt64(1, d, &out);
    WireFormatLite::WriteInt32(2, static_cast<int32_t>(tensor.dtype), &out);
    if (!tensor.name.empty()) WireFormatLite::WriteString(8, tensor.name, &out);
    WireFormatLite::WriteTag(9, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, &out);
    out.WriteVarint32(static_cast<uint32_t>(tensor.bytes.size()));
    out.WriteRaw(tensor.bytes.data(), static_cast<int>(tensor.bytes.size()));
  }
  if (!file.flush()) throw Error(fmt::format("cannot write '{}'", path));
}

void write_tensor_dir(const std::string& directory, const std::string& prefix, const std::vector<HostTensor>& tensors) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", directory, ec.message()));
  for (size_t i = 0; i < tensors.size(); ++i)
    write_tensor_file((fs::path(directory) / fmt::format("{}_{}.pb", prefix, i)).string(), tensors[i]);
}

}  // namespace ridge::exec
