// Linux RAPL energy counters (Intel, and AMD since Zen): CPU package energy for `power` measurements.
#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "doctor/checks.h"

namespace ridge::doctor {

std::vector<Check> rapl_checks() {
  const std::string zone = "/sys/class/powercap/intel-rapl:0";
  const std::string counter = zone + "/energy_uj";
  if (::access(counter.c_str(), F_OK) != 0)
    return {not_applicable("power", "RAPL",
                           fmt::format("no {} (no RAPL powercap zone: not exposed by this CPU, kernel or virtual "
                                       "machine)",
                                       counter))};
  int fd = ::open(counter.c_str(), O_RDONLY);
  if (fd < 0) {
    int err = errno;
    return {missing("power", "RAPL", fmt::format("{}: {}", counter, std::strerror(err)),
                    err == EACCES ? fmt::format("sudo chmod o+r {} (root-only since Linux 5.10; until the next "
                                                "boot, a udev rule or tmpfiles.d entry keeps it)",
                                                counter)
                                  : "check the intel_rapl_common kernel module")};
  }
  char text[64] = {};
  ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0)
    return {missing("power", "RAPL", fmt::format("{}: cannot be read", counter),
                    fmt::format("sudo chmod o+r {}", counter))};
  std::string name;
  std::ifstream(zone + "/name") >> name;
  return {ok("power", "RAPL", fmt::format("{} readable ({})", counter, name.empty() ? "package" : name))};
}

}  // namespace ridge::doctor
