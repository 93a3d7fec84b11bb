#include "sys/cuda/gpus.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <string>

#include "util/error.h"

namespace ridge::sys::cuda {

int require_gpus() {
  int count = 0;
  auto status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    // The runtime says "insufficient driver" when there is no driver at all: say which it is.
    std::string why = fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
    if (status == cudaErrorInsufficientDriver) {
      if (void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
        ::dlclose(driver);
      else
        why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
    }
    throw Error(fmt::format(
        "--device cuda: no usable GPU: {}; `ridge doctor --for bench-cuda` checks the driver and the devices", why));
  }
  if (count == 0) throw Error("--device cuda: the CUDA runtime sees no GPU; `ridge doctor --for bench-cuda`");
  return count;
}

}  // namespace ridge::sys::cuda
