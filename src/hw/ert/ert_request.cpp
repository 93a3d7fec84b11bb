#include "hw/ert/ert_request.h"

#include <algorithm>

#include "util/error.h"

namespace ridge::hw::ert {

Measurement measure(const ErtRequest& r, const std::function<void(const std::string&)>& progress) {
  if (r.device == "cuda") {
    if (r.threads > 0) throw Error("--threads sets the CPU's thread counts: it has no meaning with --device cuda");
    return run_gpu_ert({.device = std::max(r.gpu, 0), .quick = r.quick, .progress = progress});
  }
  if (r.gpu >= 0) throw Error("--gpu picks a GPU: it needs --device cuda");
  return run_ert({.quick = r.quick, .max_threads = r.threads, .progress = progress});
}

std::string device_yaml(const Measurement& measurement) {
  if (const auto* cpu = std::get_if<ErtResult>(&measurement)) return ert_device_yaml(*cpu);
  return gpu_ert_device_yaml(std::get<GpuErtResult>(measurement));
}

}  // namespace ridge::hw::ert
