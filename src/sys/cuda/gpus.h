#pragma once
// Whether this machine has a GPU the CUDA runtime can use: asked by the executor and the GPU roofline before
// either creates a handle.
namespace ridge::sys::cuda {

// The number of GPUs the runtime sees, or a ridge::Error naming why none can be used (no driver, no
// device), one line.
int require_gpus();

}  // namespace ridge::sys::cuda
