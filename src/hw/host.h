#pragma once
// The machine ridge runs on as a device: its CPU (sys/host_cpu.h) with theoretical peaks.
#include "hw/device.h"
#include "sys/host_cpu.h"

namespace ridge::hw {

// FP32 FLOP/s = cores x (simd_bits / 32) x fma_units x 2 x clock (FP64: half).
Device detect_host();

}  // namespace ridge::hw
