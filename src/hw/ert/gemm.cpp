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

using GemmFn = int (*)(int, int, int, double*, char*, int);

GemmFn load_plugin() {
  static GemmFn fn = reinterpret_cast<GemmFn>(module_symbol("libridge_aten_gemm.so", "RIDGE_ATEN_GEMM",
                                                            build_tree::aten_gemm_module(), "ridge_gemm_fp32_rates"));
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
