// The NVIDIA stack, each library loaded with dlopen and asked its version: the driver (libcuda), the
// runtime, cuDNN, cuBLAS, NVML, and the GPUs the driver sees. ridge builds and runs without any.
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

#include "doctor/checks.h"
#include "doctor/library.h"
#include "sys/cuda_module.h"
#include "util/error.h"

namespace ridge::doctor {
namespace {

constexpr const char* kDriverFix =
    "install the NVIDIA driver (Debian: sudo apt install nvidia-driver, from non-free; or NVIDIA's packages); in a "
    "container, start it with the NVIDIA Container Toolkit (docker run --gpus all)";
constexpr const char* kGpuFix =
    "no NVIDIA GPU visible: check nvidia-smi; in a container pass one (docker run --gpus all); on a cluster "
    "request one (sbatch --gres=gpu:1)";
constexpr const char* kLoaderNote =
    "; not on the loader's path: add its directory to /etc/ld.so.conf.d (then sudo ldconfig) or LD_LIBRARY_PATH";

// CUDA's version numbers: 1000 x major + 10 x minor.
std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

struct Toolkit {
  Library library;
  bool on_loader_path = true;
};

// By soname first (what the loader finds), then in the toolkit's usual directories.
Toolkit open_toolkit_library(const std::vector<std::string>& sonames) {
  Toolkit t;
  t.library = open_library(sonames);
  if (t.library) return t;
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(env)) {
      dirs.push_back(std::string(root) + "/lib64");
      dirs.push_back(std::string(root) + "/lib");
    }
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("/usr/local/cuda/lib");
  std::vector<std::string> paths;
  for (const auto& dir : dirs)
    for (const auto& soname : sonames) paths.push_back(dir + "/" + soname);
  auto error = t.library.error;  // the soname's message says the most
  t.library = open_library(paths);
  t.on_loader_path = false;
  if (!t.library) t.library.error = error;
  return t;
}

std::string located(const Toolkit& t) {
  return (t.library.path.empty() ? "" : " (" + t.library.path + ")") + std::string(t.on_loader_path ? "" : kLoaderNote);
}

struct Driver {
  Check check;
  int version = 0;           // the CUDA version the driver supports; 0 when it did not load
  bool initialized = false;  // cuInit succeeded (a GPU is there)
  Library library;
};

Driver driver_check() {
  Driver d;
  d.library = open_library({"libcuda.so.1"});
  if (!d.library) {
    d.check = missing("cuda", "CUDA driver", d.library.error, kDriverFix);
    return d;
  }
  auto get_version = d.library.function<int (*)(int*)>("cuDriverGetVersion");
  auto init = d.library.function<int (*)(unsigned)>("cuInit");
  auto error_name = d.library.function<int (*)(int, const char**)>("cuGetErrorName");
  constexpr int kStubLibrary = 34;  // CUDA_ERROR_STUB_LIBRARY: the toolkit's link-time placeholder
  auto describe = [&](int status) {
    const char* text = nullptr;
    if (error_name) error_name(status, &text);
    if (text) return std::string(text);
    return status == kStubLibrary ? std::string("CUDA_ERROR_STUB_LIBRARY") : std::to_string(status);
  };
  if (!get_version || !init) {
    d.check = missing("cuda", "CUDA driver", d.library.path + " lacks cuDriverGetVersion or cuInit", kDriverFix);
    return d;
  }
  if (int status = get_version(&d.version); status != 0) {
    d.version = 0;
    d.check = missing("cuda", "CUDA driver",
                      fmt::format("{}: cuDriverGetVersion failed: {}", d.library.path, describe(status)),
                      status == kStubLibrary ? fmt::format("the loader found the CUDA toolkit's stub libcuda: take its "
                                                           "directory off LD_LIBRARY_PATH, and {}",
                                                           kDriverFix)
                                             : kDriverFix);
    return d;
  }
  int status = init(0);
  constexpr int kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE: the driver works, there is no GPU
  d.initialized = status == 0;
  if (status == 0 || status == kNoDevice) {
    d.check = ok("cuda", "CUDA driver", fmt::format("CUDA {} ({})", cuda_version(d.version), d.library.path));
    return d;
  }
  d.check = missing("cuda", "CUDA driver",
                    fmt::format("CUDA {}, but cuInit failed: {}", cuda_version(d.version), describe(status)),
                    "check nvidia-smi; after a driver update, reboot (the kernel module and libcuda must match)");
  return d;
}

Check runtime_check(const Driver& driver) {
  constexpr const char* fix =
      "install the CUDA runtime (NVIDIA's cuda-cudart packages of the CUDA toolkit, or Debian's nvidia-cuda-toolkit)";
  auto t = open_toolkit_library({"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"});
  if (!t.library) return missing("cuda", "CUDA runtime", t.library.error, fix);
  auto get_version = t.library.function<int (*)(int*)>("cudaRuntimeGetVersion");
  int version = 0;
  if (!get_version || get_version(&version) != 0)
    return missing("cuda", "CUDA runtime", t.library.path + ": cudaRuntimeGetVersion failed", fix);
  // A runtime of a newer major version than the driver supports cannot start.
  if (driver.version > 0 && driver.version / 1000 < version / 1000)
    return missing("cuda", "CUDA runtime",
                   fmt::format("{}{}, newer than the driver's CUDA {}", cuda_version(version), located(t),
                               cuda_version(driver.version)),
                   fmt::format("update the NVIDIA driver to one supporting CUDA {}", cuda_version(version)));
  return ok("cuda", "CUDA runtime", cuda_version(version) + located(t));
}

Check cudnn_check() {
  constexpr const char* fix =
      "install cuDNN 9 for your CUDA version (NVIDIA's cudnn9-cuda-12 or cudnn9-cuda-13 packages)";
  auto t = open_toolkit_library({"libcudnn.so.9", "libcudnn.so"});
  if (!t.library) return missing("cuda", "cuDNN", t.library.error, fix);
  auto get_version = t.library.function<size_t (*)()>("cudnnGetVersion");
  auto get_cudart = t.library.function<size_t (*)()>("cudnnGetCudartVersion");
  if (!get_version) return missing("cuda", "cuDNN", t.library.path + " has no cudnnGetVersion", fix);
  // cuDNN 9: 10000 x major + 100 x minor + patch; cuDNN 8 and older: 1000 x major + 100 x minor + patch.
  size_t v = get_version();
  std::string version = v >= 90000 ? fmt::format("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100)
                                   : fmt::format("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100);
  std::string built = get_cudart ? fmt::format(", for CUDA {}", cuda_version(static_cast<int>(get_cudart()))) : "";
  if (v < 90000) return missing("cuda", "cuDNN", fmt::format("{}{}: ridge needs cuDNN 9", version, located(t)), fix);
  return ok("cuda", "cuDNN", version + built + located(t));
}

Check cublas_check() {
  constexpr const char* fix = "install cuBLAS (part of the CUDA toolkit: NVIDIA's libcublas packages)";
  auto t = open_toolkit_library({"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"});
  if (!t.library) return missing("cuda", "cuBLAS", t.library.error, fix);
  auto get_property = t.library.function<int (*)(int, int*)>("cublasGetProperty");
  int part[3] = {0, 0, 0};  // libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  for (int i = 0; i < 3; ++i)
    if (!get_property || get_property(i, &part[i]) != 0)
      return missing("cuda", "cuBLAS", t.library.path + ": cublasGetProperty failed", fix);
  return ok("cuda", "cuBLAS", fmt::format("{}.{}.{}{}", part[0], part[1], part[2], located(t)));
}

struct Nvml {
  Check check;
  bool initialized = false;
  std::vector<std::string> gpus;
};

Nvml nvml_check() {
  constexpr const char* fix =
      "NVML comes with the NVIDIA driver (libnvidia-ml.so.1): install the driver; Jetson boards have none (power "
      "comes from tegrastats there)";
  Nvml n;
  auto library = open_library({"libnvidia-ml.so.1"});
  if (!library) {
    n.check = missing("cuda", "NVML", library.error, fix);
    return n;
  }
  auto init = library.function<int (*)()>("nvmlInit_v2");
  auto error_string = library.function<const char* (*)(int)>("nvmlErrorString");
  auto driver_version = library.function<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
  auto count = library.function<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  auto handle = library.function<int (*)(unsigned, void**)>("nvmlDeviceGetHandleByIndex_v2");
  auto device_name = library.function<int (*)(void*, char*, unsigned)>("nvmlDeviceGetName");
  auto shutdown = library.function<int (*)()>("nvmlShutdown");
  if (!init || !count || !handle || !device_name) {
    n.check = missing("cuda", "NVML", library.path + " lacks nvmlInit_v2 or the device queries", fix);
    return n;
  }
  if (int status = init(); status != 0) {
    auto why = fmt::format("nvmlInit failed: {}", error_string ? error_string(status) : std::to_string(status));
    n.check = missing("cuda", "NVML", why + " (" + library.path + ")",
                      "check nvidia-smi; the NVIDIA kernel module must be loaded and match the driver library");
    return n;
  }
  n.initialized = true;
  char version[96] = {};
  if (driver_version) driver_version(version, sizeof version);
  n.check = ok("cuda", "NVML", fmt::format("driver {} ({})", version[0] ? version : "?", library.path));
  unsigned devices = 0;
  if (count(&devices) != 0) devices = 0;
  for (unsigned i = 0; i < devices; ++i) {
    void* device = nullptr;
    char text[96] = {};
    if (handle(i, &device) == 0 && device_name(device, text, sizeof text) == 0)
      n.gpus.emplace_back(text);
    else
      n.gpus.push_back(fmt::format("GPU {} (name unreadable)", i));
  }
  if (shutdown) shutdown();
  return n;
}

// Without NVML (Jetson), the driver lists its devices.
std::vector<std::string> driver_gpus(const Driver& driver) {
  std::vector<std::string> gpus;
  if (!driver.initialized) return gpus;
  auto count = driver.library.function<int (*)(int*)>("cuDeviceGetCount");
  auto get = driver.library.function<int (*)(int*, int)>("cuDeviceGet");
  auto name = driver.library.function<int (*)(char*, int, int)>("cuDeviceGetName");
  int devices = 0;
  if (!count || !get || !name || count(&devices) != 0) return gpus;
  for (int i = 0; i < devices; ++i) {
    int device = 0;
    char text[96] = {};
    if (get(&device, i) == 0 && name(text, sizeof text, device) == 0) gpus.emplace_back(text);
  }
  return gpus;
}

Check gpu_check(const Driver& driver, const Nvml& nvml) {
  auto gpus = nvml.initialized ? nvml.gpus : driver_gpus(driver);
  if (gpus.empty()) {
    std::string why = nvml.initialized    ? "none: NVML lists no device"
                      : driver.check.ok() ? "none: the CUDA driver reports no device"
                                          : "none: neither the CUDA driver nor NVML works";
    return missing("cuda", "GPUs", why, kGpuFix);
  }
  std::string list;
  for (size_t i = 0; i < gpus.size(); ++i) list += fmt::format("{}{}: {}", i ? "; " : "", i, gpus[i]);
  return ok("cuda", "GPUs", fmt::format("{} ({})", gpus.size(), list));
}

// The GPU executor ridge has: its cuDNN/cuBLAS module (built where the toolkit was found at configure time).
// Whole-model ATen runs on the GPU would need a CUDA-enabled libtorch, which Debian does not ship.
Check module_check() {
  constexpr const char* fix =
      "install the CUDA toolkit (nvcc, cuDNN 9, cuBLAS; /usr/local/cuda or CUDACXX) and rebuild ridge "
      "(scripts/build.sh): the module is built whenever the toolkit is found";
  if (!sys::cuda_module_built())
    return missing("cuda", "GPU module", "this ridge was built without the CUDA toolkit", fix);
  try {
    void* symbol = sys::cuda_module_symbol("ridge_cuda_engine");
    Dl_info info{};
    std::string where = ::dladdr(symbol, &info) && info.dli_fname ? std::string(" (") + info.dli_fname + ")" : "";
    return ok("cuda", "GPU module",
              "loads" + where +
                  ": cuDNN convolutions, cuBLAS products, CUDA events, CUDA graphs (ATen's CUDA path "
                  "is not built: Debian's libtorch is CPU-only)");
  } catch (const Error& e) {
    return missing("cuda", "GPU module", e.what(),
                   "the module's libraries (libcudart, libcudnn, libcublas) must be on the loader's path");
  }
}

}  // namespace

std::vector<Check> cuda_checks() {
  auto driver = driver_check();
  auto nvml = nvml_check();
  return {driver.check, runtime_check(driver),   cudnn_check(), cublas_check(),
          nvml.check,   gpu_check(driver, nvml), module_check()};
}

}  // namespace ridge::doctor
