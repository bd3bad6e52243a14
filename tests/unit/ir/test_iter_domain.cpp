// IterDomainBuilder, the one way an IterDomain is made (a copy carries every field), and
// visitIdExpr, the one dispatch over the IterDomain exprs (Split, Merge).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "ir/builder.h"
#include "ir/cloner.h"
#include "ir/fusion.h"
#include "ir/tensor_view.h"
#include "ops/tensor_factories.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {
namespace {

// A new axis is Iteration and serial unless the builder says otherwise.
TEST(IterDomainBuilder, NewAxisDefaults) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* n = newScalar(DataType::Index);
  IterDomain* id = IterDomainBuilder(n).build();
  EXPECT_EQ(id->extent(), n);
  EXPECT_EQ(id->iterType(), IterType::Iteration);
  EXPECT_EQ(id->parallelType(), ParallelType::Serial);
  EXPECT_EQ(id->fusion(), &fusion);
  IterDomain* b = IterDomainBuilder(constInt(1)).iterType(IterType::Broadcast).build();
  EXPECT_EQ(b->toString(), "bS1{1}");
}

// IterDomainBuilder(id) copies the extent, the IterType and the parallel type; a setter
// changes only its own field.
TEST(IterDomainBuilder, CopiesEveryField) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  IterDomain* id = IterDomainBuilder(constInt(8)).iterType(IterType::Reduction).build();
  id->parallelize(ParallelType::TIDx);
  IterDomain* copy = IterDomainBuilder(id).build();
  EXPECT_NE(copy, id);
  EXPECT_EQ(copy->extent(), id->extent());
  EXPECT_EQ(copy->iterType(), IterType::Reduction);
  EXPECT_EQ(copy->parallelType(), ParallelType::TIDx);
  Val* n = newScalar(DataType::Index);
  IterDomain* other = IterDomainBuilder(id).extent(n).build();
  EXPECT_EQ(other->extent(), n);
  EXPECT_EQ(other->iterType(), IterType::Reduction);
  EXPECT_EQ(other->parallelType(), ParallelType::TIDx);
  IterDomain* serial = IterDomainBuilder(id).parallelType(ParallelType::Serial).build();
  EXPECT_EQ(serial->parallelType(), ParallelType::Serial);
  EXPECT_EQ(serial->iterType(), IterType::Reduction);
  // freshCopy is the serial copy.
  IterDomain* fresh = id->freshCopy();
  EXPECT_EQ(fresh->extent(), id->extent());
  EXPECT_EQ(fresh->iterType(), IterType::Reduction);
  EXPECT_EQ(fresh->parallelType(), ParallelType::Serial);
  EXPECT_EQ(fresh->definition(), nullptr);
}

// build(fusion) makes the axis in another fusion than the current one (a clone).
TEST(IterDomainBuilder, BuildsInAnotherFusion) {
  Fusion a, b;
  Val* extent = nullptr;
  {
    FusionGuard fg(&b);
    extent = constInt(4);
  }
  FusionGuard fg(&a);
  IterDomain* id = IterDomainBuilder(extent).iterType(IterType::Symbolic).build(&b);
  EXPECT_EQ(id->fusion(), &b);
  EXPECT_EQ(id->iterType(), IterType::Symbolic);
}

// The cloner copies an axis through the builder: the clone has every field of the original.
TEST(IterDomainBuilder, ClonerKeepsEveryField) {
  Fusion a;
  IterDomain* id = nullptr;
  {
    FusionGuard fg(&a);
    id = IterDomainBuilder(constInt(32)).iterType(IterType::Reduction).build();
    id->parallelize(ParallelType::BIDy);
  }
  Fusion b;
  IrCloner cloner(&b);
  auto* c = cloner.clone(id)->as<IterDomain>();
  EXPECT_EQ(c->fusion(), &b);
  EXPECT_EQ(c->extent()->constInt(), 32);
  EXPECT_EQ(c->iterType(), IterType::Reduction);
  EXPECT_EQ(c->parallelType(), ParallelType::BIDy);
}

// visitIdExpr calls the handler of the expr's class and returns its result, for Split and
// Merge, through Expr* and const Expr*.
TEST(VisitIdExpr, CallsTheHandlerOfEachClass) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  TensorView* tv = makeSymbolicTensor(2);
  tv->merge(0)->split(0, 4);
  auto name = [](Expr* e) {
    return visitIdExpr(
        e, [](Split* s) { return "split of " + s->in()->toString(); },
        [](Merge* m) { return "merge into " + m->out()->toString(); },
        [](Resize* r) { return "resize of " + r->in()->toString(); });
  };
  std::vector<Expr*> transforms = tv->domain()->allTransforms();
  ASSERT_EQ(transforms.size(), 2u);
  EXPECT_EQ(name(transforms[0]), "merge into iS2{( i0 * i1 )}");
  EXPECT_EQ(name(transforms[1]), "split of iS2{( i0 * i1 )}");
  const Expr* split = transforms[1];
  int64_t outputs = visitIdExpr(
      split, [](const Split* s) { return static_cast<int64_t>(s->outputs().size()); },
      [](const Merge*) { return int64_t{1}; }, [](const Resize*) { return int64_t{1}; });
  EXPECT_EQ(outputs, 2);
}

// An expr that is not an IterDomain transform reaching the dispatch is a compiler bug, named
// with its class (an internal error is the expected outcome only here).
TEST(VisitIdExpr, OtherExprIsAnInternalError) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  Val* sum = SimplifyingIrBuilder::add(newScalar(DataType::Index), newScalar(DataType::Index));
  Expr* add = sum->definition();
  ASSERT_NE(add, nullptr);
  EXPECT_THAT(
      [&] {
        visitIdExpr(
            add, [](Split*) {}, [](Merge*) {}, [](Resize*) {});
      },
      ThrowsMessage<InternalError>(
          AllOf(HasSubstr("unhandled IterDomain expr BinaryOp"), HasSubstr("i2 = i1 + i0"))));
  EXPECT_THAT(
      [&] {
        visitIdExpr(
            static_cast<Expr*>(nullptr), [](Split*) {}, [](Merge*) {}, [](Resize*) {});
      },
      ThrowsMessage<InternalError>(HasSubstr("unhandled IterDomain expr (null)")));
}

}  // namespace
}  // namespace mf
