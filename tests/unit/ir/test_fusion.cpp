// Fusion: inputs and outputs (what may be one, and what becoming one does), definitions and
// uses kept both ways, and removing an expr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/arith.h"
#include "ops/tensor_factories.h"
#include "support/options.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// Tensor inputs and outputs move to global memory; intermediates stay local; scalar inputs
// are allowed.
TEST(Fusion, InputsAndOutputsAreGlobal) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  Val* s = newScalar(DataType::Float);
  EXPECT_EQ(tv0->getMemoryType(), MemoryType::Local);
  fusion.addInput(tv0);
  fusion.addInput(s);
  TensorView* tv1 = mul(tv0, s);
  TensorView* tv2 = neg(tv1);
  fusion.addOutput(tv2);
  EXPECT_EQ(tv0->getMemoryType(), MemoryType::Global);
  EXPECT_EQ(tv1->getMemoryType(), MemoryType::Local);
  EXPECT_EQ(tv2->getMemoryType(), MemoryType::Global);
  EXPECT_TRUE(tv0->isFusionInput());
  EXPECT_TRUE(s->isFusionInput());
  EXPECT_TRUE(tv2->isFusionOutput());
  EXPECT_FALSE(tv1->isFusionInput() || tv1->isFusionOutput());
  EXPECT_EQ(fusion.inputs(), (std::vector<Val*>{tv0, s}));
}

// An input must be a symbolic tensor or scalar of this fusion, without a definition, listed
// once.
TEST(Fusion, AddInputErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = makeSymbolicTensor(2);
  TensorView* tv2 = add(tv0, tv1);
  EXPECT_THAT([&] { fusion.addInput(constInt(3)); },
              ThrowsMessage<UserError>(
                  HasSubstr("addInput: 3 is a constant; only symbolic values can be inputs")));
  EXPECT_THAT([&] { fusion.addInput(tv2); },
              ThrowsMessage<UserError>(
                  HasSubstr("addInput: T2 is computed by `T2_l_float[iS4{i0}, iS5{i1}] = T0 + "
                            "T1`; an input cannot have a definition")));
  fusion.addInput(tv0);
  EXPECT_THAT([&] { fusion.addInput(tv0); },
              ThrowsMessage<UserError>(HasSubstr("addInput: T0 is already an input")));
  EXPECT_THAT(
      [&] { fusion.addInput(tv1->axis(0)); },
      ThrowsMessage<UserError>(HasSubstr("addInput: iS2{i2} is neither a tensor nor a scalar")));
  Fusion other;
  TensorView* foreign = nullptr;
  {
    FusionGuard other_guard(&other);
    foreign = makeSymbolicTensor(1);
  }
  EXPECT_THAT([&] { fusion.addInput(foreign); },
              ThrowsMessage<UserError>(
                  HasSubstr("addInput: T0_l_float[iS0{i0}] belongs to another fusion")));
  EXPECT_EQ(fusion.inputs(), std::vector<Val*>{tv0});
}

// An output must be a tensor of this fusion, listed once.
TEST(Fusion, AddOutputErrors) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  fusion.addInput(tv0);
  TensorView* tv1 = exp(tv0);
  Val* s = newScalar(DataType::Index);
  EXPECT_THAT(
      [&] { fusion.addOutput(s); },
      ThrowsMessage<UserError>(HasSubstr("addOutput: i1 is not a tensor; outputs are tensors")));
  fusion.addOutput(tv1);
  EXPECT_THAT([&] { fusion.addOutput(tv1); },
              ThrowsMessage<UserError>(HasSubstr("addOutput: T1 is already an output")));
  Fusion other;
  TensorView* foreign = nullptr;
  {
    FusionGuard other_guard(&other);
    foreign = makeSymbolicTensor(1);
  }
  EXPECT_THAT([&] { fusion.addOutput(foreign); },
              ThrowsMessage<UserError>(
                  HasSubstr("addOutput: T0_l_float[iS0{i0}] belongs to another fusion")));
  EXPECT_EQ(fusion.outputs(), std::vector<Val*>{tv1});
}

// An expr is the definition of its outputs and a use of each input (once, even when the
// input appears twice).
TEST(Fusion, DefinitionsAndUses) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = mul(tv0, tv0);
  TensorView* tv2 = exp(tv0);
  EXPECT_EQ(tv0->definition(), nullptr);
  EXPECT_EQ(tv0->uses(), (std::vector<Expr*>{tv1->definition(), tv2->definition()}));
  EXPECT_EQ(tv1->definition()->inputs(), (std::vector<Val*>{tv0, tv0}));
  EXPECT_EQ(tv1->definition()->outputs(), std::vector<Val*>{tv1});
}

// removeExpr detaches an expr from its operands: the output loses its definition, the inputs
// lose the use.
TEST(Fusion, RemoveExpr) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(1);
  TensorView* tv1 = relu(tv0);
  size_t count = fusion.statements().size();
  fusion.removeExpr(tv1->definition());
  EXPECT_EQ(tv1->definition(), nullptr);
  EXPECT_TRUE(tv0->uses().empty());
  EXPECT_EQ(fusion.statements().size(), count - 1);
}

// Statement kinds and names: tensors, axes, and scalars count separately; exprs have their own
// counter; isA/as check the class.
TEST(Fusion, NamesAndKinds) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv0 = makeSymbolicTensor(2);
  TensorView* tv1 = neg(tv0);
  EXPECT_EQ(tv0->name(), 0);
  EXPECT_EQ(tv1->name(), 1);
  EXPECT_EQ(tv1->axis(1)->name(), 3);
  EXPECT_EQ(tv1->axis(1)->extent()->name(), 1);
  EXPECT_EQ(tv1->definition()->name(), 0);
  EXPECT_EQ(tv1->kind(), ValKind::TensorView);
  EXPECT_EQ(tv1->definition()->kind(), ExprKind::UnaryOp);
  EXPECT_EQ(tv1->definition()->opName(), "UnaryOp");
  EXPECT_TRUE(tv1->isA<Val>());
  EXPECT_FALSE(tv1->isA<Expr>());
  EXPECT_TRUE(tv1->definition()->isExpr());
}

// The options are read when the first Fusion is built, so an unknown MINIFUSER_DUMP name
// fails there, before any lowering or compile. A fresh process (the options are read once
// per process): the death test re-runs this test alone with the bad environment.
TEST(FusionOptions, UnknownDumpNameFailsAtTheFirstFusion) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("MINIFUSER_DUMP", "kernal_ir", 1);
        try {
          Fusion fusion;
        } catch (const UserError& e) {
          std::cerr << e.what() << std::endl;
          std::_Exit(3);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(3), "MINIFUSER_DUMP: unknown option 'kernal_ir'; valid options");
}

}  // namespace
}  // namespace mf
