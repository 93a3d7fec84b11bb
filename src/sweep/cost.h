#pragma once
// What each cell costs, from the analytical model: the ETA of a sweep spreads the time measured so
// far over the FLOPs done and left, so a batch-64 cell counts for more than a batch-1 one.
#include <vector>

#include "sweep/matrix.h"

namespace ridge::sweep {

// The FLOPs of every cell (forward, or the whole training step), plus the matrix's mean for each
// cell's fixed costs (loading, warm-up, the stopping rule's minimum runs). A cell whose model cannot
// be analysed gets the mean.
std::vector<double> cell_costs(const std::vector<Cell>& cells);

}  // namespace ridge::sweep
