//! The structural rules every automatic scheduler applies before its own checks, in one
//! place (nvFuser's registry_utils checkCanSchedule): the layout op's global-memory rules
//! (docs/layout_op.md, "Global memory in, global memory out") and segment_set. The segmenter
//! relies on them: a union of segments that breaks a rule is refused, so the segmenter cuts
//! there.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mf {

class Fusion;

//! Why no scheduler may take `fusion` as one kernel, or nullopt when the common rules hold:
//!   - a segment_set marks a segment boundary (the segmenter cuts there);
//!   - a layout op's offsets must be fusion inputs: its runtime function reads them whole
//!     from global memory, so a producer in the same kernel could not have finished;
//!   - a layout op's output must be a fusion output with no consumer in the fusion: only a
//!     block-scaled grouped GEMM may read that layout, and not in the same kernel.
std::optional<std::string> commonScheduleRejectReason(Fusion* fusion);

//! Why `scheduler` (a reduction or normalization scheduler) refuses `fusion`: it holds a
//! resize op (pad, slice, cat), which only the pointwise scheduler runs; the segmenter then
//! cuts. nullopt without one.
std::optional<std::string> resizeOpRejectReason(Fusion* fusion, std::string_view scheduler);

}  // namespace mf
