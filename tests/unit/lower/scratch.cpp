#include <gtest/gtest.h>
#include <iostream>
#include "codegen/codegen.h"
#include "ir/inlining.h"
#include "lower/pipeline.h"
#include "minifuser/minifuser.h"
namespace mf {
TEST(Scratch, Dump) {}
}
