#pragma once
// Loading ridge's optional shared modules (the ATen executor, the ATen GEMM benchmark) on demand,
// so commands that do not need libtorch never pay for loading it.
#include <filesystem>
#include <string>

namespace ridge {

// The directory of the running executable (empty when /proc/self/exe cannot be read). Modules and
// the device database are looked for relative to it first, so an installed tree
// (PREFIX/bin/ridge, PREFIX/lib/ridge/, PREFIX/share/ridge/devices/) works wherever it is moved.
std::filesystem::path executable_dir();

// Where `cmake --install` puts the modules and the device files, relative to the executable's directory.
inline constexpr const char* kInstalledModuleDir = "../lib/ridge";
inline constexpr const char* kInstalledDeviceDir = "../share/ridge/devices";

// Returns `symbol` from the module `file_name`, looked for at $`env_var`, next to the running
// executable, in the installed layout's module directory (`kInstalledModuleDir`), in the
// executable's parent directory (build trees), then at `built_path`. Throws ridge::Error with
// dlopen's reason when a module exists but cannot be loaded, or the paths tried.
void* module_symbol(const std::string& file_name, const char* env_var, const std::string& built_path,
                    const char* symbol);

}  // namespace ridge
