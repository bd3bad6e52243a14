//! The lowering passes. Each takes the Kernel and transforms it in place; pipeline.cpp runs
//! them in order. See each pass's comment for what it needs and guarantees.
#pragma once

#include "lower/kernel.h"

namespace mf {

//! Checks the schedule can be lowered: vectorized axes are innermost, constant, on set()
//! copies, at most 16 bytes and run along the innermost allocation axis of the global
//! operands; no hardware dimension is bound twice in one tensor; a tensor read by a consumer
//! binds each thread/block axis to the consumer's matching axis (the thread that computes an
//! element reads it); compute-at positions still map to the consumers; register tensors have
//! constant-size buffers; the layout op's offsets are fusion inputs and its output is not
//! read. Changes nothing; throws mf::UserError.
void validateSchedule(Kernel& kernel);

//! Fills kernel.summary() from the validated schedule: the parameters in signature order,
//! the extents bound to each hardware dimension (and its size when they are constants), the
//! block's constant thread count, whether codegen assumes the block size (a block
//! reduction), the vectorized global accesses, the layout op's error flag and padded
//! outputs. It runs first (after validation) rather than at the end because everything it
//! records is fixed by the schedule, and later passes read it (insertPredicates guards a
//! parallel loop whose dimension is launched wider); codegen and the executor read the same
//! summary. Rejects launches that constant extents make impossible (over 1024 threads per
//! block, ...) and, with 32-bit indices, constants past 2^31 - 1.
//!   T1[iblockIdx.x{ceilDiv(i0, 128)}, ithreadIdx.x{128}] -> TIDx = 128,
//! BIDx = ceilDiv(i0, 128). Needs: validateSchedule. Changes no IR.
void analyzeKernel(Kernel& kernel);

//! Builds the loop nest of every tensor expr from its output's loop domain, sharing the
//! first compute-at-position loops with the producer computed inside it. Exprs are ordered
//! (topologically) so that all exprs sharing a loop are emitted inside it; a schedule where
//! no such order exists (a tensor outside a shared loop both reads from and feeds it) is a
//! UserError.
//!   T2 = T0 + T1 (T2 ca_pos 1), T3 = exp(T2)  ->  FOR i0: { FOR i1: T2 = ..; FOR i2: T3 = .. }
//! Needs: nothing. Guarantees (LoopNests): each expr sits in its loops (Kernel::computeExprs).
void generateLoopNests(Kernel& kernel);

//! Declares register and shared buffers: an Allocate for every non-global tensor, placed in
//! the scope at its compute-at depth, sized by the loop axes heldInBuffer keeps: those right of
//! that depth bound to no thread (shared memory also keeps every threadIdx axis), never a
//! blockIdx, broadcast or reduction axis.
//!   T2 ca_pos 1 -> FOR i0: { T2 = ALLOCATE(size = 4); ... }
void insertAllocations(Kernel& kernel);

//! Replaces each tensor operand by a TensorIndex: loop indices are walked back to logical
//! indices of the consumer, mapped to the producer, then forward to its allocation (global:
//! dot with strides, except that contiguous axes down to the innermost that one merged loop
//! axis covers are addressed by the merged index) or its register buffer (at the consumer's
//! loop indices when the producer's loops map to the consumer's). Starts each reduction with
//! `acc = init` before its first reduction loop, in init loops over the iteration axes
//! nested inside its reduction loops (they reuse the output's loop indices).
//!   T3 = exp(T2)  ->  T3[i0 * T3.stride[0] + i1] = exp(T2[i1])
//!   T1 = neg(T0), T0 contiguous, [i0 * i1] merged  ->  T1[i] = neg(T0[i])
//!   T1[r0, i1] = sum(T0)  ->  FOR i1: T1[i1] = 0; FOR r0: FOR i1: T1[i1] = T1[i1] + T0[..]
//! A reduction across threads becomes a RuntimeCall of the runtime's block or grid
//! all-reduce, the layout op one of its scatter or gather function (ir/kernel_ir.h):
//!   T1[i0] = sum(T0) over rthreadIdx.x -> T1[i5] = call BlockAllReduce mf_blockAllReduceX(..)
//! Each output TensorIndex records the walk (axisIndices), the vector width of a whole-vector
//! copy, whether it starts a reduction, and whether its NaN bits may be any (lower/nan_bits.h).
//! Needs: generateLoopNests. Guarantees (OperandsIndexed): no TensorView operand or output
//! left in compute exprs.
void indexTensors(Kernel& kernel);

//! Guards every compute expr with `index < extent` for each logical axis its loops may overrun
//! (a split not divisible on the way to the loop axes), checked at the axis nearest the loop
//! where the check is equivalent (a merge: `i < m * n` for `i / n < m`; a divisible split:
//! `o < n / 8` for `o * 8 + v < n`), and with `index < extent` for each parallel loop whose
//! dimension is launched wider (bound to other extents elsewhere, as kernel.summary() says).
//! A split divides when constant extents say so or when it is the vector split of a
//! vectorized copy of a fusion input or output, which the executor checks at launch. Exprs
//! computing registers from registers are not guarded; constant-true predicates are dropped.
//! A collective RuntimeCall (every thread of the block or grid must reach it) is never wrapped:
//! the predicate becomes its read predicate, the iteration-axis part (and thread 0, for a
//! shared or global output) its write predicate.
//!   T3[..] = .. -> IF (i0 * 128 + tid) < T3.size[0]: T3[..] = ..
//! Needs: indexTensors. Guarantees (PredicatesInserted): every collective call has its
//! predicates and sits under no guard.
void insertPredicates(Kernel& kernel);

//! Reduces the block (or grid) reductions of each group of groupReductions in one runtime
//! call (nvFuser's GroupedReductionOp): the members' all-reduce calls, alone in one scope or
//! in one nest of group loops, become one call with a member (operands, op, predicates) per
//! reduction at the last member's place; codegen emits one mf_blockAllReduceTupleX/Y (and
//! mf_gridAllReduceTupleX/Y) with one barrier sequence for all of them.
//!   T2[..] = call BlockAllReduce mf_blockAllReduceX(in = T1[..], op = add, ..)
//!   T4[..] = call BlockAllReduce mf_blockAllReduceX(in = T3[..], op = max, ..)
//!     -> (T2[..], T4[..]) = call BlockAllReduce mf_blockAllReduceTupleX(in = T1[..], ..,
//!          op = add, in = T3[..], .., op = max, ..) (read: .., write: ..; read: .., write: ..)
//! A group whose members are in different loops or scopes, reduce across different
//! dimensions, or whose result is read before the last member is reduced is a UserError
//! naming them. In-place grid reductions (KernelSummary) keep a call each. Needs:
//! insertPredicates (the members' predicates). Guarantees: one all-reduce call per group.
void groupReductionCalls(Kernel& kernel);

//! Gives each loop parallelized ParallelType::Unswitch (nvFuser's) one predicate for its
//! whole nest: if (every guard inside, each `index < bound` at the largest index the nest
//! reaches: every serial, unrolled or vector loop index inside at its last value) { the nest
//! without its guards } else { the nest as it was }; a `0 <= index` guard (a pad's input)
//! at the first value of each index. Sound because split/merge/resize index math grows with
//! each loop index; a nest with another kind of guard (a merge's `i % n` in a check), a
//! barrier, a collective call or shared memory is kept as it was, as is one with no guard.
//!   FOR i3 in iUS{4}: IF (i3 * 128 + tid) < n: T2[..] = ..
//!     -> IF (3 * 128 + tid) < n: FOR i3 ..: T2[..] = .. ELSE: FOR i3 ..: IF ..: T2[..] = ..
//! Needs: insertPredicates. Guarantees: only guards and loops are new; leaf statements are
//! shared by both paths.
void unswitchLoops(Kernel& kernel);

//! Inserts a BlockSync between each write of a shared-memory tensor and its first read
//! (read-after-write: threads read what others wrote), in the innermost scope holding both,
//! and at the end of the innermost serial loop holding both (write-after-read: the next
//! iteration's write must wait for this iteration's readers). Conservative: a read of the
//! writing thread's own element is synchronized too. Barriers are never inside a guard.
//!   T1_s[..] = T0[..]; T2[..] = T1_s[..]  ->  T1_s[..] = ..; BLOCKSYNC; T2[..] = T1_s[..]
//! Needs: insertPredicates (guards wrap single exprs). Guarantees: every thread reaches each
//! barrier the same number of times.
void insertSyncs(Kernel& kernel);

//! Declares, at the start of each scope codegen prints as a C++ block (the kernel body, a
//! serial loop's body, a branch), each computed scalar (index or predicate math) used more
//! than once in it, nested scopes included, whose loop indices are all open there: a
//! ScalarDef, `const mf_index_t i12 = ...;` (nvFuser's allocateCommonScalars), so index and
//! predicate math is computed once and kernels read like hand-written ones. Subexpressions
//! come first; a scalar declared in an enclosing scope is not declared again. Scalars are
//! the same value when their ScalarKeys are equal (they print the same): codegen writes
//! every later one by the declared name. The loops of a grouped block reduction and the
//! bodies of parallel loops are no scopes of their own.
//!   FOR i6 in iS{4}: T2[( i1 * s0 ) + i6] = ..    LET i13 = ( i1 * s0 )
//!   FOR i7 in iS{4}: T1[( i1 * s0 ) + i7] = .. -> FOR i6 ..: T2[( i1 * s0 ) + i6] = ..
//!                                                 FOR i7 ..: T1[( i1 * s0 ) + i7] = ..
//! Needs: insertSyncs (the last pass that adds statements). Changes no other node.
void hoistCommonScalars(Kernel& kernel);

}  // namespace mf
