// GPU: the layout op on docs/layout_op.md's examples and random group sizes (empty groups included)
// matches the reference on every logical element; bad offsets raise the error flag instead
// of writing out of bounds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "cuda/driver.h"
#include "executor/kernel_executor.h"
#include "minifuser/minifuser.h"
#include "unit/ops/layout_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class LayoutOpGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

// Scatter and Gather by hand, Tile by hand (the gather loops, 256 threads of 16 bytes),
// Auto: the FusionExecutorCache's schedule on device tensors.
enum class Form { Scatter, Gather, Tile, Auto };

struct LayoutInputs {
  TensorView* in;
  TensorView* in_off;
  TensorView* out_off;
};

// The op's three inputs, symbolic, added to `f`.
LayoutInputs addLayoutInputs(Fusion& f, DataType dtype, DataType offset_dtype) {
  LayoutInputs l{makeSymbolicTensor(2, dtype), makeSymbolicTensor(1, offset_dtype),
                 makeSymbolicTensor(1, offset_dtype)};
  f.addInput(l.in);
  f.addInput(l.in_off);
  f.addInput(l.out_off);
  return l;
}

// The op alone, unscheduled (Form::Auto); returns its output.
TensorView* buildAuto(Fusion& f, DataType dtype, DataType offset_dtype) {
  const LayoutInputs l = addLayoutInputs(f, dtype, offset_dtype);
  TensorView* out = preprocessGroupedMatmulInputSf(l.in, l.in_off, l.out_off);
  f.addOutput(out);
  return out;
}

// Gather form: the loops run over the padded buffer, 16 bytes per thread, 128 threads (the
// tile form: 256 threads).
void buildGather(Fusion& f, DataType dtype, DataType offset_dtype, Form form = Form::Gather) {
  TensorView* out = buildAuto(f, dtype, offset_dtype);
  out->setLoopDomain(out->getMaybeAllocationDomain());
  out->merge(0)->split(0, 16 / dataTypeSize(dtype))->split(0, form == Form::Tile ? 256 : 128);
  out->axis(0)->parallelize(ParallelType::BIDx);
  out->axis(1)->parallelize(ParallelType::TIDx);
  out->axis(2)->parallelize(ParallelType::Vectorize);
  if (form == Form::Tile)
    out->definition()->as<PreprocessGroupedMatmulInputSf>()->setForm(LayoutOpForm::Tile);
}

// inp -> set -> layout op, axis 0 on BIDx, axis 1 on TIDx (nvFuser's ManualKernel).
void buildManual(Fusion& f, DataType dtype, DataType offset_dtype, Form form = Form::Scatter) {
  if (form == Form::Gather || form == Form::Tile) return buildGather(f, dtype, offset_dtype, form);
  if (form == Form::Auto) {
    buildAuto(f, dtype, offset_dtype);
    return;
  }
  const LayoutInputs l = addLayoutInputs(f, dtype, offset_dtype);
  TensorView* cache = set(l.in);
  TensorView* out = preprocessGroupedMatmulInputSf(cache, l.in_off, l.out_off);
  f.addOutput(out);
  for (TensorView* tv : {cache, out}) {
    tv->axis(0)->parallelize(ParallelType::BIDx);
    tv->axis(1)->parallelize(ParallelType::TIDx);
  }
}

// GPU result equals the reference's padded buffer on every logical element's position
// (pads are uninitialized on the GPU, as in nvFuser, so only written positions compare).
void runAndCompare(const std::vector<int64_t>& tokens, int64_t k, DataType dtype,
                   DataType offset_dtype, uint64_t seed, Form form = Form::Scatter) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildManual(fusion, dtype, offset_dtype, form);
  int64_t m = 0;
  for (int64_t t : tokens) m += t;
  auto [in_off, out_off] = testing::layoutOffsets(tokens);
  std::vector<Tensor> inputs = {Tensor::random({m, k}, dtype, seed),
                                testing::layoutOffsetTensor(in_off, offset_dtype),
                                testing::layoutOffsetTensor(out_off, offset_dtype)};
  KernelExecutor ke;
  std::unique_ptr<FusionExecutorCache> fec;
  Tensor out;
  if (form == Form::Auto) {
    // Device inputs (the offsets too: checked by the kernel); the cache allocates the output.
    fec = std::make_unique<FusionExecutorCache>(std::make_unique<Fusion>(fusion));
    std::vector<Tensor> on_device;
    for (const Tensor& t : inputs) on_device.push_back(t.toDevice());
    out = fec->runFusionWithInputs(on_device)[0].toHost();
    // (No rows: nothing to compute, no kernel.)
    if (m > 0) {
      EXPECT_THAT(fec->getMostRecentCode(), HasSubstr("mf_layoutOpTile<"));
    }
  } else {
    ke.compile(&fusion, inputs);
    out = ke.run(inputs, {.poison_outputs = true})[0];
  }
  // The reference with NaN pads marks exactly the positions that must be written.
  Tensor ref = ReferenceEvaluator(&fusion).run(inputs, {.layout_pad_fill = std::nullopt})[0];
  Tensor zero_pads = ReferenceEvaluator(&fusion).run(inputs, {.layout_pad_fill = 0.0})[0];
  Tensor one_pads = ReferenceEvaluator(&fusion).run(inputs, {.layout_pad_fill = 1.0})[0];
  ASSERT_EQ(out.allocationSizes(), ref.allocationSizes());
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{m, k}));
  EXPECT_EQ(out.usedRows(), ref.usedRows());
  int64_t checked = 0, bad = 0;
  for (int64_t p = 0; p < ref.allocationNumel() && bad < 5; ++p) {
    // A position is logical when the pad fill does not show through.
    if (zero_pads.allocationItem(p) != one_pads.allocationItem(p)) continue;
    ++checked;
    if (out.allocationItem(p) != zero_pads.allocationItem(p) && ++bad)
      ADD_FAILURE() << "position " << p << ": gpu " << out.allocationItem(p) << " reference "
                    << zero_pads.allocationItem(p);
  }
  EXPECT_EQ(checked, m * k);

  // The gather and tile forms write every position of the used rows, pads as 0, even when
  // poisoned (the cache's outputs are not poisoned: fresh memory, whatever it held).
  if (form != Form::Scatter) {
    int64_t used = *ref.usedRows() * ref.allocationSizes()[1];
    for (int64_t p = 0, bad_used = 0; p < used && bad_used < 5; ++p)
      if (out.allocationItem(p) != zero_pads.allocationItem(p) && ++bad_used)
        ADD_FAILURE() << "gather form, position " << p << ": gpu " << out.allocationItem(p)
                      << " reference " << zero_pads.allocationItem(p);
  }

  // With zero-filled pads the whole padded buffer is deterministic and equals the reference.
  if (form == Form::Auto) return;
  Tensor zeroed = ke.run(inputs, {.zero_fill_layout_pads = true})[0];
  for (int64_t p = 0, bad_pads = 0; p < ref.allocationNumel() && bad_pads < 5; ++p)
    if (zeroed.allocationItem(p) != zero_pads.allocationItem(p) && ++bad_pads)
      ADD_FAILURE() << "zero-filled run, position " << p << ": gpu " << zeroed.allocationItem(p)
                    << " reference " << zero_pads.allocationItem(p);
}

// Spec example: tokens [2, 3, 5], K = 4.
TEST_F(LayoutOpGpu, SpecExampleSmall) {
  runAndCompare({2, 3, 5}, 4, DataType::Float, DataType::Int32, 1);
}

// Spec example: tokens [100, 150, 262], K = 9 (element (300, 5) at 5413).
TEST_F(LayoutOpGpu, SpecExampleNvfuserTestData) {
  runAndCompare({100, 150, 262}, 9, DataType::Float, DataType::Int32, 2);
}

// fp8 scale factors (bytes), Int64 offsets, an empty group.
TEST_F(LayoutOpGpu, Fp8WithEmptyGroupAndInt64Offsets) {
  runAndCompare({3, 0, 130, 1}, 7, DataType::Float8_e4m3fn, DataType::Int64, 3);
}

// Random group sizes, some empty, K prime.
TEST_F(LayoutOpGpu, RandomGroups) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<int64_t> tokens;
    for (int g = 0; g < 1 + trial * 3; ++g)
      tokens.push_back(static_cast<int64_t>(rng() % 300) * (rng() % 4 != 0));
    tokens.push_back(1);
    runAndCompare(tokens, 13 + trial * 4, DataType::Float, DataType::Int32, 10 + trial);
  }
}

// The gather form on the same data: spec examples, fp8 with an empty group, random groups.
TEST_F(LayoutOpGpu, GatherFormMatchesReference) {
  runAndCompare({2, 3, 5}, 4, DataType::Float, DataType::Int32, 21, Form::Gather);
  runAndCompare({100, 150, 262}, 9, DataType::Float, DataType::Int32, 22, Form::Gather);
  runAndCompare({3, 0, 130, 1}, 7, DataType::Float8_e4m3fn, DataType::Int64, 23, Form::Gather);
  runAndCompare({0, 1000, 1, 257}, 448, DataType::Float8_e4m3fn, DataType::Int32, 24, Form::Gather);
  runAndCompare({77}, 1, DataType::BFloat16, DataType::Int32, 25, Form::Gather);
}

// The tile form, by hand and through the automatic path: random group sizes with empty
// groups and groups of exactly 128 rows, up to 256 groups, K in {4, 5, 448, 512}, fp8, bf16
// and fp32 scale factors, both offset dtypes.
// (Small: what the sanitizer step runs; Large: up to 256 groups.)
void tileFormCases(const std::vector<int64_t>& group_counts, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const DataType dtypes[] = {DataType::Float8_e4m3fn, DataType::BFloat16, DataType::Float};
  const int64_t ks[] = {4, 5, 448, 512};
  int trial = 0;
  for (int64_t k : ks)
    for (int64_t g : group_counts) {
      std::vector<int64_t> tokens;
      for (int64_t e = 0; e < g; ++e) {
        const uint64_t kind = rng() % 5;
        tokens.push_back(kind == 0 ? 0 : kind == 1 ? 128 : static_cast<int64_t>(rng() % 300));
      }
      const DataType dtype = dtypes[trial % 3];
      const DataType off = trial % 2 ? DataType::Int64 : DataType::Int32;
      SCOPED_TRACE(fmt::format("K = {}, G = {}, {}", k, g, toString(dtype)));
      runAndCompare(tokens, k, dtype, off, 100 + trial, Form::Tile);
      runAndCompare(tokens, k, dtype, off, 200 + trial, Form::Auto);
      ++trial;
    }
}

TEST_F(LayoutOpGpu, TileFormMatchesReferenceSmall) {
  tileFormCases({1, 3}, 2024);
}

TEST_F(LayoutOpGpu, TileFormMatchesReferenceLarge) {
  tileFormCases({32, 256}, 2025);
}

// The explicit quantization pattern (LayoutOpTest.SchedulerKernelWithExplicitQuantizationPattern)
// on the device: an inner persistent kernel (reshape, block max, divide, reshape; the maxima a
// per-row output) and the layout op's tile kernel, on device inputs with poisoned outputs;
// both outputs equal the reference. One row, a prime number of rows with an empty group and
// a group of 128, and long rows.
TEST_F(LayoutOpGpu, ExplicitQuantizationPatternMatchesReference) {
  struct Case {
    int64_t m, k;
    std::vector<int64_t> tokens;
  };
  const std::vector<Case> cases = {
      {1, 16, {1}}, {509, 144, {100, 0, 128, 281}}, {1000, 4096, {999, 1}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("M = {}, K = {}", c.m, c.k));
    auto fusion = std::make_unique<Fusion>();
    {
      FusionGuard fg(fusion.get());
      const LayoutInputs l = addLayoutInputs(*fusion, DataType::Float, DataType::Int32);
      TensorView* r = reshape(l.in, {c.m, c.k}, {c.m, c.k / 16, 16});
      TensorView* sf = max(abs(r), {2});
      fusion->addOutput(
          reshape(div(r, broadcast(sf, {false, false, true})), {c.m, c.k / 16, 16}, {c.m, c.k}));
      fusion->addOutput(preprocessGroupedMatmulInputSf(sf, l.in_off, l.out_off));
    }
    FusionExecutorCache fec(std::move(fusion));
    auto [io, oo] = testing::layoutOffsets(c.tokens);
    const std::vector<Tensor> host = {Tensor::random({c.m, c.k}, DataType::Float, 31),
                                      testing::layoutOffsetTensor(io, DataType::Int32),
                                      testing::layoutOffsetTensor(oo, DataType::Int32)};
    std::vector<Tensor> dev;
    for (const Tensor& t : host) dev.push_back(t.toDevice());
    std::vector<Tensor> out = fec.runFusionWithInputs(dev, {.poison_outputs = true});
    FusionKernelRuntime* rt = fec.getMostRecentKernelRuntime();
    // One row of one block: [1, 1, 16] has no rows to spread (size-1 axes are broadcasts), so
    // it is more segments and the layout op's is the per-element form
    // (LayoutOpTest.ExplicitQuantizationPatternOfOneBlockIsPerElement); values are checked.
    if (c.m * c.k > 16) {
      ASSERT_EQ(rt->fusionSegments()->groups().size(), 2u) << rt->fusionSegments()->toString();
      EXPECT_EQ(rt->heuristics().at(0)->schedulerType(), SchedulerType::InnerPersistent);
    }
    const std::vector<Tensor> ref = ReferenceEvaluator(fec.fusion()).run(host);
    const Tensor scaled = out.at(0).toHost();
    for (int64_t i = 0; i < ref[0].numel(); ++i)
      ASSERT_NEAR(scaled.item(i), ref[0].item(i), 1e-6 * (1 + std::abs(ref[0].item(i))))
          << "output 0 element " << i;
    Tensor sf = Tensor::empty({c.m, c.k / 16}, DataType::Float);
    for (int64_t row = 0; row < c.m; ++row)
      for (int64_t b = 0; b < c.k / 16; ++b) {
        double mx = 0;
        for (int64_t j = 0; j < 16; ++j) mx = std::max(mx, std::abs(host[0].at({row, b * 16 + j})));
        sf.data<float>()[row * (c.k / 16) + b] = static_cast<float>(mx);
      }
    // The tile form writes the pads of used rows; the per-element form leaves them as nvFuser.
    bool tile = false;
    for (const HeuristicParams* p : rt->heuristics())
      tile = tile || p->toString().find("layout op: tile") != std::string::npos;
    EXPECT_EQ(tile, c.m * c.k > 16);
    testing::expectGroupedLayout(out.at(1).toHost(), sf, io, oo, /*pads_zero=*/tile);
  }
}

// Bad offsets on device tensors through the automatic path (the tile form): the kernel's
// flag is raised, the run throws, nothing is written outside the buffer (memcheck).
TEST_F(LayoutOpGpu, TileFormBadDeviceOffsetsRaiseErrorFlag) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildAuto(fusion, DataType::Float8_e4m3fn, DataType::Int32);
  FusionExecutorCache fec(std::make_unique<Fusion>(fusion));
  const std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> bad = {
      {{0, 250, 100}, {0, 256, 384}},    // decreasing input offsets
      {{0, 100, 250}, {0, 64, 9000}},    // output offsets past the buffer
      {{5, 100, 250}, {0, 128, 384}},    // not starting at 0
      {{0, 100, 9999}, {0, 128, 256}}};  // past M
  for (const auto& [io, oo] : bad) {
    std::vector<Tensor> inputs = {Tensor::random({300, 448}, DataType::Float8_e4m3fn, 5).toDevice(),
                                  Tensor::fromVector<int32_t>(io, {3}).toDevice(),
                                  Tensor::fromVector<int32_t>(oo, {3}).toDevice()};
    EXPECT_THAT([&] { fec.runFusionWithInputs(inputs); },
                ThrowsMessage<UserError>(HasSubstr("preprocessGroupedMatmulInputSf")));
  }
}

// Bad offsets in the gather form: the flag is raised and the run throws.
TEST_F(LayoutOpGpu, GatherFormBadOffsetsRaiseErrorFlag) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildManual(fusion, DataType::Float, DataType::Int32, Form::Gather);
  // Device offsets: checked by the kernel (host offsets are checked before the launch).
  std::vector<Tensor> inputs = {Tensor::random({300, 5}, DataType::Float, 5),
                                Tensor::fromVector<int32_t>({0, 250, 100}, {3}).toDevice(),
                                Tensor::fromVector<int32_t>({0, 256, 384}, {3}).toDevice()};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  EXPECT_THAT([&] { ke.run(inputs); },
              ThrowsMessage<UserError>(
                  AllOf(HasSubstr("preprocessGroupedMatmulInputSf"), HasSubstr("input_offsets"))));
}

// Output offsets that do not leave room for a group: the flag is raised, nothing is
// written outside the buffer, and the run throws a UserError naming the op.
TEST_F(LayoutOpGpu, BadOffsetsRaiseErrorFlag) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildManual(fusion, DataType::Float, DataType::Int32);
  std::vector<Tensor> inputs = {Tensor::random({300, 5}, DataType::Float, 5),
                                Tensor::fromVector<int32_t>({0, 100, 250}, {3}).toDevice(),
                                Tensor::fromVector<int32_t>({0, 64, 9000}, {3}).toDevice()};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  EXPECT_THAT([&] { ke.run(inputs); },
              ThrowsMessage<UserError>(
                  AllOf(HasSubstr("preprocessGroupedMatmulInputSf"), HasSubstr("output_offsets"))));
}

}  // namespace
}  // namespace mf
