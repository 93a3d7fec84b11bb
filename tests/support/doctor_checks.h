#pragma once
// The rows `ridge doctor` prints, in order: what both the in-process and the binary-driven doctor tests expect.
#include <string>
#include <vector>

namespace ridge::test {

inline const std::vector<std::string> kCheckNames{"CPU model",
                                                  "avx2",
                                                  "avx512f",
                                                  "amx",
                                                  "logical cores",
                                                  "max clock",
                                                  "executor module",
                                                  "libtorch (ATen)",
                                                  "oneDNN",
                                                  "BLAS",
                                                  "CUDA driver",
                                                  "CUDA runtime",
                                                  "cuDNN",
                                                  "cuBLAS",
                                                  "NVML",
                                                  "GPUs",
                                                  "GPU module",
                                                  "ncu",
                                                  "nsys",
                                                  "nvpmodel",
                                                  "tegrastats",
                                                  "jetson_clocks",
                                                  "RAPL",
                                                  "sbatch",
                                                  "results store",
                                                  "device files"};

}  // namespace ridge::test
