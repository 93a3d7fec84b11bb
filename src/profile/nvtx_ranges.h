#pragma once
// The NVTX range names of one kernel launch, from the NVTX columns of an Nsight Compute CSV export.
// ncu (2023 and later) writes one column per range kind, headed by the fields of each range:
//   "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
// and a cell per launch holding the thread and one quoted entry per open range, outermost first:
//   3486  "<default domain>:resnet50_batch1:none:...:none"  "<default domain>:/conv1/Conv:none:...:none"
// A range's name is the field under "..._Range" (counted from both ends, so a name may hold ':'), or
// the "Msg" field where the range was pushed with a message only. Older exports, and cells that do not
// follow this form, give their whole text as one name.
#include <string>
#include <string_view>
#include <vector>

namespace ridge::profile {

// The range names in `cell`, outermost first, under the column headed `header`.
std::vector<std::string> nvtx_range_names(std::string_view header, std::string_view cell);

}  // namespace ridge::profile
