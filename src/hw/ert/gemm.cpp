#include "hw/ert/gemm.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "util/build_tree.h"
#include "util/error.h"
#include "util/module.h"

namespace ridge::hw::ert {
namespace {

using GemmFn = int (*)(int, int, int, int, double*, char*, int);

GemmFn load_plugin() {
  static GemmFn fn = reinterpret_cast<GemmFn>(module_symbol("libridge_aten_gemm.so", "RIDGE_ATEN_GEMM",
                                                            build_tree::aten_gemm_module(), "ridge_gemm_fp32_rates"));
  return fn;
}

}  // namespace

std::string_view name(GemmKernel kernel) { return kernel == GemmKernel::kAten ? "ATen at::mm" : "oneDNN matmul"; }

std::vector<double> gemm_fp32_rates(int n, int threads, int repetitions, GemmKernel kernel) {
  std::vector<double> rates(static_cast<size_t>(repetitions));
  char error[256] = {};
  if (load_plugin()(n, threads, repetitions, kernel == GemmKernel::kAten ? 0 : 1, rates.data(), error, sizeof error) !=
      0)
    throw Error(fmt::format("ert: {}: {}", name(kernel), error));
  return rates;
}

}  // namespace ridge::hw::ert
