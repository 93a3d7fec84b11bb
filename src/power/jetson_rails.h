#pragma once
// Jetson INA3221 power monitors read from sysfs, in both layouts the kernels expose:
// - Orin (JetPack 5/6, upstream hwmon driver `ina3221`, see the kernel's Documentation/hwmon/ina3221.rst):
//   bus/i2c/drivers/ina3221/*/hwmon/hwmon*/in{1,2,3}_label, in{N}_input (bus mV), curr{N}_input (mA);
//   power = V x I. Unconnected channels are labelled "NC" and skipped.
// - Xavier, Nano, TX1/TX2 (JetPack 4, NVIDIA's iio driver `ina3221x`):
//   bus/i2c/drivers/ina3221x/*/iio:device*/rail_name_{0,1,2}, in_power{N}_input (mW), else
//   in_voltage{N}_input (mV) x in_current{N}_input (mA).
// Rails per board (energymon's jetson/JetsonPowerRails.md, from NVIDIA's L4T device trees): Nano
// POM_5V_IN/POM_5V_GPU/POM_5V_CPU; AGX Xavier GPU/CPU/SOC + CV/VDDRQ/SYS5V; Xavier NX, TX1/TX2, Orin NX
// and Orin Nano have VDD_IN; AGX Orin VDD_GPU_SOC/VDD_CPU_CV/VIN_SYS_5V0 + VDDQ_VDD2_1V8AO.
// The total: VDD_IN / POM_5V_IN is the module's input and the other rails are parts of it, so it is
// the total alone. AGX Xavier and AGX Orin have no input channel: their rails hang in parallel off
// the supply (Xavier's design guide 5.6.2 and 5.2: GPU/CPU/SOC/CV/DDRQ from SYS_VIN_HV, SYS5V =
// SYS_VIN_MV; Orin's VIN_SYS_5V0 is likewise the 5 V system rail, not the module's input), so the
// total is their sum: a lower bound of the module's power (carrier board, regulator losses unseen).
#include <memory>

#include "power/sampler.h"

namespace ridge::power {

// The rails under sysfs_root(); an error when the board has no INA3221 in either layout.
std::unique_ptr<Sampler> jetson_rails_sampler();

// Whether a rail name is a module's input rail (VDD_IN, POM_5V_IN).
bool is_input_rail(const std::string& name);

}  // namespace ridge::power
