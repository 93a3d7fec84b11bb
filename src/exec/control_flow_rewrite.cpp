#include "exec/control_flow_rewrite.h"

#include <fmt/format.h>

#include <set>

#include "exec/if_inlining.h"
#include "exec/loop_unrolling.h"
#include "exec/sequence_elimination.h"

namespace ridge::exec {

namespace {

// Enough turns for any nesting a model holds (each turn lifts nested control flow one level); a guard, not a limit a
// model reaches: kMaxUnrolledNodes stops loops long before.
constexpr int kMaxTurns = 64;

void merge(std::map<graph::ValueId, Origin>& into, const std::map<graph::ValueId, Origin>& from) {
  for (const auto& [id, origin] : from) into[id] = origin;
}

}  // namespace

std::string ControlFlowRewrite::summary() const {
  std::string line;
  if (ifs)
    line = fmt::format(
        "{} If node{} ran as the branch {} condition selects (known before the run); a per-node profile times the "
        "branch's nodes as {}",
        ifs, ifs == 1 ? "" : "s", ifs == 1 ? "its" : "their", ifs == 1 ? "the If" : "their If");
  if (loops)
    line += fmt::format(
        "{}{} loop{} (Loop, Scan) ran as {} iterations' nodes (their count known before the run); a per-node profile "
        "times them as {}",
        line.empty() ? "" : "; ", loops, loops == 1 ? "" : "s", loops == 1 ? "its" : "their",
        loops == 1 ? "the loop" : "their loop");
  if (sequences)
    line +=
        fmt::format("{}{} sequence op{} ran as the tensor ops that read {} known elements (Concat, Split, Identity)",
                    line.empty() ? "" : "; ", sequences, sequences == 1 ? "" : "s", sequences == 1 ? "its" : "their");
  return line;
}

bool has_rewritable_control_flow(const graph::Graph& g) {
  return has_constant_if(g) || has_loop(g) || has_sequence_ops(g);
}

ControlFlowRewrite rewrite_control_flow(graph::Model& model) {
  ControlFlowRewrite result;
  for (int turn = 0; turn < kMaxTurns; ++turn) {
    auto ifs = inline_constant_ifs(model.graph, &result.origin_of_output);
    merge(result.origin_of_output, ifs.origin_of_output);
    auto loops = unroll_loops(model, &result.origin_of_output);
    merge(result.origin_of_output, loops.origin_of_output);
    result.kept_ifs = std::move(ifs.kept);
    result.kept_loops = std::move(loops.kept);
    if (!ifs.inlined && !loops.unrolled) break;
  }
  auto sequences = eliminate_sequences(model, &result.origin_of_output);
  merge(result.origin_of_output, sequences.origin_of_output);
  result.sequences = sequences.rewritten;
  result.kept_sequences = std::move(sequences.kept);
  // Counted by what the model as given held: nodes nested in a rewritten one run for it and are not counted again.
  std::set<std::string> ifs, loops;
  for (const auto& [id, origin] : result.origin_of_output) {
    if (origin.op_type == "If") ifs.insert(origin.name);
    if (origin.op_type == "Loop" || origin.op_type == "Scan") loops.insert(origin.name);
  }
  result.ifs = static_cast<int>(ifs.size());
  result.loops = static_cast<int>(loops.size());
  return result;
}

}  // namespace ridge::exec
