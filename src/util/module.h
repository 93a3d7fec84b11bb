#pragma once
// Loading ridge's optional shared modules (the ATen executor, the ATen GEMM benchmark) on demand,
// so commands that do not need libtorch never pay for loading it.
#include <string>

namespace ridge {

// Returns `symbol` from the module `file_name`, looked for at $`env_var`, next to the running
// executable, in its parent directory (build trees), then at `built_path`. Throws ridge::Error
// with dlopen's reason when a module exists but cannot be loaded, or the paths tried.
void* module_symbol(const std::string& file_name, const char* env_var, const std::string& built_path,
                    const char* symbol);

}  // namespace ridge
