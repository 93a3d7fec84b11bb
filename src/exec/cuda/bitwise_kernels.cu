// Bitwise ops: bitwise_cell.h's apply_bitwise a thread per output element, on the unsigned type of the width.
#include "exec/cuda/bitwise_kernels.h"
#include "exec/cuda/grid.cuh"

namespace ridge::exec::cuda {

namespace {

template <class T>
__global__ void bitwise_kernel(BitOp op, const T* a, Layout al, const T* b, Layout bl, T* out, Layout ol, int64_t n) {
  RIDGE_GRID_LOOP(e, n) {
    out[e] = apply_bitwise(op, a[walk_offset(al, ol, e)], op == BitOp::kNot ? T(0) : b[walk_offset(bl, ol, e)]);
  }
}

template <class T>
void launch(BitOp op, const void* a, const Layout& al, const void* b, const Layout& bl, void* out, const Layout& ol,
            cudaStream_t stream) {
  int64_t n = 1;
  for (int d = 0; d < ol.rank; ++d) n *= ol.dims[d];
  if (n == 0) return;
  bitwise_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const T*>(a), al, static_cast<const T*>(b),
                                                            bl, static_cast<T*>(out), ol, n);
}

}  // namespace

bool bitwise(BitOp op, const void* a, const Layout& a_layout, const void* b, const Layout& b_layout, void* out,
             const Layout& out_layout, int element_bytes, cudaStream_t stream) {
  switch (element_bytes) {
    case 1:
      launch<uint8_t>(op, a, a_layout, b, b_layout, out, out_layout, stream);
      return true;
    case 2:
      launch<uint16_t>(op, a, a_layout, b, b_layout, out, out_layout, stream);
      return true;
    case 4:
      launch<uint32_t>(op, a, a_layout, b, b_layout, out, out_layout, stream);
      return true;
    case 8:
      launch<uint64_t>(op, a, a_layout, b, b_layout, out, out_layout, stream);
      return true;
    default:
      return false;
  }
}

}  // namespace ridge::exec::cuda
