// Misused operands are UserErrors naming the op and the argument: a null operand (a crash
// before), a tensor of another fusion (an InternalError before), a split factor of 0 given as
// a literal (did not compile before).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "ir/builder.h"
#include "ir/fusion.h"
#include "ops/arith.h"
#include "ops/layout.h"
#include "ops/tensor_factories.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The values a case may misuse: a tensor and a scalar of the active fusion, and a tensor of
// another fusion.
struct Operands {
  TensorView* tv;
  Val* scalar;
  TensorView* foreign;
};

struct MisuseCase {
  const char* name;
  std::function<void(const Operands&)> misuse;
  std::string message;
};

// gtest prints a case by its name (not its bytes), in failures and test lists.
void PrintTo(const MisuseCase& c, std::ostream* os) {
  *os << c.name;
}

// The message for `prefix` (op and argument) naming the other fusion's tensor.
std::string foreign(const char* prefix, const char* role = "the active FusionGuard's") {
  return fmt::format(
      "{}T0_l_float[iS0{{i0}}] belongs to another fusion than the one the op builds into "
      "({}); build each op in the fusion of its operands",
      prefix, role);
}

const MisuseCase kCases[] = {
    {"UnaryTensorNull", [](const Operands&) { exp(static_cast<TensorView*>(nullptr)); },
     "exp: x is null"},
    {"UnaryScalarNull", [](const Operands&) { neg(static_cast<Val*>(nullptr)); }, "neg: x is null"},
    {"BinaryLhsNull", [](const Operands& o) { add(static_cast<Val*>(nullptr), o.tv); },
     "+: lhs is null"},
    {"BinaryRhsNull", [](const Operands& o) { mul(o.tv, static_cast<Val*>(nullptr)); },
     "*: rhs is null"},
    {"WhereCondNull", [](const Operands& o) { where(nullptr, o.tv, o.tv); }, "where: cond is null"},
    {"WhereANull", [](const Operands& o) { where(gt(o.tv, o.scalar), nullptr, o.tv); },
     "where: a is null"},
    {"WhereBNull", [](const Operands& o) { where(gt(o.tv, o.scalar), o.tv, nullptr); },
     "where: b is null"},
    {"ClampXNull", [](const Operands& o) { clamp(nullptr, o.scalar, o.scalar); },
     "clamp: x is null"},
    {"ClampLoNull", [](const Operands& o) { clamp(o.tv, nullptr, o.scalar); }, "clamp: lo is null"},
    {"ClampHiNull", [](const Operands& o) { clamp(o.tv, o.scalar, nullptr); }, "clamp: hi is null"},
    {"CastNull", [](const Operands&) { castOp(DataType::Half, nullptr); }, "castOp: x is null"},
    {"SetNull", [](const Operands&) { set(nullptr); }, "set: x is null"},
    {"BroadcastNull", [](const Operands&) { broadcast(nullptr, {true}); }, "broadcast: x is null"},
    {"LayoutInputNull",
     [](const Operands& o) { preprocessGroupedMatmulInputSf(nullptr, o.tv, o.tv); },
     "preprocessGroupedMatmulInputSf: input is null"},
    {"AddInputNull", [](const Operands& o) { o.tv->fusion()->addInput(nullptr); },
     "addInput: the value is null"},
    {"AddOutputNull", [](const Operands& o) { o.tv->fusion()->addOutput(nullptr); },
     "addOutput: the value is null"},
    {"SplitFactorNull", [](const Operands& o) { o.tv->split(0, static_cast<Val*>(nullptr)); },
     "split of iS0{i0}: the factor is null"},
    {"SplitByLiteralZero", [](const Operands& o) { o.tv->split(0, 0); },
     "split of T0_l_float[iS0{i0}]: the factor must be positive, got 0"},
    {"SplitByUnsigned", [](const Operands& o) { o.tv->split(0, size_t{0}); },
     "split of T0_l_float[iS0{i0}]: the factor must be positive, got 0"},
    {"SplitFactorOfAnotherFusion",
     [](const Operands& o) { o.tv->split(0, o.foreign->axis(0)->extent()); },
     "split of iS0{i0}: the factor i0 belongs to another fusion"},
    {"UnaryOnForeignTensor", [](const Operands& o) { exp(o.foreign); }, foreign("exp: x ")},
    {"BinaryOnForeignTensor", [](const Operands& o) { add(o.tv, o.foreign); }, foreign("+: rhs ")},
    {"WhereOnForeignTensor", [](const Operands& o) { where(gt(o.tv, o.scalar), o.foreign, o.tv); },
     foreign("where: a ")},
    {"ClampOfForeignTensor", [](const Operands& o) { clamp(o.foreign, o.scalar, o.scalar); },
     foreign("clamp: x ")},
    {"CastOfForeignTensor", [](const Operands& o) { castOp(DataType::Half, o.foreign); },
     foreign("castOp: x ")},
    {"SetOfForeignTensor", [](const Operands& o) { set(o.foreign); }, foreign("set: x ")},
    {"BroadcastOfForeignTensor",
     [](const Operands& o) {
       broadcast(o.foreign, {false, true});
     },
     foreign("broadcast: x ")},
    {"LayoutOffsetsOfAnotherFusion",
     [](const Operands& o) {
       preprocessGroupedMatmulInputSf(makeSymbolicTensor(2), o.foreign, o.foreign);
     },
     foreign("preprocessGroupedMatmulInputSf: input_offsets ", "the input's")},
    {"ExprBuiltByHandWithForeignInput",
     [](const Operands& o) {
       IrBuilder::create<UnaryOp>(std::vector<Val*>{o.foreign}, std::vector<Val*>{o.tv},
                                  UnaryOpType::Neg);
     },
     "UnaryOp: input T0_l_float[iS0{i0}] belongs to another fusion than the one the expr is "
     "built in (the active FusionGuard's, or the one given to IrBuilder::createIn)"},
};

class OperandChecks : public ::testing::TestWithParam<MisuseCase> {};

TEST_P(OperandChecks, IsAUserErrorNamingOpAndArgument) {
  Fusion other;
  TensorView* foreign_tv = nullptr;
  {
    FusionGuard fg(&other);
    foreign_tv = makeSymbolicTensor(1);
  }
  Fusion fusion;
  FusionGuard fg(&fusion);
  Operands o{makeSymbolicTensor(1), newScalar(DataType::Double), foreign_tv};
  EXPECT_THAT([&] { GetParam().misuse(o); },
              ThrowsMessage<UserError>(HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(Ops, OperandChecks, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// An op with no FusionGuard says so, naming the op.
TEST(OperandChecks, NoActiveFusion) {
  Fusion fusion;
  TensorView* tv = nullptr;
  {
    FusionGuard fg(&fusion);
    tv = makeSymbolicTensor(1);
  }
  EXPECT_THAT([&] { exp(tv); },
              ThrowsMessage<UserError>(
                  HasSubstr("exp: no active fusion: create a FusionGuard before building IR")));
}

}  // namespace
}  // namespace mf
