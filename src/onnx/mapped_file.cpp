#include "onnx/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace ridge::onnx {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw Error("'" + path + "' is not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->size_ = info.st_size;
  if (info.st_size > 0) {
    void* addr = ::mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      throw Error("cannot map '" + path + "': " + std::strerror(err));
    }
    file->data_ = static_cast<const uint8_t*>(addr);
  }
  ::close(fd);
  return file;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
}

}  // namespace ridge::onnx
