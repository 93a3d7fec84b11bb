#include "power/sysfs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "util/error.h"

namespace ridge::power {

std::string sysfs_root() {
  const char* root = std::getenv("RIDGE_SYSFS_ROOT");
  return root && *root ? root : "/sys";
}

std::optional<std::string> read_sysfs_line(const std::string& path, int& error) {
  // POSIX reads: sysfs files are read in one go, and the errno says why one could not be.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return std::nullopt;
  }
  char buffer[256];
  ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  error = n < 0 ? errno : 0;
  close(fd);
  if (n < 0) return std::nullopt;
  std::string text(buffer, static_cast<size_t>(n));
  auto end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  return text;
}

double read_sysfs_number(const std::string& path) {
  int error = 0;
  auto text = read_sysfs_line(path, error);
  if (!text) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(error)));
  double value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || text->empty()) throw Error(fmt::format("{}: '{}' is not a number", path, *text));
  return value;
}

std::vector<std::string> sysfs_entries(const std::string& directory, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ridge::power
