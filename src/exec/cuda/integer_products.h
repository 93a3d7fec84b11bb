#pragma once
// The GPU's integer products as op kernels (integer_products.cpp): MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv, on ridge's direct kernels (integer_cell.h).
#include "exec/cuda/op_kernel.h"

namespace ridge::exec::cuda {

void register_integer_kernels(KernelRegistry& registry);

}  // namespace ridge::exec::cuda
