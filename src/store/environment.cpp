#include "store/environment.h"

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sys/host_cpu.h"
#include "util/build_info.h"
#include "util/timestamp.h"

namespace ridge::store {
namespace {

// The driver lists each GPU under /proc/driver/nvidia/gpus/<bus id>/information ("Model: ...");
// reading it costs nothing, unlike loading NVML.
std::string nvidia_gpus() {
  std::string gpus;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    std::ifstream in(entry.path() / "information");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Model:", 0) == 0) {
        auto model = line.substr(line.find_first_not_of(" \t", 6));
        gpus += (gpus.empty() ? "" : ", ") + model;
      }
  }
  return gpus;
}

}  // namespace

Environment collect_environment(const std::string& command_line) {
  // The machine does not change while ridge runs (a sweep stores many results).
  static const auto machine = [] {
    Environment e;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) e.host = host;
    e.cpu = sys::detect_host_cpu().model;
    e.gpu = nvidia_gpus();
    e.versions["ridge"] = kVersion;
    e.versions["sqlite"] = sqlite3_libversion();
    e.revision = kRevision;
    return e;
  }();
  auto e = machine;
  e.command_line = command_line;
  e.created_at = utc_now();
  return e;
}

}  // namespace ridge::store
