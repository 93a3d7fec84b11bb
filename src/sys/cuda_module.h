#pragma once
// The GPU module (libridge_cuda.so: the cuDNN/cuBLAS executor and the GPU's empirical roofline),
// built where the CUDA toolkit is found and loaded on demand, so ridge runs the same without it.
namespace ridge::sys {

// Whether this ridge was built with the CUDA toolkit (the module exists beside it).
bool cuda_module_built();

// A symbol of the module, loaded on first use ($RIDGE_CUDA_MODULE, beside the binary, the installed
// layout, the build tree). Throws ridge::Error saying how to get the module when this build has
// none, or dlopen's reason (a missing libcudnn.so.9, say) when it does not load.
void* cuda_module_symbol(const char* symbol);

}  // namespace ridge::sys
