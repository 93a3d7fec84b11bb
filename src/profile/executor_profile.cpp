#include "profile/executor_profile.h"

#include <fmt/format.h>

#include <filesystem>

#include "util/error.h"

namespace ridge::profile {

namespace {

// The ridge binary running now: the profiled program is this very build.
std::string this_ridge() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("ridge profile: cannot tell where this ridge binary is (/proc/self/exe)");
  return self.string();
}

}  // namespace

NcuRunRequest executor_ncu_request(const ExecutorProfileRequest& r) {
  if (r.device != "cuda")
    throw Error("ridge profile runs the GPU executor under Nsight Compute: --device cuda (the CPU has no ncu)");
  NcuRunRequest out;
  auto& program = out.ncu.program;
  program = {
      r.ridge.empty() ? this_ridge() : r.ridge, "run", r.model, "--device", "cuda", "--batch", std::to_string(r.batch)};
  if (r.gpu >= 0) program.insert(program.end(), {"--gpu", std::to_string(r.gpu)});
  if (!r.precision.empty()) program.insert(program.end(), {"--precision", r.precision});
  if (!r.conv_algo.empty()) program.insert(program.end(), {"--conv-algo", r.conv_algo});
  out.ncu.ncu = r.ncu;
  out.ncu.output_dir = r.output_dir;
  out.ncu.clock_control = r.clock_control;
  out.ncu.cc = r.cc;
  return out;
}

std::string executor_profile_note(const ExecutorProfileRequest& r) {
  // ridge run runs the model once, eager: every node inside its NVTX range. A CUDA-graph replay launches no host
  // code and so carries no ranges: the profile is of eager mode.
  return fmt::format(
      "note: ridge run {} at batch {} on the GPU, eager (a CUDA graph's replay has no NVTX ranges to map its "
      "kernels by); kernels outside every node's range (cuDNN's algorithm search with --conv-algo benchmark) "
      "are listed as unmapped",
      r.model, r.batch);
}

}  // namespace ridge::profile
