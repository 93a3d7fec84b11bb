#pragma once
// Where the build tree that made this ridge keeps what an installed tree keeps beside its binary: the
// last place each search path looks (an environment variable and the installed layout come first).
// The paths are absolute, so they live in one generated header that only build_tree.cpp includes:
// as compile definitions they would enter every file's compiler command, and a clone at another path
// would then miss the compiler cache for every file (docs/building.md).
namespace ridge::build_tree {

const char* device_dir();        // <source>/devices
const char* model_dir();         // <source>/models
const char* share_dir();         // <build>/share/ridge: vega.js, vega-render.js
const char* exec_module();       // <build>/libridge_exec.so
const char* aten_gemm_module();  // <build>/libridge_aten_gemm.so
const char* cuda_module();       // <build>/libridge_cuda.so
bool cuda_module_built();        // whether the CUDA toolkit was found at configure time

}  // namespace ridge::build_tree
