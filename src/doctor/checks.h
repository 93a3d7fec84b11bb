#pragma once
// The checks of `ridge doctor`, one function per area, each in its own file. None of them throws: a
// library that does not load, a program that is absent or hangs, a file that cannot be read is a
// `missing` (or `not applicable`) row with the reason.
#include <string>
#include <vector>

#include "doctor/check.h"

namespace ridge::doctor {

// CPU model, ISA extensions (avx2, avx512f, amx), logical cores, maximum clock.
std::vector<Check> cpu_checks();
// Whether the executor module loads, and the libtorch, oneDNN and BLAS it runs on.
std::vector<Check> executor_checks();
// CUDA driver, runtime, cuDNN, cuBLAS, NVML and the GPUs, all loaded with dlopen.
std::vector<Check> cuda_checks();
// ncu and nsys on PATH, with their versions.
std::vector<Check> profiler_checks();
// nvpmodel, tegrastats, jetson_clocks: not applicable unless this machine is a Jetson.
std::vector<Check> jetson_checks();
// RAPL energy counters readable.
std::vector<Check> rapl_checks();
// sbatch on PATH, with its version.
std::vector<Check> slurm_checks();

// Where the results store is, and which setting chose it.
struct StorePath {
  std::string path;
  std::string source;  // "--store", "RIDGE_STORE" or "default"
};
// `flag` (--store) if given, else $RIDGE_STORE, else ridge-results.db in the working directory.
StorePath resolve_store_path(const std::string& flag);
// The store file writable if it exists, else its directory.
Check store_check(const StorePath& store);

// Every device file on the search path loads and validates.
Check device_file_check();

// All of the above, in that order.
std::vector<Check> all_checks(const StorePath& store);

}  // namespace ridge::doctor
