// Cost rules of ONNX's sequence ops. A sequence holds references to its tensors, as ridge's executors and PyTorch's
// lists do: building one (SequenceConstruct, SequenceInsert, SequenceErase) and reading an element (SequenceAt) move
// no data (views: in the peak-memory count, an element read from a sequence keeps the sequence's tensors live while it
// is). SequenceLength writes its scalar and reads nothing of the tensors. ConcatFromSequence copies its elements into
// one tensor and SplitToSequence its input into pieces: each reads its input whole and writes its output whole (a
// sequence's bytes are its elements', cost/context.h), as Concat and Split do.
#include "cost/registry.h"

namespace ridge::cost {
namespace {

void view(CostContext& ctx) { ctx.moves_no_data = true; }

void length(CostContext& ctx) { ctx.override_read(0, 0); }

void copy(CostContext& ctx) { ctx.backward_flops_data = 0; }  // as Concat's and Split's: the gradient is routed

}  // namespace

void register_sequence_costs(CostRegistry& r) {
  constexpr unsigned N = kNotDifferentiable;
  // clang-format off
  r.add("sequence", {{"SequenceEmpty", view, N}, {"SequenceConstruct", view}, {"SequenceInsert", view},
         {"SequenceErase", view}, {"SequenceAt", view}, {"SequenceLength", length, N},
         {"ConcatFromSequence", copy}, {"SplitToSequence", copy}});
  // clang-format on
}

}  // namespace ridge::cost
