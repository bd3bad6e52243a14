// The layout op's gather form: a loop domain derived from the declared (padded) allocation
// domain, lowered to one runtime call per vector of the buffer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "cuda/nvrtc.h"
#include "cuda/runtime_sources.h"
#include "minifuser/minifuser.h"
#include "unit/lower/lower_test_utils.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

struct LayoutFusion {
  TensorView* in;
  TensorView* out;
};

LayoutFusion buildLayout(Fusion& f, DataType dtype, bool cache_input = false) {
  TensorView* in = makeContigTensor(2, dtype);
  TensorView* in_off = makeContigTensor(1, DataType::Int32);
  TensorView* out_off = makeContigTensor(1, DataType::Int32);
  f.addInput(in);
  f.addInput(in_off);
  f.addInput(out_off);
  TensorView* src = cache_input ? set(in) : in;
  TensorView* out = preprocessGroupedMatmulInputSf(src, in_off, out_off);
  f.addOutput(out);
  return {in, out};
}

void scheduleGather(TensorView* out, int64_t width) {
  out->setLoopDomain(out->getMaybeAllocationDomain());
  out->merge(0)->split(0, width)->split(0, 256);
  out->axis(0)->parallelize(ParallelType::BIDx);
  out->axis(1)->parallelize(ParallelType::TIDx);
  out->axis(2)->parallelize(ParallelType::Vectorize);
}

// A declared allocation domain may be the loop source; the history is printed from it and
// the fusion verifies.
TEST(LayoutGather, LoopDomainFromDeclaredAllocation) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  LayoutFusion l = buildLayout(fusion, DataType::Float8_e4m3fn);
  EXPECT_FALSE(l.out->domain()->loopFromAllocation());
  scheduleGather(l.out, 16);
  EXPECT_TRUE(l.out->domain()->loopFromAllocation());
  EXPECT_EQ(l.out->domain()->loopSource(), l.out->getMaybeAllocationDomain());
  verifyFusion(fusion);
  EXPECT_THAT(fusion.transformsString(),
              HasSubstr("Merge: iS6{( i0 + ( i2 * 127 ) )} and iS7{( ceilDiv(i1, 4) * 4 )}"));
  EXPECT_THAT(l.out->toString(), HasSubstr("iV"));
}

// An axis derived from neither logical nor a declared allocation is rejected.
TEST(LayoutGather, UnrelatedLoopDomainIsRejected) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  LayoutFusion l = buildLayout(fusion, DataType::Float);
  IterDomain* stray = l.out->axis(0)->freshCopy();
  EXPECT_THAT(
      [&] {
        l.out->setLoopDomain({stray, l.out->axis(1)});
      },
      ThrowsMessage<UserError>(HasSubstr("is not derived from")));
}

// The gather form reads its input at data-dependent rows: a computed input is a user error.
TEST(LayoutGather, InputMustBeFusionInput) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  LayoutFusion l = buildLayout(fusion, DataType::Float, /*cache_input=*/true);
  scheduleGather(l.out, 4);
  EXPECT_THAT([&] { lowerFusion(fusion); },
              ThrowsMessage<UserError>(
                  HasSubstr("reads its input T3_l_float[iS4{i0}, iS5{i1}] at data-dependent rows, "
                            "so the input must be a fusion input")));
}

// Lowering passes the flat position (the merged loop index times the vector width) to the
// gather function with the vector width as template argument; the kernel compiles.
TEST(LayoutGather, GeneratesGatherCallThatCompiles) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  LayoutFusion l = buildLayout(fusion, DataType::Float8_e4m3fn);
  scheduleGather(l.out, 16);
  std::unique_ptr<Kernel> kernel = lowerFusion(fusion, {.verify = true});
  GeneratedKernel code = generateCuda(*kernel, cuda::runtimePrelude());
  EXPECT_THAT(code.kernel_code, HasSubstr("mf_layoutOpGather<mf_fp8e4m3, int, 16>(T3.data, "));
  EXPECT_THAT(code.kernel_code,
              HasSubstr("(((((mf_index_t)blockIdx.x) * 256) + ((mf_index_t)threadIdx.x)) * 16)"));
  EXPECT_FALSE(cuda::compileWithNvrtc(code.full_source, code.name, {}).cubin.empty());
}

}  // namespace
}  // namespace mf
