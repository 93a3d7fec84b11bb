#include "hw/ert/gemm.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "util/error.h"

namespace ridge::hw::ert {
namespace {

using GemmFn = int (*)(int, int, int, double*, char*, int);

// The plugin sits next to the ridge executable (build tree), or where RIDGE_ATEN_GEMM says.
GemmFn load_plugin() {
  static GemmFn fn = [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("RIDGE_ATEN_GEMM")) candidates.emplace_back(env);
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      candidates.push_back((exe.parent_path() / "libridge_aten_gemm.so").string());
      candidates.push_back((exe.parent_path().parent_path() / "libridge_aten_gemm.so").string());
    }
    candidates.emplace_back(RIDGE_ATEN_GEMM_PATH);
    std::string tried;
    for (const auto& path : candidates) {
      if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        if (void* symbol = ::dlsym(handle, "ridge_gemm_fp32_rates")) return reinterpret_cast<GemmFn>(symbol);
      tried += (tried.empty() ? "" : ", ") + path;
    }
    throw Error("ert: cannot load the ATen GEMM module (tried " + tried + ")");
    return GemmFn{};
  }();
  return fn;
}

}  // namespace

std::vector<double> gemm_fp32_rates(int n, int threads, int repetitions) {
  std::vector<double> rates(static_cast<size_t>(repetitions));
  char error[256] = {};
  if (load_plugin()(n, threads, repetitions, rates.data(), error, sizeof error) != 0)
    throw Error(std::string("ert: ") + error);
  return rates;
}

}  // namespace ridge::hw::ert
