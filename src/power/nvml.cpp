#include "power/nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <vector>

#include "util/error.h"

namespace ridge::power {
namespace {

template <typename F>
void bind(void* handle, const char* name, F& target, bool required) {
  target = reinterpret_cast<F>(dlsym(handle, name));
  if (!target && required)
    throw Error(fmt::format("nvml: libnvidia-ml.so.1 has no {} (a driver too old for ridge)", name));
}

class NvmlSampler : public Sampler {
 public:
  NvmlSampler(const NvmlApi& api, int index) : api_(api) {
    check(api_.init(), "nvmlInit_v2");
    initialized_ = true;
    unsigned count = 0;
    check(api_.device_count(&count), "nvmlDeviceGetCount_v2");
    if (count == 0) throw Error("nvml: the driver sees no NVIDIA GPU");
    if (index >= static_cast<int>(count))
      throw Error(fmt::format("nvml:{}: there are {} GPU(s), indices 0 to {}", index, count, count - 1));
    for (unsigned i = 0; i < count; ++i) {
      if (index >= 0 && static_cast<int>(i) != index) continue;
      NvmlApi::Device device = nullptr;
      check(api_.handle_by_index(i, &device), "nvmlDeviceGetHandleByIndex_v2");
      devices_.push_back(device);
      names_.push_back(fmt::format("gpu{}", i));
    }
    // The energy counter (mJ since the driver loaded) is exact where the power reading is a
    // ~0.5 s average on many GPUs; older GPUs answer NOT_SUPPORTED.
    counters_ = api_.total_energy_mj != nullptr;
    for (auto device : devices_) {
      unsigned long long mj = 0;
      if (counters_ && api_.total_energy_mj(device, &mj) != kNvmlSuccess) counters_ = false;
    }
  }
  ~NvmlSampler() override {
    if (initialized_ && api_.shutdown) api_.shutdown();
  }
  std::vector<std::string> rails() const override { return names_; }
  std::vector<double> counter_range_j() const override {
    return counters_ ? std::vector<double>(devices_.size(), 0.0) : std::vector<double>{};
  }
  double default_interval_s() const override { return 0.1; }
  Reading read() override {
    Reading r;
    for (auto device : devices_) {
      unsigned mw = 0;
      check(api_.power_usage_mw(device, &mw), "nvmlDeviceGetPowerUsage");
      r.power_w.push_back(mw / 1e3);
      if (counters_) {
        unsigned long long mj = 0;
        check(api_.total_energy_mj(device, &mj), "nvmlDeviceGetTotalEnergyConsumption");
        r.energy_j.push_back(static_cast<double>(mj) / 1e3);
      }
    }
    return r;
  }

 private:
  void check(int rc, const char* what) const {
    if (rc == kNvmlSuccess) return;
    const char* why = api_.error_string ? api_.error_string(rc) : nullptr;
    throw Error(fmt::format("nvml: {} failed: {} (code {})", what, why ? why : "unknown error", rc));
  }

  NvmlApi api_;
  bool initialized_ = false;
  bool counters_ = false;
  std::vector<NvmlApi::Device> devices_;
  std::vector<std::string> names_;
};

}  // namespace

NvmlApi load_nvml(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw Error(
        fmt::format("nvml: NVIDIA's driver library {} was not found (no NVIDIA driver on this machine)", library));
  // Kept open for the process: NVML's own threads may outlive a sampler.
  NvmlApi api;
  bind(handle, "nvmlInit_v2", api.init, true);
  bind(handle, "nvmlShutdown", api.shutdown, true);
  bind(handle, "nvmlDeviceGetCount_v2", api.device_count, true);
  bind(handle, "nvmlDeviceGetHandleByIndex_v2", api.handle_by_index, true);
  bind(handle, "nvmlDeviceGetPowerUsage", api.power_usage_mw, true);
  bind(handle, "nvmlDeviceGetTotalEnergyConsumption", api.total_energy_mj, false);
  bind(handle, "nvmlDeviceGetClockInfo", api.clock_mhz, false);
  bind(handle, "nvmlDeviceGetTemperature", api.temperature_c, false);
  bind(handle, "nvmlErrorString", api.error_string, false);
  return api;
}

std::unique_ptr<Sampler> nvml_sampler(const NvmlApi& api, int index) {
  return std::make_unique<NvmlSampler>(api, index);
}

}  // namespace ridge::power
