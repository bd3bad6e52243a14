#include "unit/codegen/golden_fusions.h"

#include <cmath>

#include "scheduler/registry.h"
#include "scheduler/tools/inlining.h"
#include "unit/scheduler/normalization_fusions.h"

namespace mf::testing {
namespace {

void gridBlock(TensorView* tv) {
  tv->axis(0)->parallelize(ParallelType::BIDx);
  tv->axis(1)->parallelize(ParallelType::TIDx);
}

// Flatten, split by 128: [BIDx, TIDx].
void flatten128(TensorView* tv) {
  tv->merge(0)->split(0, 128);
  gridBlock(tv);
}

// A row per block: split the reduced axis by 128 threads, rFactor the serial part.
void blockRowReduction(TensorView* red) {
  red->split(1, 128);
  red->axis(0)->parallelize(ParallelType::BIDx);
  red->axis(2)->parallelize(ParallelType::TIDx);
  red->rFactor({1})->reorder({{1, 2}});
}

std::vector<Tensor> twoMatrices(int64_t n, uint64_t seed) {
  int64_t m = n % 7 + 3;
  return {Tensor::random({n, m}, DataType::Float, seed),
          Tensor::random({n, m}, DataType::Float, seed + 1)};
}

// Schedules `f` as FusionExecutorCache would for `inputs`: the registry's choice and
// heuristics, then that scheduler's schedule().
void autoSchedule(Fusion& f, const std::vector<Tensor>& inputs) {
  SchedulerRuntimeInfo info(&f, inputs);
  HeuristicsProposal proposal = proposeHeuristics(&f, info);
  MF_ASSERT(proposal.accepted(), "golden fusion refused: {}", proposal.rejectionsString());
  SchedulerEntry::makeSchedulerInstance(proposal.type)->schedule(&f, proposal.params.get());
}

// The layout op's inputs: [n, k] in three groups of n/3, n/3 and the rest rows (the first
// ones empty for n < 3), Int32 offsets.
std::vector<Tensor> layoutInputs(int64_t n, int64_t k, DataType dtype, uint64_t seed) {
  const int64_t a = n / 3, b = n / 3;
  const auto ob = static_cast<int32_t>((a + 127) / 128 * 128);
  const auto oc = ob + static_cast<int32_t>((b + 127) / 128 * 128);
  return {
      Tensor::random({n, k}, dtype, seed),
      Tensor::fromVector<int32_t>({0, static_cast<int32_t>(a), static_cast<int32_t>(a + b)}, {3}),
      Tensor::fromVector<int32_t>({0, ob, oc}, {3})};
}

// Rows of 1024: every size the GPU test runs keeps the inner extent divisible by a vector.
// The schedule was made for 1000 rows without a split of the y grid, so the rows stay at
// most 4099 (a size the heuristics would split is another schedule).
std::vector<Tensor> rows(std::vector<std::vector<int64_t>> shapes, DataType t, uint64_t seed) {
  std::vector<Tensor> out;
  for (auto& s : shapes) {
    s[0] = std::min<int64_t>(s[0], 4099);
    out.push_back(Tensor::random(s, t, seed++));
  }
  return out;
}

TensorView* geluTanh(TensorView* x, TensorView* y) {
  TensorView* v = mul(castOp(DataType::Float, x), castOp(DataType::Float, y));
  TensorView* inner =
      mul(add(v, mul(mul(mul(v, v), v), constFloat(0.044715))), constFloat(std::sqrt(2.0 / M_PI)));
  return castOp(DataType::BFloat16,
                mul(mul(v, constFloat(0.5)), add(tanh(inner), constFloat(1.0))));
}

}  // namespace

const std::vector<GoldenFusion>& goldenFusions() {
  static const std::vector<GoldenFusion> cases = {
      {"pointwise_chain",
       [](Fusion& f) {
         TensorView* t0 = makeSymbolicTensor(2);
         TensorView* t1 = makeSymbolicTensor(2);
         f.addInput(t0);
         f.addInput(t1);
         TensorView* t2 = add(t0, t1);
         TensorView* t3 = mul(t2, constFloat(0.5, DataType::Float));
         TensorView* t4 = relu(sub(t3, t1));
         f.addOutput(t4);
         for (TensorView* tv : f.allTvs())
           if (!tv->isFusionInput()) flatten128(tv);
         inlineMost();
       },
       twoMatrices},
      {"bf16_float_math",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(1, DataType::BFloat16);
         f.addInput(t0);
         TensorView* t1 = castOp(DataType::Float, t0);
         TensorView* t2 = mul(exp(t1), t1);
         TensorView* t3 = castOp(DataType::BFloat16, t2);
         f.addOutput(t3);
         for (TensorView* tv : f.allTvs()) {
           if (tv->isFusionInput()) continue;
           tv->split(0, 128);
           gridBlock(tv);
         }
         inlineMost();
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n * 3}, DataType::BFloat16, seed)};
       },
       1e-2},
      {"broadcast_row_add",
       [](Fusion& f) {
         TensorView* t0 = makeSymbolicTensor(2);
         TensorView* t1 = makeSymbolicTensor(1);
         f.addInput(t0);
         f.addInput(t1);
         TensorView* t2 = broadcast(t1, {true, false});
         TensorView* t3 = add(t0, t2);
         f.addOutput(t3);
         t2->axis(1)->parallelize(ParallelType::TIDx);
         gridBlock(t3);
       },
       [](int64_t n, uint64_t seed) {
         int64_t m = n % 61 + 1;
         return std::vector<Tensor>{Tensor::random({n, m}, DataType::Float, seed),
                                    Tensor::random({m}, DataType::Float, seed + 1)};
       }},
      {"split_merge_grid_block",
       [](Fusion& f) {
         TensorView* t0 = makeSymbolicTensor(2);
         f.addInput(t0);
         TensorView* t1 = neg(t0);
         f.addOutput(t1);
         t1->merge(0)->split(0, 256)->split(1, 64);
         t1->axis(0)->parallelize(ParallelType::BIDx);
         t1->axis(1)->parallelize(ParallelType::Unroll);
         t1->axis(2)->parallelize(ParallelType::TIDx);
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n, n % 5 + 2}, DataType::Float, seed)};
       }},
      {"nondivisible_split",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(1);
         f.addInput(t0);
         TensorView* t1 = sin(t0);
         f.addOutput(t1);
         t1->split(0, 96);
         gridBlock(t1);
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n}, DataType::Float, seed)};
       },
       1e-6},
      {"vectorized_inner",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(2);
         f.addInput(t0);
         TensorView* t1 = set(t0);
         TensorView* t2 = mul(t1, constFloat(3.0, DataType::Float));
         TensorView* t3 = set(t2);
         f.addOutput(t3);
         for (TensorView* tv : {t1, t2, t3}) {
           tv->merge(0)->split(0, 4)->split(0, 128);
           gridBlock(tv);
         }
         t1->axis(2)->parallelize(ParallelType::Vectorize);
         t3->axis(2)->parallelize(ParallelType::Vectorize);
         inlineMost();
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n, 4 * (n % 3 + 1)}, DataType::Float, seed)};
       }},
      {"permuted_output_allocation",
       [](Fusion& f) {
         TensorView* t0 = makeSymbolicTensor(2);
         f.addInput(t0);
         TensorView* t1 = abs(t0);
         f.addOutput(t1);
         t1->setAllocationDomain({t1->axis(1), t1->axis(0)}, true);
         gridBlock(t1);
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n, n % 13 + 1}, DataType::Float, seed)};
       }},
      {"layout_op_manual",
       [](Fusion& f) {
         TensorView* in = makeSymbolicTensor(2);
         TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
         TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
         f.addInput(in);
         f.addInput(in_off);
         f.addInput(out_off);
         TensorView* cache = set(in);
         TensorView* out = preprocessGroupedMatmulInputSf(cache, in_off, out_off);
         f.addOutput(out);
         gridBlock(cache);
         gridBlock(out);
       },
       [](int64_t n, uint64_t seed) {
         // Three groups of n/3, n/3 and the rest rows (the first may be empty).
         int64_t a = n / 3, b = n / 3;
         int32_t ob = static_cast<int32_t>((a + 127) / 128 * 128);
         int32_t oc = ob + static_cast<int32_t>((b + 127) / 128 * 128);
         return std::vector<Tensor>{
             Tensor::random({n, 9}, DataType::Float, seed),
             Tensor::fromVector<int32_t>({0, static_cast<int32_t>(a), static_cast<int32_t>(a + b)},
                                         {3}),
             Tensor::fromVector<int32_t>({0, ob, oc}, {3})};
       }},
      {"layout_op_gather",
       [](Fusion& f) {
         TensorView* in = makeSymbolicTensor(2);
         TensorView* in_off = makeSymbolicTensor(1, DataType::Int32);
         TensorView* out_off = makeSymbolicTensor(1, DataType::Int32);
         f.addInput(in);
         f.addInput(in_off);
         f.addInput(out_off);
         TensorView* out = preprocessGroupedMatmulInputSf(in, in_off, out_off);
         f.addOutput(out);
         // Gather form: loop over the padded buffer, 4 floats (16 bytes) per thread.
         out->setLoopDomain(out->getMaybeAllocationDomain());
         out->merge(0)->split(0, 4)->split(0, 128);
         gridBlock(out);
         out->axis(2)->parallelize(ParallelType::Vectorize);
       },
       [](int64_t n, uint64_t seed) {
         // Three groups of n/3, n/3 and the rest rows (the first may be empty).
         int64_t a = n / 3, b = n / 3;
         int32_t ob = static_cast<int32_t>((a + 127) / 128 * 128);
         int32_t oc = ob + static_cast<int32_t>((b + 127) / 128 * 128);
         return std::vector<Tensor>{
             Tensor::random({n, 9}, DataType::Float, seed),
             Tensor::fromVector<int32_t>({0, static_cast<int32_t>(a), static_cast<int32_t>(a + b)},
                                         {3}),
             Tensor::fromVector<int32_t>({0, ob, oc}, {3})};
       }},
      // The layout op through the pointwise scheduler: the tile form (fp8, K = 448: 256
      // threads of 16 bytes per block, 8 column quads of a 128-row tile), and a scaled cast
      // before the op fused into its kernel, written per element.
      {"auto_layout_op_tile",
       [](Fusion& f) {
         TensorView* in = makeContigTensor(2, DataType::Float8_e4m3fn);
         TensorView* in_off = makeContigTensor(1, DataType::Int32);
         TensorView* out_off = makeContigTensor(1, DataType::Int32);
         f.addInput(in);
         f.addInput(in_off);
         f.addInput(out_off);
         f.addOutput(preprocessGroupedMatmulInputSf(in, in_off, out_off));
         autoSchedule(f, layoutInputs(300, 448, DataType::Float8_e4m3fn, 1));
       },
       [](int64_t n, uint64_t seed) {
         return layoutInputs(n, 448, DataType::Float8_e4m3fn, seed);
       }},
      {"auto_cast_layout_op",
       [](Fusion& f) {
         TensorView* in = makeContigTensor(2);
         TensorView* in_off = makeContigTensor(1, DataType::Int32);
         TensorView* out_off = makeContigTensor(1, DataType::Int32);
         f.addInput(in);
         f.addInput(in_off);
         f.addInput(out_off);
         TensorView* sf = castOp(DataType::Float8_e4m3fn, mul(in, constFloat(0.25)));
         f.addOutput(preprocessGroupedMatmulInputSf(sf, in_off, out_off));
         autoSchedule(f, layoutInputs(300, 28, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) { return layoutInputs(n, 28, DataType::Float, seed); }},
      // NVFP4 block quantization, four blocks of 16 of a row per thread (bf16 [n, 80] and
      // [n, 112]: each row's second call quantizes the one or three blocks left; the grouped op
      // with a global scale writes its scales through the layout op's scatter).
      {"auto_block_quantize",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2, DataType::BFloat16);
         f.addInput(x);
         BlockQuantizationResults r = blockQuantize(x);
         f.addOutput(r.quantized_tensor);
         f.addOutput(r.block_scales);
         autoSchedule(f, {Tensor::random({300, 80}, DataType::BFloat16, 1)});
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n, 80}, DataType::BFloat16, seed)};
       }},
      {"auto_grouped_block_quantize",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2, DataType::BFloat16);
         TensorView* in_off = makeContigTensor(1, DataType::Int32);
         TensorView* out_off = makeContigTensor(1, DataType::Int32);
         TensorView* gs = makeSymbolicTensor(0, DataType::Float);
         for (TensorView* tv : {x, in_off, out_off, gs}) f.addInput(tv);
         BlockQuantizationResults r =
             groupedBlockQuantize(x, in_off, out_off, BlockScalingFactorLayout::Block128x4, gs);
         f.addOutput(r.quantized_tensor);
         f.addOutput(r.block_scales);
         std::vector<Tensor> in = layoutInputs(300, 112, DataType::BFloat16, 1);
         in.push_back(Tensor::fromVector(std::vector<float>{0.37f}, {}));
         autoSchedule(f, in);
       },
       [](int64_t n, uint64_t seed) {
         std::vector<Tensor> in = layoutInputs(n, 112, DataType::BFloat16, seed);
         in.push_back(Tensor::fromVector(std::vector<float>{0.37f}, {}));
         return in;
       }},
      // Scheduled automatically (the pointwise scheduler's heuristics for 1000 rows).
      {"auto_add_mul",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         TensorView* y = makeContigTensor(2);
         f.addInput(x);
         f.addInput(y);
         f.addOutput(mul(add(x, y), constFloat(2.0)));
         autoSchedule(f, rows({{1000, 1024}, {1000, 1024}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 1024}, {n, 1024}}, DataType::Float, seed);
       }},
      {"auto_bias_relu",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         TensorView* b = makeContigTensor(1);
         f.addInput(x);
         f.addInput(b);
         f.addOutput(relu(add(x, broadcast(b, {true, false}))));
         autoSchedule(f, rows({{1000, 1024}, {1024}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 1024}, {1024}}, DataType::Float, seed);
       }},
      {"auto_column_mul",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         TensorView* c = TensorViewBuilder().shape({-1, 1}).contiguity(true).build();
         f.addInput(x);
         f.addInput(c);
         f.addOutput(mul(x, c));
         autoSchedule(f, rows({{1000, 1024}, {1000, 1}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 1024}, {n, 1}}, DataType::Float, seed);
       }},
      {"auto_gelu_bf16",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2, DataType::BFloat16);
         TensorView* y = makeContigTensor(2, DataType::BFloat16);
         f.addInput(x);
         f.addInput(y);
         f.addOutput(geluTanh(x, y));
         autoSchedule(f, rows({{1000, 1024}, {1000, 1024}}, DataType::BFloat16, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 1024}, {n, 1024}}, DataType::BFloat16, seed);
       },
       /*tolerance=*/0.02},
      // x row-major, the output column-major: the transpose scheduler (a 32x32 tile through
      // shared memory, 16-byte vectors on both sides), exp(b) computed per element.
      {"auto_exp_broadcast_permuted_output",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         TensorView* b = makeContigTensor(1);
         f.addInput(x);
         f.addInput(b);
         TensorView* out = sub(x, broadcast(exp(b), {false, true}));
         f.addOutput(out);
         out->setAllocationDomain({out->axis(1), out->axis(0)}, true);
         autoSchedule(f, rows({{1000, 1024}, {1000}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         // Vectors along both inner axes: M a multiple of 4.
         const int64_t m = 4 * std::min<int64_t>(n, 1024);
         return rows({{m, 1024}, {m}}, DataType::Float, seed);
       },
       /*tolerance=*/1e-5},
      // The transpose scheduler (heuristics for fp32 [256, 512]): a 32x32 tile per block,
      // loaded as 16-byte vectors along x's rows into a shared tile padded to rows of 33,
      // read after a barrier along its columns and stored as 16-byte vectors of y's rows.
      {"auto_transpose",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         f.addInput(x);
         f.addOutput(mul(transpose(x, 0, 1), constFloat(2.0)));
         autoSchedule(f, rows({{256, 512}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         // Both inner extents a multiple of the 4-element vectors.
         return rows({{4 * std::min<int64_t>(n, 1024), 4 * (n % 7 + 9)}}, DataType::Float, seed);
       },
       /*tolerance=*/0},
      // Threads along the kept (contiguous) axis, each summing its column serially; the sum
      // accumulates in the output.
      {"outer_reduction",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(2);
         f.addInput(t0);
         TensorView* t1 = sum(t0, {0});
         f.addOutput(t1);
         t1->reorder({{0, 1}})->split(0, 128);
         gridBlock(t1);
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n % 37 + 1, n}, DataType::Float, seed)};
       },
       1e-5},
      // The outer reduction's vector by hand, serial: each thread loads 4 adjacent columns of
      // a row with one vector copy and keeps 4 running sums (an iteration axis inside the
      // reduction loop: the init's own loop over it), then stores them as one vector.
      {"outer_reduction_vector_serial",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(2);
         f.addInput(t0);
         TensorView* t1 = sum(t0, {0});
         f.addOutput(t1);
         TensorView* copy = t0->cacheAfter();
         TensorView* acc = t1->cacheBefore();
         // [r0, i1] -> [i1/4/128: BIDx, 128: TIDx, r0, 4]; the output [i1] -> [BIDx, TIDx, 4].
         for (TensorView* tv : {copy, acc}) tv->split(1, 4)->reorder({{1, 0}})->split(0, 128);
         t1->split(0, 4)->split(0, 128);
         for (TensorView* tv : {copy, acc, t1}) {
           gridBlock(tv);
           tv->axis(-1)->parallelize(tv == acc ? ParallelType::Unroll : ParallelType::Vectorize);
         }
         inlineMost();
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n % 37 + 1, 4 * n}, DataType::Float, seed)};
       },
       1e-5},
      // One row per thread: half inputs cast to float inside the reduction loop, the float
      // accumulator in a register, the result cast back to half.
      {"inner_reduction_serial_half",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(2, DataType::Half);
         f.addInput(t0);
         TensorView* t3 = max(t0, {1});
         f.addOutput(t3);
         for (TensorView* tv : f.allTvs()) {
           if (tv->isFusionInput()) continue;
           tv->split(0, 128);
           gridBlock(tv);
         }
         inlineMost();
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n, n % 29 + 1}, DataType::Half, seed)};
       }},
      // Rows reduced by a block: each of 128 threads sums a strided slice of its row serially
      // (the rfactor tensor, in a register), then the block all-reduces the partial sums.
      {"inner_reduction_block",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(2);
         f.addInput(t0);
         TensorView* t1 = sum(t0, {1});
         f.addOutput(t1);
         blockRowReduction(t1);
         inlineMost();
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n % 31 + 1, n}, DataType::Float, seed)};
       },
       1e-5},
      // Softmax over rows of 1024, one row per block of 128 threads: each thread keeps its 8
      // exponentials in registers (T4), two block all-reduces (max, then sum) give every
      // thread the row's values, and the input is read twice from global memory (the second
      // read hits L1/L2), the output written once.
      {"softmax_block",
       [](Fusion& f) {
         TensorView* x = makeContigConcreteTensor({-1, 1024});
         f.addInput(x);
         TensorView* m = max(x, {1});
         TensorView* mb = broadcast(m, {false, true});
         TensorView* e = exp(sub(x, mb));
         TensorView* z = sum(e, {1});
         TensorView* out = div(e, broadcast(z, {false, true}));
         f.addOutput(out);
         for (TensorView* red : {m, z}) blockRowReduction(red);
         for (TensorView* tv : f.allTvs()) {
           if (tv->isFusionInput() || tv->getLogicalDomain().size() != 2 ||
               tv->axis(1)->isReduction() || tv->definition()->isA<ReductionOp>())
             continue;
           tv->split(1, 128)->reorder({{1, 2}});
           gridBlock(tv);
         }
         inlineMost();
         e->inlineAt(2);  // the row stays in registers for both the sum and the division
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n % 17 + 1, 1024}, DataType::Float, seed)};
       },
       1e-5},
      // Softmax scheduled by the inner persistent scheduler (bf16 rows of 4096: a block of
      // 128 threads per row, each holding 4 vectors of 8): the row is read from global memory
      // once (one vector copy of T0), kept in registers as float across the max and the sum
      // (two block all-reduces), and written with vector stores. Compare softmax_block, which
      // reads its input twice.
      {"auto_softmax_bf16",
       [](Fusion& f) {
         buildSoftmax(f, DataType::BFloat16);
         autoSchedule(f, rows({{1000, 4096}}, DataType::BFloat16, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 4096}}, DataType::BFloat16, seed);
       },
       /*tolerance=*/0.02},
      // Threads exchange data through shared memory: 128 threads stage a tile, then 64
      // threads each read two neighbouring elements written by other threads (a barrier
      // between, from insertSyncs).
      {"shared_memory_exchange",
       [](Fusion& f) {
         TensorView* t0 = makeContigTensor(1);
         f.addInput(t0);
         TensorView* t1 = set(t0);
         TensorView* t2 = exp(t1);
         f.addOutput(t2);
         t1->setMemoryType(MemoryType::Shared);
         t1->split(0, 128);
         gridBlock(t1);
         t2->split(0, 128)->split(1, 2);
         gridBlock(t2);
         t1->inlineAt(1);
       },
       [](int64_t n, uint64_t seed) {
         return std::vector<Tensor>{Tensor::random({n}, DataType::Float, seed)};
       },
       1e-6},
      // Scheduled automatically by the reduction scheduler (heuristics for [1000, 1024]): 4
      // rows per block on threadIdx.y, a warp per row on threadIdx.x, each thread summing 8
      // 16-byte vectors (4 unrolled), then an all-reduce over threadIdx.x. Tolerance: the sum
      // rule of docs/numerics.md for 1024 terms uniform in [-2, 2) (sum |x| about 1024) at
      // depth 32 + 5: 5 * sqrt(37) * 2^-24 * 1024 = 1.9e-3.
      {"auto_inner_reduction",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         f.addInput(x);
         f.addOutput(sum(x, {1}));
         autoSchedule(f, rows({{1000, 1024}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 1024}}, DataType::Float, seed);
       },
       2e-3},
      // The outer form (heuristics for [1000, 1024] summed over axis 0): 32 columns per block
      // on threadIdx.x; 32 column blocks are fewer than the SMs, so 4 blocks on blockIdx.y
      // share each column's rows. In a block, 16 threads of threadIdx.y each sum every 16th
      // row of the block's chunk (unrolled by 4), a block all-reduce over threadIdx.y, then
      // the grid reduction (mf_gridAllReduceY) in the last of the 4 blocks.
      {"auto_outer_reduction",
       [](Fusion& f) {
         TensorView* x = makeContigTensor(2);
         f.addInput(x);
         f.addOutput(sum(x, {0}));
         autoSchedule(f, rows({{1000, 1024}}, DataType::Float, 1));
       },
       [](int64_t n, uint64_t seed) {
         return rows({{n, 1024}}, DataType::Float, seed);
       },
       1e-4},
  };
  return cases;
}

}  // namespace mf::testing
