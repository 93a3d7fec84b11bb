#include "sys/cuda_module.h"

#include "util/build_tree.h"
#include "util/error.h"
#include "util/module.h"

namespace ridge::sys {

bool cuda_module_built() { return build_tree::cuda_module_built(); }

void* cuda_module_symbol(const char* symbol) {
  if (!cuda_module_built())
    throw Error(
        "--device cuda: this ridge was built without the CUDA toolkit (no nvcc or cuDNN at configure time); "
        "install it (nvcc, cuDNN 9, cuBLAS) and rebuild: scripts/build.sh");
  return module_symbol("libridge_cuda.so", "RIDGE_CUDA_MODULE", build_tree::cuda_module(), symbol);
}

}  // namespace ridge::sys
