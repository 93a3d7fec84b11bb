// The executor module (ATen from libtorch, loaded at run time by `ridge run` / `ridge bench`) and the
// oneDNN and BLAS libraries it brought in: read from the libraries this process then has loaded.
#include <fmt/format.h>

#include "doctor/checks.h"
#include "doctor/library.h"
#include "exec/engine.h"
#include "util/error.h"

namespace ridge::doctor {
namespace {

constexpr const char* kModuleFix =
    "install libtorch and oneDNN (Debian 12: sudo apt install libtorch-dev libdnnl-dev, or ./scripts/setup.sh), "
    "then build or reinstall ridge (./scripts/install.sh); RIDGE_EXEC_MODULE may point at libridge_exec.so";

// dnnl_version_t of oneDNN 2 and 3 (oneapi/dnnl/dnnl_types.h).
struct DnnlVersion {
  int major, minor, patch;
  const char* hash;
  unsigned cpu_runtime, gpu_runtime;
};

std::string at_path(const Library& library) { return library.path.empty() ? "" : " (" + library.path + ")"; }

Check onednn_check(const std::string& backend_info) {
  auto dnnl = loaded_library("libdnnl.so");
  if (auto version = dnnl.function<const DnnlVersion* (*)()>("dnnl_version")) {
    const auto* v = version();
    std::string hash = v->hash && std::string(v->hash) != "N/A" ? fmt::format(", {}", v->hash) : "";
    return ok("executor", "oneDNN", fmt::format("{}.{}.{}{}{}", v->major, v->minor, v->patch, hash, at_path(dnnl)));
  }
  // ATen may carry its own copy (the pip wheels link it statically).
  if (backend_info.find("oneDNN yes") != std::string::npos)
    return ok("executor", "oneDNN", "built into libtorch (no libdnnl loaded: version unknown)");
  return missing("executor", "oneDNN", "libtorch was built without oneDNN (MKLDNN)",
                 "a libtorch with oneDNN (Debian 12's libtorch-dev has it): ridge's direct convolutions need it");
}

Check blas_check() {
  if (auto openblas = loaded_library("libopenblas")) {
    auto config = openblas.function<const char* (*)()>("openblas_get_config");
    return ok("executor", "BLAS", fmt::format("{}{}", config ? config() : "OpenBLAS", at_path(openblas)));
  }
  if (auto mkl = loaded_library("libmkl_rt")) {
    char text[256] = {};
    if (auto version = mkl.function<void (*)(char*, int)>("mkl_get_version_string")) version(text, sizeof text);
    return ok("executor", "BLAS", fmt::format("{}{}", text[0] ? text : "Intel MKL", at_path(mkl)));
  }
  for (const char* prefix : {"libblis", "libflexiblas", "libblas.so", "libcblas"})
    if (auto blas = loaded_library(prefix)) return ok("executor", "BLAS", fmt::format("{}{}", prefix, at_path(blas)));
  return ok("executor", "BLAS", "no BLAS library loaded (libtorch was built without one, or links one statically)");
}

}  // namespace

std::vector<Check> executor_checks() {
  std::vector<Check> checks;
  exec::Environment env;
  try {
    env = exec::load_engine().environment({});
  } catch (const Error& e) {
    checks.push_back(missing("executor", "executor module", e.what(), kModuleFix));
    for (const char* name : {"libtorch (ATen)", "oneDNN", "BLAS"})
      checks.push_back(missing("executor", name, "unknown: the executor module did not load", kModuleFix));
    return checks;
  }
  auto module = loaded_library("libridge_exec.so");
  checks.push_back(ok("executor", "executor module", "loads" + at_path(module)));
  auto backend = env.backend_info;
  auto parallel = backend.find("ATen parallel backend:");
  std::string detail = env.torch_version;
  if (parallel != std::string::npos) detail += ", " + backend.substr(parallel, backend.find(',', parallel) - parallel);
  checks.push_back(ok("executor", "libtorch (ATen)", detail + at_path(loaded_library("libtorch_cpu.so"))));
  checks.push_back(onednn_check(backend));
  checks.push_back(blas_check());
  return checks;
}

}  // namespace ridge::doctor
