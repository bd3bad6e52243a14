#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace mf {

// MF_CHECK formats its message and throws UserError; nothing else is added to the text.
TEST(Errors, CheckThrowsUserErrorWithFormattedMessage) {
  EXPECT_THAT([] { MF_CHECK(1 + 1 == 3, "op {}: tensor {} is bad", "add", "T3"); },
              ThrowsMessage<UserError>(::testing::StrEq("op add: tensor T3 is bad")));
  EXPECT_NO_THROW(MF_CHECK(true, "never"));
}

// MF_ASSERT throws InternalError naming the condition and asking for a bug report.
TEST(Errors, AssertThrowsInternalError) {
  EXPECT_THAT([] { MF_ASSERT(2 < 1, "context {}", 7); },
              ThrowsMessage<InternalError>(AllOf(HasSubstr("2 < 1"), HasSubstr("context 7"),
                                                 HasSubstr("bug in minifuser"))));
  EXPECT_THAT([] { MF_ASSERT(false); }, ThrowsMessage<InternalError>(HasSubstr("false failed")));
}

// The _EQ forms print expected and actual.
TEST(Errors, EqFormsPrintBothSides) {
  EXPECT_THAT([] { MF_CHECK_EQ(3, 4, "rank of {}", "T0"); },
              ThrowsMessage<UserError>(::testing::StrEq("rank of T0: expected 4, got 3")));
  EXPECT_THAT([] { MF_ASSERT_EQ(1, 2); }, ThrowsMessage<InternalError>(HasSubstr("found 1 vs 2")));
}

// Both error kinds are std::runtime_error, so callers can catch them generically.
TEST(Errors, DeriveFromRuntimeError) {
  EXPECT_THROW(MF_THROW("x"), std::runtime_error);
}

}  // namespace mf
