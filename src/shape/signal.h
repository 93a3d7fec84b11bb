#pragma once
// The geometry of ONNX's signal ops (opset 17), which shape inference and the executor share: a DFT's output length,
// an STFT's frames and bins, and MelWeightMatrix's filter bank (computed as ONNX's reference does).
#include <cstdint>
#include <optional>
#include <vector>

namespace ridge::shape {

// The bins a DFT of n points keeps: n, or n / 2 + 1 where `onesided` (a real input's conjugate symmetry).
inline int64_t dft_bins(int64_t n, bool onesided) { return onesided ? n / 2 + 1 : n; }

// The frame length an STFT's window (its length) and frame_length input give: either, or both where they agree. Throws
// ridge::Error where they differ or neither is given.
int64_t stft_frame_length(std::optional<int64_t> window_length, std::optional<int64_t> frame_length);

struct StftGeometry {
  int64_t frame_length = 0;  // the DFT's size
  int64_t frames = 0;        // (signal length - frame length) / frame step + 1
  int64_t bins = 0;          // dft_bins(frame_length, onesided)
};
// Throws ridge::Error (naming what is wrong) for a frame length or step below 1 or a signal shorter than a frame.
StftGeometry stft_geometry(int64_t signal_length, int64_t frame_step, int64_t frame_length, bool onesided);

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] row-major, each filter a triangle peaking at 1 between the
// spectrogram bins that num_mel_bins + 2 points equally spaced on the mel scale (mel(f) = 2595 log10(1 + f / 700))
// from lower_edge_hertz to upper_edge_hertz fall in, as ONNX's reference implementation places them (the mel range
// divided in num_mel_bins + 2 steps, bin = floor((dft_length + 1) f / sample_rate)). Throws ridge::Error for sizes
// below 1 or edges that fall outside the spectrogram.
std::vector<double> mel_weight_matrix(int64_t num_mel_bins, int64_t dft_length, int64_t sample_rate,
                                      double lower_edge_hertz, double upper_edge_hertz);

}  // namespace ridge::shape
