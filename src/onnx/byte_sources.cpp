#include "onnx/byte_sources.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace ridge::onnx {

FileBytes::FileBytes(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    throw Error("'" + path + "' is not a regular file");
  }
  size_ = info.st_size;
}

FileBytes::~FileBytes() {
  if (fd_ >= 0) ::close(fd_);
}

bool FileBytes::read(int64_t offset, int64_t size, uint8_t* out) const {
  if (offset < 0 || size < 0 || offset > size_ || size > size_ - offset) return false;
  while (size > 0) {
    ssize_t got = ::pread(fd_, out, static_cast<size_t>(size), offset);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      return false;
    }
    out += got;
    offset += got;
    size -= got;
  }
  return true;
}

bool MemoryBytes::read(int64_t offset, int64_t size, uint8_t* out) const {
  if (offset < 0 || size < 0 || offset > size_ || size > size_ - offset) return false;
  if (size > 0) std::memcpy(out, data_ + offset, static_cast<size_t>(size));
  return true;
}

}  // namespace ridge::onnx
