#pragma once
// The energy side of a prediction (Choi et al., "A roofline model of energy", 2013): each node's
// energy E = e_flop x W + e_byte x Q + p_static x T from the FLOPs W and bytes Q it moves and the
// time T predicted for it, and the energy roofline (FLOP per joule against intensity).
#include <string>

#include "hw/roofline.h"
#include "roofline/predict.h"

namespace ridge::roofline {

// Sets energy_j and power_w of every node that does work and of the whole inference (the framework
// time outside the nodes is charged at static power), from the times the prediction holds now;
// called by predict() and again by calib::apply after it replaces the times. Without energy
// ceilings, energy_predicted stays false and energy_missing says why.
void add_energy(Prediction& prediction, const hw::Roofline& roofline);

// FLOP per joule a kernel of `intensity` (FLOP per DRAM byte) attains on the ceiling `peak_key`
// when it runs at its time roofline: 1 / (e_flop + e_byte / I + p_static x max(1/peak, 1/(I x B))).
// 0 when the roofline has no energy ceilings or lacks the key or a DRAM bandwidth.
double flops_per_joule(const hw::Roofline& roofline, const std::string& peak_key, double intensity);

// Where the energy roofline bends: the intensity at which the time roofline does (peak / bandwidth),
// the energy spent on bytes equals that on FLOPs past it (e_byte / e_flop) — the "energy balance".
double energy_balance(const hw::EnergyRoofline& energy, const std::string& peak_key);

}  // namespace ridge::roofline
