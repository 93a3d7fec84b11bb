#pragma once
// Legends: one per scale a reader must decode (colour, dash, shape), on the right.
#include <string>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// A legend of scale `scale` on channel `channel` ("fill", "stroke", "strokeDash", "shape"), on the right.
// `symbol_type`, where given, is the symbol of every entry ("circle", "stroke").
Json legend(const std::string& channel, const std::string& scale, const std::string& title,
            const std::string& symbol_type = "");
}  // namespace ridge::report::figure
