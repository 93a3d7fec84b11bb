#pragma once
// Read-only memory map of a file: the loader walks the protobuf bytes in place, so weights
// stored inside a model are never copied and their pages are never touched.
#include <cstdint>
#include <memory>
#include <string>

namespace ridge::onnx {

class MappedFile {
 public:
  // Throws ridge::Error naming the path when the file cannot be opened or mapped.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace ridge::onnx
