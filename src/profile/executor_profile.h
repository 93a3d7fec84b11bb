#pragma once
// `ridge profile`: ridge's own GPU executor under Nsight Compute, as `ridge ncu run -m MODEL -- ridge run MODEL
// --device cuda` would run it. The executor pushes an NVTX range per node named as the ONNX node, so the import maps
// every kernel to its layer.
#include <cstdint>
#include <string>

#include "profile/ncu_runs.h"

namespace ridge::profile {

struct ExecutorProfileRequest {
  std::string ridge;  // the ridge binary whose `run` is profiled; empty: the one running now (this very build)
  std::string model;  // the ONNX model
  int64_t batch = 1;
  int gpu = -1;                      // -1: ridge run's default GPU
  std::string precision, conv_algo;  // as `ridge run` takes them; empty: its defaults
  std::string ncu;                   // as NcuRunRequest's ncu.ncu, ncu.output_dir, ncu.clock_control, ncu.cc
  std::string output_dir;
  std::string clock_control = "base";
  std::string cc;
  std::string device = "cuda";  // the executor profiled: only the GPU's has ncu
};

// The one point ncu runs: `ridge run MODEL --device cuda --batch N` and the options given for it. Throws ridge::Error
// for a device other than cuda, and for an empty `ridge` where this binary cannot be found (/proc/self/exe).
NcuRunRequest executor_ncu_request(const ExecutorProfileRequest& request);

// What the profile is of: one eager pass (a CUDA graph's replay runs no host code, so it has no ranges).
std::string executor_profile_note(const ExecutorProfileRequest& request);

}  // namespace ridge::profile
