#pragma once
// ByteSource implementations: an open file (read with pread) and bytes already in memory.
#include <memory>
#include <string>

#include "graph/byte_source.h"

namespace ridge::onnx {

class FileBytes : public graph::ByteSource {
 public:
  // Throws ridge::Error naming the path when it cannot be opened or is not a regular file.
  explicit FileBytes(const std::string& path);
  ~FileBytes() override;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  bool read(int64_t offset, int64_t size, uint8_t* out) const override;
  int fd() const { return fd_; }
  int64_t size() const { return size_; }

 private:
  int fd_ = -1;
  int64_t size_ = 0;
};

// Non-owning view of bytes that outlive the model (tests, the fuzzer).
class MemoryBytes : public graph::ByteSource {
 public:
  MemoryBytes(const uint8_t* data, int64_t size) : data_(data), size_(size) {}
  bool read(int64_t offset, int64_t size, uint8_t* out) const override;

 private:
  const uint8_t* data_;
  int64_t size_;
};

}  // namespace ridge::onnx
