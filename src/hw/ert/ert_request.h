#pragma once
// `ridge ert` as one call: the empirical roofline of this machine's CPU, or of a GPU (device "cuda"), with the
// options that belong to the other device refused before anything is measured, and either one as a device file.
#include <functional>
#include <string>
#include <variant>

#include "hw/ert/ert.h"
#include "hw/ert/gpu_ert.h"

namespace ridge::hw::ert {

struct ErtRequest {
  std::string device = "cpu";  // cpu or cuda
  bool quick = false;          // fewer repetitions and sizes
  int threads = 0;             // cpu: the largest thread count; 0: not given (every online CPU)
  int gpu = -1;                // cuda: the GPU's index; -1: not given (GPU 0)
};

using Measurement = std::variant<ErtResult, GpuErtResult>;

// Throws ridge::Error (one line): --threads with a GPU, --gpu with the CPU (before anything is measured), and what
// run_ert and run_gpu_ert throw. `progress` hears each step's line.
Measurement measure(const ErtRequest& request, const std::function<void(const std::string&)>& progress);

// The measured roofline as a device file (ert_device_yaml or gpu_ert_device_yaml).
std::string device_yaml(const Measurement& measurement);

}  // namespace ridge::hw::ert
