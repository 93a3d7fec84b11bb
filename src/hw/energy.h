#pragma once
// The energy ceilings of a device in a power mode: coefficients the device file gives for the mode
// (published or fitted by `ridge calibrate --energy`), else an estimate derived from the datasheet's
// TDP (and idle power) and the mode's clocks, labelled "estimate" wherever it is shown.
#include <optional>
#include <string>

#include "hw/device.h"
#include "hw/roofline.h"

namespace ridge::hw {

// The rule of the datasheet estimate, named so that outputs and docs/energy.md can state it.
// Static power: the datasheet idle power, else this share of TDP.
inline constexpr double kStaticShareOfTdp = 0.15;
// At the reference clocks a kernel at the ridge point (a unit at its peak while DRAM streams at full
// bandwidth) draws TDP, never more; streaming draws this share of what the unit draws, so the
// dynamic power D = TDP - p_static splits as e_flop = D / (1 + share) / peak and
// e_byte = share x D / (1 + share) / bandwidth.
inline constexpr double kMemoryShareOfDynamic = 0.6;
// Dynamic energy per operation goes as V^2; V is taken as linear in the domain's clock, from this
// fraction of the top voltage at the lowest clock to the top voltage at the reference clock.
inline constexpr double kLowestVoltageRatio = 0.6;

// (V(f) / V(reference))^2 for a clock domain at `mhz` under the rule above.
double voltage_squared_ratio(const ClockDomain& domain, double mhz);

// The mode's energy ceilings: the device file's coefficients for the mode; else those of another mode
// scaled to this one's clocks; else the datasheet estimate. nullopt, with the reason in `why`, when the device file has
// neither coefficients for the mode nor a TDP to estimate them from.
std::optional<EnergyRoofline> energy_roofline(const Device& device, const PowerMode& mode, std::string* why = nullptr);

}  // namespace ridge::hw
