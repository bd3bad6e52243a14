// Data type sizes: bits per element (dataTypeSizeBit), whole bytes per element (dataTypeSize)
// and the packed storage of a number of elements (storageBytes).
#include <gtest/gtest.h>

#include "ir/dtype.h"

namespace mf {
namespace {

// Each type's size in bits; in bytes it is the same size.
TEST(DataTypeSize, BitsAndBytes) {
  const std::pair<DataType, int64_t> bits[] = {
      {DataType::Bool, 8},   {DataType::Int32, 32},  {DataType::Int64, 64},
      {DataType::Index, 64}, {DataType::Half, 16},   {DataType::BFloat16, 16},
      {DataType::Float, 32}, {DataType::Double, 64}, {DataType::Float8_e4m3fn, 8}};
  for (auto [t, b] : bits) {
    EXPECT_EQ(dataTypeSizeBit(t), b) << toString(t);
    EXPECT_EQ(dataTypeSize(t) * 8, b) << toString(t);
  }
}

// n elements take n * bits / 8 bytes, rounded up to a whole byte.
TEST(DataTypeSize, StorageBytes) {
  EXPECT_EQ(storageBytes(DataType::Float, 3), 12);
  EXPECT_EQ(storageBytes(DataType::Half, 5), 10);
  EXPECT_EQ(storageBytes(DataType::Float8_e4m3fn, 7), 7);
  EXPECT_EQ(storageBytes(DataType::Bool, 0), 0);
}

}  // namespace
}  // namespace mf
